"""tests/runtime: the objects made after compilation, and their life in a cluster.

Runtime groups from templates, the whole linked hierarchy, delegation to
child objects and pod stamping, and resizing a gang; each file mirrors the
module of ``workloadbuilder/runtime/`` it tests.
"""
