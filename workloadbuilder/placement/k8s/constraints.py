"""What a pod asks of a node besides resources, and what a node says of itself: taints, selectors, ports.

These are the inputs of kube-scheduler's default filter plugins, read from
Kubernetes JSON (a pod spec, a node) into small frozen records, so that
pods of one kind share one hashable ``PodConstraints`` and the filters can
cache their verdicts per kind of pod and kind of node. Every malformed
field is one ``FieldError`` at its path; nothing here raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from workloadbuilder._internal.fields_read import read_list, read_object, read_string
from workloadbuilder.field import ErrorList, FieldPath, Where, not_supported, path_below, resolve_where, type_invalid

__all__ = [
    "EFFECTS",
    "AffinityTerm",
    "HostPort",
    "LabelSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "PodAffinity",
    "PodConstraints",
    "SpreadConstraint",
    "Taint",
    "Toleration",
    "normalized_image",
    "read_constraints",
    "read_host_ports",
    "read_pod_affinity",
    "read_taints",
]


EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
_TOLERATION_OPERATORS = ("", "Equal", "Exists", "Lt", "Gt")
_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
_PROTOCOLS = ("TCP", "UDP", "SCTP")
_WILDCARD_IP = "0.0.0.0"


@dataclass(frozen=True)
class Taint:
    """A node taint: ``key``, ``value`` and ``effect`` (``NoSchedule``, ``PreferNoSchedule``, ``NoExecute``)."""

    key: str
    value: str = ""
    effect: str = "NoSchedule"


@dataclass(frozen=True)
class Toleration:
    """A pod toleration; an empty ``effect`` matches every effect, an empty ``key`` with ``Exists`` every key."""

    key: str = ""
    operator: str = ""
    value: str = ""
    effect: str = ""


@dataclass(frozen=True)
class NodeSelectorRequirement:
    """One ``matchExpressions`` or ``matchFields`` entry of a node selector term."""

    key: str
    operator: str
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class NodeSelectorTerm:
    """One required node affinity term: every expression and every field requirement must hold."""

    expressions: tuple[NodeSelectorRequirement, ...] = ()
    fields: tuple[NodeSelectorRequirement, ...] = ()


@dataclass(frozen=True)
class HostPort:
    """A host port a container binds: ``protocol``/``port`` on ``ip`` (``0.0.0.0``: every address)."""

    port: int
    protocol: str = "TCP"
    ip: str = _WILDCARD_IP

    def conflicts(self, other: HostPort) -> bool:
        """Whether two pods binding these ports cannot share a node (as ``HostPortInfo.CheckConflict``)."""
        if self.port != other.port or self.protocol != other.protocol:
            return False
        return self.ip == other.ip or _WILDCARD_IP in (self.ip, other.ip)


@dataclass(frozen=True)
class LabelSelector:
    """A ``metav1.LabelSelector``: ``matchLabels`` pairs and ``matchExpressions`` (set-based requirements)."""

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[NodeSelectorRequirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether a pod with ``labels`` is selected (an empty selector selects every pod)."""
        for key, value in self.match_labels:
            if labels.get(key) != value:
                return False
        for requirement in self.match_expressions:
            present = requirement.key in labels
            value = labels.get(requirement.key, "")
            operator = requirement.operator
            if operator == "In" and not (present and value in requirement.values):
                return False
            if operator == "NotIn" and present and value in requirement.values:
                return False
            if operator == "Exists" and not present:
                return False
            if operator == "DoesNotExist" and present:
                return False
        return True


