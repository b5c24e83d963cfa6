"""Update safety: what an apiserver says to an update, before the request is made.

After creation a Workload may gain or lose no template and change nothing
but a gang's ``minCount``; a PodGroup may change only its ``minCount``.
``check_update`` gives the apiserver's answer to ``old`` becoming ``new``.
``workloadbuilder.runtime.resizing`` builds the one change that is always allowed.
"""

from __future__ import annotations

from workloadbuilder._internal import kinds
from workloadbuilder._internal.kinds import KubeObject
from workloadbuilder.errors import InvalidArgumentError
from workloadbuilder.field import ErrorList
from workloadbuilder.validation.gates import FeatureGates
from workloadbuilder.validation.objects import (
    validate_composite_pod_group,
    validate_pod_group,
    validate_workload,
)

__all__ = ["check_update"]

_VALIDATORS = {
    kinds.WORKLOAD: validate_workload,
    kinds.POD_GROUP: validate_pod_group,
    kinds.COMPOSITE_POD_GROUP: validate_composite_pod_group,
}


def check_update(old: KubeObject, new: KubeObject, gates: FeatureGates | None = None) -> ErrorList:
    """The errors a 1.37 apiserver returns for updating ``old`` to ``new``.

    Args:
        old: the stored Workload, PodGroup or CompositePodGroup (client model or dict).
        new: the object as it would be sent, of the same kind.
        gates: the feature gates in force; ``None`` turns every gate on.

    Returns:
        The errors, empty when the update would be accepted: for instance
        ``spec.podGroupTemplates: Forbidden: item may not be removed`` or
        ``spec.schedulingPolicy.basic: Invalid value: null: field is immutable``.

    Raises:
        InvalidArgumentError: the two are not of the same supported kind (or ``old`` does not decode).
    """
    kind = kinds.kind_of(old)
    if kind not in _VALIDATORS:
        raise InvalidArgumentError(
            "old must be a Workload, PodGroup or CompositePodGroup (a client model, or a dict with its kind), "
            f"not {kind}"
        )
    new_kind = kinds.kind_of(new) or kind
    if new_kind != kind:
        raise InvalidArgumentError(f"an update keeps the kind: old is a {kind}, new a {new_kind}")
    return _VALIDATORS[kind](new, old, gates)
