"""Pictures of a placement: the SVG/HTML page of a cluster and its groups, and the charts of capacity and simulate."""
