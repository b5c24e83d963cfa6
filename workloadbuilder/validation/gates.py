"""The Kubernetes 1.37 feature gates that touch Workload, PodGroup and CompositePodGroup.

A field guarded by a gate that is off is refused by validation
(``Forbidden``, naming the gate), and an object needs its gates on every
component that handles it. ``FeatureGates`` says which gates are on;
``GATES`` describes each one (stage, 1.37 default, the components that must
enable it, the gates it builds on).

Stages and defaults follow ``pkg/features`` of 1.37 (every gate here is off
by default: the beta gates guard APIs that are themselves off by default);
components follow each KEP's ``kep.yaml``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from workloadbuilder.errors import InvalidArgumentError

__all__ = [
    "COMPONENTS",
    "COMPOSITE_POD_GROUP",
    "DRA_WORKLOAD_RESOURCE_CLAIMS",
    "GATES",
    "GENERIC_WORKLOAD",
    "POD_GROUP_PREEMPTION_POLICY",
    "TOPOLOGY_AWARE_WORKLOAD_SCHEDULING",
    "WORKLOAD_WITH_JOB",
    "FeatureGates",
    "Gate",
    "gate_disabled_detail",
]

GENERIC_WORKLOAD = "GenericWorkload"
DRA_WORKLOAD_RESOURCE_CLAIMS = "DRAWorkloadResourceClaims"
TOPOLOGY_AWARE_WORKLOAD_SCHEDULING = "TopologyAwareWorkloadScheduling"
COMPOSITE_POD_GROUP = "CompositePodGroup"
WORKLOAD_WITH_JOB = "WorkloadWithJob"
POD_GROUP_PREEMPTION_POLICY = "PodGroupPreemptionPolicy"

APISERVER = "kube-apiserver"
CONTROLLER_MANAGER = "kube-controller-manager"
SCHEDULER = "kube-scheduler"
KUBELET = "kubelet"
COMPONENTS = (APISERVER, CONTROLLER_MANAGER, SCHEDULER, KUBELET)
"""The components a gate may have to be enabled on, in the order they are listed."""


@dataclass(frozen=True)
class Gate:
    """One feature gate as Kubernetes 1.37 ships it.

    Attributes:
        name: the gate's name, as given to ``--feature-gates``.
        stage: ``alpha`` or ``beta``.
        default: whether 1.37 enables it when not set.
        components: where it must be enabled for the feature to work.
        depends_on: gates that must be on too.
        feature: what it enables, in a few words.
    """

    name: str
    stage: str
    default: bool
    components: tuple[str, ...]
    depends_on: tuple[str, ...]
    feature: str


GATES: Mapping[str, Gate] = {
    gate.name: gate
    for gate in (
        Gate(
            GENERIC_WORKLOAD,
            "beta",
            False,
            (APISERVER, CONTROLLER_MANAGER, SCHEDULER),
            (),
            "the Workload and PodGroup APIs, gang scheduling and workload-aware preemption",
        ),
        Gate(
            DRA_WORKLOAD_RESOURCE_CLAIMS,
            "beta",
            False,
            (APISERVER, CONTROLLER_MANAGER, SCHEDULER, KUBELET),
            (GENERIC_WORKLOAD,),
            "ResourceClaims shared by a PodGroup",
        ),
        Gate(
            TOPOLOGY_AWARE_WORKLOAD_SCHEDULING,
            "alpha",
            False,
            (APISERVER, SCHEDULER),
            (GENERIC_WORKLOAD,),
            "topology constraints and the placement algorithm",
        ),
        Gate(
            COMPOSITE_POD_GROUP,
            "alpha",
            False,
            (APISERVER, CONTROLLER_MANAGER, SCHEDULER),
            (GENERIC_WORKLOAD, TOPOLOGY_AWARE_WORKLOAD_SCHEDULING),
            "CompositePodGroups and composite templates",
        ),
        Gate(
            WORKLOAD_WITH_JOB,
            "alpha",
            False,
            (APISERVER, CONTROLLER_MANAGER),
            (GENERIC_WORKLOAD,),
            "Job spec.scheduling and the Job controller's Workloads and PodGroups",
        ),
        Gate(
            POD_GROUP_PREEMPTION_POLICY,
            "alpha",
            False,
            (APISERVER, SCHEDULER),
            (GENERIC_WORKLOAD,),
            "preemptionPolicy on PodGroups and their templates",
        ),
    )
}


def gate_disabled_detail(gate: str) -> str:
    """The detail of the ``Forbidden`` error for a field whose gate is off."""
    return f"the {gate} feature gate is disabled"


class FeatureGates:
    """Which of the gates in ``GATES`` are on; immutable.

    ``FeatureGates(enabled={"GenericWorkload", "CompositePodGroup"})`` turns on
    exactly those; a mapping of names to booleans works too.
    ``FeatureGates.all()`` turns on every gate (the validation functions'
    default: validating these objects means meaning to use them), and
    ``FeatureGates.defaults()`` is a 1.37 cluster left as shipped.

    Raises:
        InvalidArgumentError: a name that is not one of ``GATES``, so a typo cannot
            silently leave a gate off.
    """

    __slots__ = ("_enabled",)

    def __init__(self, enabled: Iterable[str] | Mapping[str, bool] = ()) -> None:
        if isinstance(enabled, Mapping):
            names = {name for name, on in enabled.items() if on}
            given = set(enabled)
        else:
            names = set(enabled)
            given = names
        unknown = sorted(given - set(GATES))
        if unknown:
            raise InvalidArgumentError(
                f"unknown feature gate(s) {', '.join(unknown)}: known gates are {', '.join(sorted(GATES))}"
            )
        self._enabled = frozenset(names)

    @classmethod
    def all(cls) -> FeatureGates:
        """Every gate on."""
        return cls(GATES)

    @classmethod
    def defaults(cls) -> FeatureGates:
        """The gates Kubernetes 1.37 turns on when none is set (none of these)."""
        return cls(name for name, gate in GATES.items() if gate.default)

    @property
    def enabled(self) -> frozenset[str]:
        """The names of the gates that are on."""
        return self._enabled

    def is_enabled(self, gate: str) -> bool:
        """Whether ``gate`` is on.

        Raises:
            InvalidArgumentError: ``gate`` is not one of ``GATES``.
        """
        if gate not in GATES:
            raise InvalidArgumentError(f"unknown feature gate {gate}")
        return gate in self._enabled

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FeatureGates) and self._enabled == other._enabled

    def __hash__(self) -> int:
        return hash(self._enabled)

    def __repr__(self) -> str:
        return f"FeatureGates(enabled={sorted(self._enabled)!r})"