@dataclass(frozen=True)
class AffinityTerm:
    """One required pod (anti-)affinity term: pods matching ``selector`` in ``namespaces``, per ``topology_key`` domain.

    ``namespaces`` is ``None`` for every namespace (an empty
    ``namespaceSelector``); otherwise the listed ones, or the pod's own.
    """

    topology_key: str
    selector: LabelSelector
    namespaces: tuple[str, ...] | None

    def matches(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """Whether a pod in ``namespace`` with ``labels`` is one the term counts."""
        if self.namespaces is not None and namespace not in self.namespaces:
            return False
        return self.selector.matches(labels)


@dataclass(frozen=True)
class PodAffinity:
    """A pod's pod affinity and anti-affinity terms, required and preferred (the preferred with their weights).

    A running pod's terms are what InterPodAffinity's score reads of it
    (its required affinity terms weigh ``HardPodAffinityWeight``, 1); the
    required anti-affinity terms are kept for the filter.
    """

    required: tuple[AffinityTerm, ...] = ()
    required_anti: tuple[AffinityTerm, ...] = ()
    preferred: tuple[tuple[int, AffinityTerm], ...] = ()
    preferred_anti: tuple[tuple[int, AffinityTerm], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.required or self.required_anti or self.preferred or self.preferred_anti)


@dataclass(frozen=True)
class SpreadConstraint:
    """One ``topologySpreadConstraints`` entry: ``whenUnsatisfiable: DoNotSchedule``, or ``ScheduleAnyway`` (scores).

    ``honor_affinity`` / ``honor_taints`` are ``nodeAffinityPolicy`` and
    ``nodeTaintsPolicy`` (defaults: Honor, Ignore): whether nodes the pod's
    node affinity or taints exclude count as domains.
    """

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int = 1
    honor_affinity: bool = True
    honor_taints: bool = False


@dataclass(frozen=True)
class PodConstraints:
    """Everything but resources that decides which nodes can take a pod.

    ``affinity`` is ``None`` when the pod sets no required node affinity
    (every node matches); an empty tuple of terms matches no node.
    """

    tolerations: tuple[Toleration, ...] = ()
    node_selector: tuple[tuple[str, str], ...] = ()
    affinity: tuple[NodeSelectorTerm, ...] | None = None
    node_name: str = ""
    host_ports: tuple[HostPort, ...] = ()
    namespace: str = "default"
    labels: tuple[tuple[str, str], ...] = ()
    pod_affinity: tuple[AffinityTerm, ...] = ()
    pod_anti_affinity: tuple[AffinityTerm, ...] = ()
    preferred: tuple[tuple[int, NodeSelectorTerm], ...] = ()
    """Preferred node affinity terms with their weights (scoring only)."""
    spread: tuple[SpreadConstraint, ...] = ()
    images: tuple[str, ...] = ()
    """The image of each init container, container and image volume, normalized as ImageLocality reads them
    (``name:latest`` for a name without a tag); scoring only."""
    soft_spread: tuple[SpreadConstraint, ...] = ()
    """The ``whenUnsatisfiable: ScheduleAnyway`` spread constraints (PodTopologySpread's score only)."""
    preferred_pod_affinity: tuple[tuple[int, AffinityTerm], ...] = ()
    """Preferred pod affinity terms with their weights (InterPodAffinity's score only)."""
    preferred_pod_anti_affinity: tuple[tuple[int, AffinityTerm], ...] = ()
    """Preferred pod anti-affinity terms with their weights (InterPodAffinity's score only)."""

    @property
    def pod_affinity_terms(self) -> PodAffinity:
        """The pod's pod (anti-)affinity terms as a running pod's ``PodAffinity`` (what an assumed copy holds)."""
        return PodAffinity(
            self.pod_affinity, self.pod_anti_affinity, self.preferred_pod_affinity, self.preferred_pod_anti_affinity
        )

    @property
    def label_map(self) -> dict[str, str]:
        """The pod's labels as a mapping."""
        return dict(self.labels)

    @property
    def selects_nodes(self) -> bool:
        """Whether NodeAffinity, NodeName or InterPodAffinity can reject a node for this pod by its name or labels."""
        return (
            bool(self.node_selector)
            or self.affinity is not None
            or bool(self.node_name)
            or bool(self.pod_affinity)
            or bool(self.pod_anti_affinity)
            or bool(self.spread)
        )


NO_CONSTRAINTS = PodConstraints()
"""A pod that tolerates nothing, selects nothing and binds no host port."""


# -- readers ----------------------------------------------------------------------


def read_taints(raw: Any, path: Where, errors: ErrorList) -> tuple[Taint, ...]:
    """A node's ``spec.taints``, in order; an entry with an unknown effect is reported and left out."""
    out = []
    for i, entry in enumerate(read_list(raw, path, errors)):
        entry_path = path_below(path, i)
        entry = read_object(entry, entry_path, errors)
        effect = read_string(entry.get("effect"), path_below(entry_path, "effect"), errors)
        if effect not in EFFECTS:
            errors.append(not_supported(path_below(entry_path, "effect")(), effect, EFFECTS))
            continue
        key = read_string(entry.get("key"), path_below(entry_path, "key"), errors)
        value = read_string(entry.get("value"), path_below(entry_path, "value"), errors)
        out.append(Taint(key, value, effect))
    return tuple(out)


def _tolerations(raw: Any, path: Where, errors: ErrorList) -> tuple[Toleration, ...]:
    out = []
    for i, entry in enumerate(read_list(raw, path, errors)):
        entry_path = path_below(path, i)
        entry = read_object(entry, entry_path, errors)
        operator = read_string(entry.get("operator"), path_below(entry_path, "operator"), errors)
        if operator not in _TOLERATION_OPERATORS:
            errors.append(not_supported(path_below(entry_path, "operator")(), operator, _TOLERATION_OPERATORS[1:]))
            continue
        effect = read_string(entry.get("effect"), path_below(entry_path, "effect"), errors)
        if effect and effect not in EFFECTS:
            errors.append(not_supported(path_below(entry_path, "effect")(), effect, EFFECTS))
            continue
        out.append(
            Toleration(
                read_string(entry.get("key"), path_below(entry_path, "key"), errors),
                operator,
                read_string(entry.get("value"), path_below(entry_path, "value"), errors),
                effect,
            )
        )
    return tuple(out)


def _requirements(raw: Any, path: Where, errors: ErrorList) -> tuple[NodeSelectorRequirement, ...]:
    out = []
    for i, entry in enumerate(read_list(raw, path, errors)):
        entry_path = path_below(path, i)
        entry = read_object(entry, entry_path, errors)
        operator = read_string(entry.get("operator"), path_below(entry_path, "operator"), errors)
        if operator not in _SELECTOR_OPERATORS:
            errors.append(not_supported(path_below(entry_path, "operator")(), operator, _SELECTOR_OPERATORS))
            continue
        values = tuple(
            read_string(value, path_below(entry_path, "values", j), errors)
            for j, value in enumerate(read_list(entry.get("values"), path_below(entry_path, "values"), errors))
        )
        out.append(
            NodeSelectorRequirement(
                read_string(entry.get("key"), path_below(entry_path, "key"), errors), operator, values
            )
        )
    return tuple(out)


def _affinity(raw: Any, path: Where, errors: ErrorList) -> tuple[NodeSelectorTerm, ...] | None:
    node_affinity = read_object(
        read_object(raw, path, errors).get("nodeAffinity"), path_below(path, "nodeAffinity"), errors
    )
    required_path = path_below(path, "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution")
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        return None
    terms_path = path_below(required_path, "nodeSelectorTerms")
    terms = []
    for i, term in enumerate(
        read_list(read_object(required, required_path, errors).get("nodeSelectorTerms"), terms_path, errors)
    ):
        term_path = path_below(terms_path, i)
        term = read_object(term, term_path, errors)
        terms.append(
            NodeSelectorTerm(
                _requirements(term.get("matchExpressions"), path_below(term_path, "matchExpressions"), errors),
                _requirements(term.get("matchFields"), path_below(term_path, "matchFields"), errors),
            )
        )
    return tuple(terms)


def read_host_ports(spec: Mapping[str, Any], path: Where, errors: ErrorList) -> tuple[HostPort, ...]:
    """The host ports a pod spec binds: every regular container's port with a ``hostPort`` above 0.

    Init containers do not count, as the NodePorts plugin collects only
    ``spec.containers``.
    """
    out: list[HostPort] = []
    for section in ("containers",):
        for i, container in enumerate(read_list(spec.get(section), path_below(path, section), errors)):
            container_path = path_below(path, section, i)
            container = read_object(container, container_path, errors)
            for j, port in enumerate(read_list(container.get("ports"), path_below(container_path, "ports"), errors)):
                port_path = path_below(container_path, "ports", j)
                port = read_object(port, port_path, errors)
                number = port.get("hostPort")
                if number is None or number == 0:
                    continue
                if isinstance(number, bool) or not isinstance(number, int) or not 0 < number < 65536:
                    errors.append(type_invalid(path_below(port_path, "hostPort")(), number, "must be a port number"))
                    continue
                protocol = read_string(port.get("protocol"), path_below(port_path, "protocol"), errors) or "TCP"
                if protocol not in _PROTOCOLS:
                    errors.append(not_supported(path_below(port_path, "protocol")(), protocol, _PROTOCOLS))
                    continue
                ip = read_string(port.get("hostIP"), path_below(port_path, "hostIP"), errors) or _WILDCARD_IP
                out.append(HostPort(number, protocol, ip))
    return tuple(out)


def _selector_key(path: Where, key: str) -> Callable[[], FieldPath]:
    return lambda: resolve_where(path).child("nodeSelector").key(key)


def _selector(raw: Any, path: Where, errors: ErrorList) -> LabelSelector:
    raw = read_object(raw, path, errors)
    labels = read_object(raw.get("matchLabels"), path_below(path, "matchLabels"), errors)
    pairs = tuple(sorted((str(k), read_string(v, path_below(path, "matchLabels"), errors)) for k, v in labels.items()))
    expressions = _requirements(raw.get("matchExpressions"), path_below(path, "matchExpressions"), errors)
    for i, requirement in enumerate(expressions):
        if requirement.operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            errors.append(
                not_supported(
                    path_below(path, "matchExpressions", i, "operator")(),
                    requirement.operator,
                    ("In", "NotIn", "Exists", "DoesNotExist"),
                )
            )
    return LabelSelector(pairs, expressions)


def _pod_terms(raw: Any, path: Where, namespace: str, errors: ErrorList) -> tuple[AffinityTerm, ...]:
    out = []
    for i, term in enumerate(read_list(raw, path, errors)):
        term_path = path_below(path, i)
        term = read_object(term, term_path, errors)
        key = read_string(term.get("topologyKey"), path_below(term_path, "topologyKey"), errors)
        if term.get("labelSelector") is None:
            continue  # a nil selector matches no pod: the term never counts anything
        selector = _selector(term.get("labelSelector"), path_below(term_path, "labelSelector"), errors)
        listed = tuple(
            read_string(value, path_below(term_path, "namespaces", j), errors)
            for j, value in enumerate(read_list(term.get("namespaces"), path_below(term_path, "namespaces"), errors))
        )
        ns_selector = term.get("namespaceSelector")
        namespaces: tuple[str, ...] | None = listed or (namespace,)
        if isinstance(ns_selector, Mapping) and not ns_selector:
            namespaces = None
        out.append(AffinityTerm(key, selector, namespaces))
    return tuple(out)


def _weighted_terms(raw: Any, path: Where, namespace: str, errors: ErrorList) -> tuple[tuple[int, AffinityTerm], ...]:
    """``preferredDuringSchedulingIgnoredDuringExecution`` pod terms: (weight, term) pairs."""
    out: list[tuple[int, AffinityTerm]] = []
    for i, entry in enumerate(read_list(raw, path, errors)):
        entry_path = path_below(path, i)
        entry = read_object(entry, entry_path, errors)
        weight = entry.get("weight")
        if isinstance(weight, bool) or not isinstance(weight, int):
            errors.append(type_invalid(path_below(entry_path, "weight")(), weight, "must be of type integer"))
            continue
        terms = _pod_terms([entry.get("podAffinityTerm")], path_below(entry_path, "podAffinityTerm"), namespace, errors)
        out.extend((weight, term) for term in terms)
    return tuple(out)


def read_pod_affinity(spec: Mapping[str, Any], path: Where, namespace: str, errors: ErrorList) -> PodAffinity:
    """A pod spec's pod affinity and anti-affinity terms, required and preferred, for a pod in ``namespace``."""
    affinity = read_object(spec.get("affinity"), path_below(path, "affinity"), errors)
    found: list[tuple[tuple[AffinityTerm, ...], tuple[tuple[int, AffinityTerm], ...]]] = []
    hard, soft = "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = read_object(affinity.get(kind), path_below(path, "affinity", kind), errors)
        found.append(
            (
                _pod_terms(terms.get(hard), path_below(path, "affinity", kind, hard), namespace, errors),
                _weighted_terms(terms.get(soft), path_below(path, "affinity", kind, soft), namespace, errors),
            )
        )
    (required, preferred), (required_anti, preferred_anti) = found
    return PodAffinity(required, required_anti, preferred, preferred_anti)


def read_constraints(
    spec: Mapping[str, Any], path: Where, errors: ErrorList, metadata: Mapping[str, Any] | None = None
) -> PodConstraints:
    """The filter inputs of one pod spec: tolerations, selectors, node and pod affinity, ``nodeName``, host ports.

    ``metadata`` (the pod template's) gives the pod's namespace and labels,
    which its own and other pods' affinity terms match.
    """
    metadata = metadata or {}
    namespace = metadata.get("namespace") if isinstance(metadata.get("namespace"), str) else None
    namespace = namespace or "default"
    found_labels = metadata.get("labels")
    raw_labels: Mapping[str, Any] = found_labels if isinstance(found_labels, Mapping) else {}
    affinity = read_object(spec.get("affinity"), path_below(path, "affinity"), errors)
    pod_terms = read_pod_affinity(spec, path, namespace, errors)
    preferred = _preferred(affinity.get("nodeAffinity"), path_below(path, "affinity", "nodeAffinity"), errors)
    selector = read_object(spec.get("nodeSelector"), path_below(path, "nodeSelector"), errors)
    pairs = [(str(key), read_string(value, _selector_key(path, str(key)), errors)) for key, value in selector.items()]
    return PodConstraints(
        tolerations=_tolerations(spec.get("tolerations"), path_below(path, "tolerations"), errors),
        node_selector=tuple(sorted(pairs)),
        affinity=_affinity(spec.get("affinity"), path_below(path, "affinity"), errors),
        node_name=read_string(spec.get("nodeName"), path_below(path, "nodeName"), errors),
        host_ports=read_host_ports(spec, path, errors),
        namespace=namespace,
        labels=tuple(sorted((str(k), str(v)) for k, v in raw_labels.items())),
        pod_affinity=pod_terms.required,
        pod_anti_affinity=pod_terms.required_anti,
        preferred=preferred,
        spread=_spread(
            spec.get("topologySpreadConstraints"), path_below(path, "topologySpreadConstraints"), raw_labels, errors
        ),
        images=_images(spec),
        # a malformed ScheduleAnyway entry only loses its score, as before it was read: its errors are dropped
        soft_spread=_spread(
            spec.get("topologySpreadConstraints"),
            path_below(path, "topologySpreadConstraints"),
            raw_labels,
            ErrorList(),
            "ScheduleAnyway",
        ),
        preferred_pod_affinity=pod_terms.preferred,
        preferred_pod_anti_affinity=pod_terms.preferred_anti,
    )


def normalized_image(name: str) -> str:
    """An image name as ImageLocality looks it up in a node's images: ``:latest`` added when it has no tag.

    A name has a tag when its last ``:`` comes after its last ``/`` (so a
    registry port does not count, and a digest's ``@sha256:`` does).
    """
    return name if name.rfind(":") > name.rfind("/") else f"{name}:latest"


def _images(spec: Mapping[str, Any]) -> tuple[str, ...]:
    """``PodConstraints.images`` of a pod spec: init containers, then containers, then image volumes.

    Every container counts, with or without an image (an empty one matches
    no node's), as ImageLocality counts them; a malformed entry is the
    resource readers' to report and counts as an empty image here.
    """
    out = []
    for section in ("initContainers", "containers"):
        containers = spec.get(section)
        for container in containers if isinstance(containers, list) else ():
            image = container.get("image") if isinstance(container, Mapping) else None
            out.append(normalized_image(image if isinstance(image, str) else ""))
    volumes = spec.get("volumes")
    for volume in volumes if isinstance(volumes, list) else ():
        source = volume.get("image") if isinstance(volume, Mapping) else None
        if isinstance(source, Mapping):
            reference = source.get("reference")
            out.append(normalized_image(reference if isinstance(reference, str) else ""))
    return tuple(out)


def _spread(
    raw: Any, path: Where, labels: Mapping[str, Any], errors: ErrorList, action: str = "DoNotSchedule"
) -> tuple[SpreadConstraint, ...]:
    """The spread constraints whose ``whenUnsatisfiable`` is ``action`` (``DoNotSchedule``, or ``ScheduleAnyway``)."""
    out = []
    for i, entry in enumerate(read_list(raw, path, errors)):
        entry_path = path_below(path, i)
        entry = read_object(entry, entry_path, errors)
        if (entry.get("whenUnsatisfiable") or "DoNotSchedule") != action:
            continue
        skew = entry.get("maxSkew")
        if isinstance(skew, bool) or not isinstance(skew, int) or skew < 1:
            errors.append(type_invalid(path_below(entry_path, "maxSkew")(), skew, "must be an integer of at least 1"))
            continue
        minimum = entry.get("minDomains") or 1
        if isinstance(minimum, bool) or not isinstance(minimum, int):
            errors.append(type_invalid(path_below(entry_path, "minDomains")(), minimum, "must be of type integer"))
            continue
        selector = _selector(entry.get("labelSelector"), path_below(entry_path, "labelSelector"), errors)
        keys = [
            str(key) for key in read_list(entry.get("matchLabelKeys"), path_below(entry_path, "matchLabelKeys"), errors)
        ]
        extra = tuple((key, str(labels[key])) for key in keys if key in labels)
        if extra:
            selector = LabelSelector(tuple(sorted({*selector.match_labels, *extra})), selector.match_expressions)
        out.append(
            SpreadConstraint(
                skew,
                read_string(entry.get("topologyKey"), path_below(entry_path, "topologyKey"), errors),
                selector,
                minimum,
                entry.get("nodeAffinityPolicy", "Honor") != "Ignore",
                entry.get("nodeTaintsPolicy", "Ignore") == "Honor",
            )
        )
    return tuple(out)


def _preferred(raw: Any, path: Where, errors: ErrorList) -> tuple[tuple[int, NodeSelectorTerm], ...]:
    """``preferredDuringSchedulingIgnoredDuringExecution``: (weight, term) pairs."""
    node_affinity = read_object(raw, path, errors)
    entries_path = path_below(path, "preferredDuringSchedulingIgnoredDuringExecution")
    out = []
    for i, entry in enumerate(
        read_list(node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"), entries_path, errors)
    ):
        entry_path = path_below(entries_path, i)
        entry = read_object(entry, entry_path, errors)
        weight = entry.get("weight")
        if isinstance(weight, bool) or not isinstance(weight, int):
            errors.append(type_invalid(path_below(entry_path, "weight")(), weight, "must be of type integer"))
            continue
        term = read_object(entry.get("preference"), path_below(entry_path, "preference"), errors)
        out.append(
            (
                weight,
                NodeSelectorTerm(
                    _requirements(
                        term.get("matchExpressions"), path_below(entry_path, "preference", "matchExpressions"), errors
                    ),
                    _requirements(term.get("matchFields"), path_below(entry_path, "preference", "matchFields"), errors),
                ),
            )
        )
    return tuple(out)
