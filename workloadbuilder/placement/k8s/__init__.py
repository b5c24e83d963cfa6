"""Kubernetes vocabulary as the scheduler reads it: quantities, resources, pod
constraints, priority classes, disruption budgets.

No engine here: these modules import only the base layer, so the CLI and the
adapters can read quantities and constraints without loading the placement engine.
"""
