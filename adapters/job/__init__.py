"""The ``batch/v1`` Job adapter: the 1.37 Job controller's Workload and PodGroups for one Job.

``adapter`` plans the Job, ``api`` holds the Job API's side of
``spec.scheduling`` (the validation the API and the controller share), and
``pods`` renders the Job's pods.
"""

from workloadbuilder.adapters.job.adapter import (
    CONTROLLER_UID_LABEL,
    JOB_NAME_LABEL,
    JobAdapter,
    JobMode,
    management_mode,
)

__all__ = ["CONTROLLER_UID_LABEL", "JOB_NAME_LABEL", "JobAdapter", "JobMode", "management_mode"]
