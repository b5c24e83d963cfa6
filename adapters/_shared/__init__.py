"""What several bundled adapters use, and no adapter author needs: not API.

Reading a controller's object (``reading``), the building blocks it embeds
and the warnings about it (``blocks``), its controller's webhook defaults
(``defaults``), the schema check (``strict``), the apiserver's pod rules
(``pod_rules``, ``pod_resources``), the labels of a batch Job's pods
(``job_labels``) and bring-your-own PodGroups (``own_groups``). Nothing here
imports a controller's package (``adapters.job``, ``adapters.jobset``, ...).
"""
