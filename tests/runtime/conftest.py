"""tests/runtime: the objects made after compilation, and their life in a cluster.

Runtime groups from templates, the whole linked hierarchy, delegation to
child objects and pod stamping, resizing a gang, and creating the objects
through the kubernetes client against a recording stand-in for the API server.
"""
