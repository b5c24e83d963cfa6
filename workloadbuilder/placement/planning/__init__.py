"""Planning over many placements: ``capacity`` (how many copies fit),
``simulate`` (a queue over time) and the copies they place.
"""
