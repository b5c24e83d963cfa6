"""The Volcano Job adapter (``batch.volcano.sh/v1alpha1``): a Volcano Job's gang as native Workload objects.

``adapter`` plans the Job, ``rules`` holds Volcano's admission rules (its
policies and ``validateIO``), and ``pods`` renders the tasks' pods.
"""

from workloadbuilder.adapters.volcano.adapter import DESIGN, JOB_NAME_LABEL, TASK_SPEC_LABEL, VolcanoJobAdapter

__all__ = ["DESIGN", "JOB_NAME_LABEL", "TASK_SPEC_LABEL", "VolcanoJobAdapter"]
