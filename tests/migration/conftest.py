"""tests/migration: ``workloadbuilder/migration/``, module by module.

Objects of removed ``scheduling.k8s.io`` versions (``test_versions.py``) and other schedulers' gangs
(``test_gangs.py``) moved onto 1.37's gang scheduling.
"""
