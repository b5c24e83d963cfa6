"""tests/testing: the public testing kit, ``workloadbuilder/testing/``, module by module.

The factories, the field-error matcher, golden files, the pytest plugin (run in a child session with
``pytester``) and the hypothesis strategies; each file mirrors the module it tests.
"""
