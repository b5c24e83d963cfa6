"""Moving existing objects onto 1.37's gang scheduling: objects of removed ``scheduling.k8s.io`` versions
(``versions``) and other schedulers' gangs (``gangs``: coscheduling and Volcano PodGroups)."""
