"""The rules on an object's pod templates whatever controller makes its pods, for a caller that holds no adapter.

An adapter judges its own objects: ``adapters._shared.pod_rules`` holds the
apiserver's pod rules, and each adapter passes in the rules its controller's
webhook adds. A caller that judges an object no adapter plans (a Trainer
runtime no TrainJob uses, read by ``workloadbuilder validate``) has no
adapter to ask, so ``template_errors`` runs the pod rules and then every
bundled controller's rules; each of those finds nothing in an object of
another kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workloadbuilder import ErrorList
from workloadbuilder.adapters._shared.pod_rules import pod_template_errors
from workloadbuilder.adapters.trainer.pods import ancestor_container_errors
from workloadbuilder.adapters.volcano.rules import io_errors

__all__ = ["template_errors"]


def template_errors(obj: Mapping[str, Any]) -> ErrorList:
    """Every pod rule an object's pod templates break, then Volcano's ``validateIO`` and Trainer's step containers.

    Examples:
        >>> runtime = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainingRuntime",
        ...            "metadata": {"name": "r"}, "spec": {"template": {"spec": {"replicatedJobs": [
        ...                {"name": "node", "template": {
        ...                    "metadata": {"labels": {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer"}},
        ...                    "spec": {"template": {"spec": {"containers": [{"name": "Main"}]}}}}}]}}}}
        >>> for error in template_errors(runtime):
        ...     print(str(error.field).rsplit("template.spec.", 1)[1], "|", error.detail[:39])
        containers[0].name | a lowercase RFC 1123 label must consist
        containers | must contain the required container for
    """
    return pod_template_errors(obj, [io_errors, ancestor_container_errors])
