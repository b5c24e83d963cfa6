"""The cluster of a ``place``/``explain`` run: ``--cluster`` (with ``--pods``/``--groups``) or ``--generate``.

``--cluster`` is either a ``kubectl get nodes -o json`` dump, optionally
with ``kubectl get pods``/``podgroups,compositepodgroups`` dumps of what
runs, or the compact YAML format, which lists what runs itself; the file
says which. ``--generate`` makes a zone → block → rack → host cluster from
a few ``KEY=VALUE`` pairs, labelled with the request's own topology keys so
that its constraints mean something on it.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from pathlib import Path
from typing import Any

from workloadbuilder import manifests
from workloadbuilder.cli.errors import UsageError
from workloadbuilder.cli.progress import Progress
from workloadbuilder.field import AggregateError, summarize
from workloadbuilder.limits import MAX_NODES
from workloadbuilder.placement import Cluster, PlacementRequest
from workloadbuilder.placement.cluster.generate import ARCH_KEY, BLOCK_KEY, HOST_KEY, OS_KEY, RACK_KEY, ZONE_KEY
from workloadbuilder.placement.explain.wording import count_of, short_key

__all__ = [
    "GENERATE_KEYS",
    "MAX_GENERATED_NODES",
    "GenerateSpec",
    "load_cluster",
    "nodes_text",
    "parse_generate",
]

MAX_GENERATED_NODES = MAX_NODES
"""The largest cluster ``--generate`` makes (``limits.MAX_NODES``)."""

_MEMORY = re.compile(r"^[1-9][0-9]{0,8}Gi$")
_STORAGE = re.compile(r"^[1-9][0-9]{0,8}[GT]i$")
_LABEL_VALUE = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")  # a label value, never empty here
_COUNT = re.compile(r"[0-9]{1,9}")  # ASCII digits only ("²" is a digit to str.isdigit, not to int), int32-sized


@dataclass(frozen=True)
class GenerateSpec:
    """``--generate``: a zone → block → rack → host cluster, each level's fan-out per parent."""

    zones: int = 1
    blocks: int = 4
    racks: int = 16
    hosts: int = 16
    gpus: int = 8
    cpu: int = 64
    memory: str = "512Gi"
    seed: int = 0
    used: float = 0.2
    _: KW_ONLY
    storage: str = "1Ti"  # each node's allocatable ephemeral-storage
    pods: int = 110  # each node's allocatable pods (the kubelet's maxPods)
    os: str = "linux"  # the kubernetes.io/os label
    arch: str = "amd64"  # the kubernetes.io/arch label

    @property
    def nodes(self) -> int:
        """How many nodes: zones × blocks × racks × hosts."""
        return self.zones * self.blocks * self.racks * self.hosts

    def describe(self) -> str:
        """The keys' values as ``--generate`` takes them; the kubelet's keys only where they differ from the default."""
        return ",".join(
            f"{name}={getattr(self, name)}"
            for name in GENERATE_KEYS
            if name not in _KUBELET_DEFAULTS or getattr(self, name) != _KUBELET_DEFAULTS[name]
        )


GENERATE_KEYS = (
    "zones",
    "blocks",
    "racks",
    "hosts",
    "gpus",
    "cpu",
    "memory",
    "storage",
    "pods",
    "os",
    "arch",
    "seed",
    "used",
)
"""The keys of ``--generate``, in the order they are shown."""

_KUBELET_DEFAULTS: dict[str, Any] = {"storage": "1Ti", "pods": 110, "os": "linux", "arch": "amd64"}
"""What a kubelet reports unless told otherwise: the header names these keys only when they are changed."""
_EXAMPLE_VALUES = {"os": "linux", "arch": "amd64"}


def load_cluster(args: argparse.Namespace, request: PlacementRequest, progress: Progress) -> tuple[Cluster, str]:
    """The cluster of ``--cluster`` (with ``--pods``/``--groups``) or ``--generate``, and a line describing it.

    The request is needed because a generated cluster is labelled with the
    request's own topology keys; the line heads the text output, so a reader
    knows what the answer was computed against.

    Raises:
        UsageError: not exactly one of ``--cluster`` and ``--generate``, options that do not go together, or a
            file that is not a cluster description.
    """
    if (args.cluster is None) == (args.generate is None):
        raise UsageError("give one of --cluster FILE and --generate KEY=VALUE,...")
    if args.generate is not None:
        if args.pods or args.groups:
            raise UsageError("--pods and --groups go with a kubectl --cluster dump, not --generate")
        spec = parse_generate(args.generate)
        keys = _generated_keys(request)
        with progress.step(f"generating {nodes_text(spec.nodes)}"):
            cluster = Cluster.generate(
                spec.nodes,
                seed=spec.seed,
                hosts_per_rack=spec.hosts,
                racks_per_block=spec.racks,
                blocks_per_zone=spec.blocks,
                allocatable=_allocatable(spec),
                used_fraction=spec.used,
                keys=keys,
                node_labels={OS_KEY: spec.os, ARCH_KEY: spec.arch},
            )
        labels = "".join(f"; {level} label {key}" for level, key in keys.items())
        return cluster, f"cluster: {nodes_text(len(cluster))}, generated ({spec.describe()}{labels})"
    with progress.step(f"reading {args.cluster}"):
        data = _read_data(args.cluster)
        if isinstance(data, Mapping) and "nodes" in data:
            if args.pods or args.groups:
                raise UsageError(
                    f"--pods and --groups go with a kubectl dump; {args.cluster} is the compact format, "
                    "which lists what runs under `running`"
                )
            cluster = _read_cluster(args.cluster, lambda: Cluster.from_yaml(data))
            return cluster, f"cluster: {nodes_text(len(cluster))} from {args.cluster}"
        if isinstance(data, Mapping) and data.get("kind") == "Node":  # `kubectl get node NAME -o json`
            data = [data]
        if not (isinstance(data, list) or (isinstance(data, Mapping) and "items" in data)):
            raise UsageError(
                f"{args.cluster}: neither `kubectl get nodes -o json` output (a List with items) "
                "nor the compact cluster format (a mapping with nodes)"
            )
        pods = _read_data(args.pods) if args.pods else None
        groups = _read_data(args.groups) if args.groups else None
        policies: list[Any] = []
        data, pods, groups = (_without_policies(part, policies) for part in (data, pods, groups))
        sources = ", ".join(path for path in (args.cluster, args.pods, args.groups) if path)
        cluster = _read_cluster(sources, lambda: Cluster.from_kubectl(data, pods, groups, policies))
    running = f", {count_of(len(cluster.running_pods), 'running pod')}" if args.pods else ""
    return cluster, f"cluster: {nodes_text(len(cluster))}{running} from {sources}"


_POLICY_KINDS = frozenset({"PriorityClass", "PodDisruptionBudget"})


def _without_policies(data: Any, policies: list[Any]) -> Any:
    """``data`` without its PriorityClass and PodDisruptionBudget items, which are moved to ``policies``.

    A kubectl dump of several kinds (``kubectl get nodes,priorityclasses,pdb -A -o json``) holds them
    next to the nodes or pods.
    """
    items = data.get("items") if isinstance(data, Mapping) else data
    if not isinstance(items, list):
        return data
    kept = []
    for item in items:
        if isinstance(item, Mapping) and item.get("kind") in _POLICY_KINDS:
            policies.append(item)
        else:
            kept.append(item)
    return {**data, "items": kept} if isinstance(data, Mapping) else kept


def nodes_text(n: int) -> str:
    """``1 node`` or ``1,024 nodes``: cluster sizes reach hundreds of thousands, so they are grouped."""
    return f"{n:,} node" if n == 1 else f"{n:,} nodes"


def parse_generate(text: str) -> GenerateSpec:
    """``zones=2,racks=8,hosts=16,gpus=8`` as a ``GenerateSpec``; unnamed keys keep their defaults.

    Raises:
        UsageError: an unknown key, a bad value, or more than ``MAX_GENERATED_NODES`` nodes.

    Example:
        >>> spec = parse_generate("zones=2,racks=8,hosts=16,gpus=8")
        >>> spec.nodes, spec.blocks, spec.memory
        (1024, 4, '512Gi')
    """
    values: dict[str, Any] = {}
    for part in text.split(","):
        key, sep, raw = (piece.strip() for piece in part.partition("="))
        if not sep or key not in GENERATE_KEYS:
            raise UsageError(f"--generate: expected KEY=VALUE with KEY one of {', '.join(GENERATE_KEYS)}, got {part!r}")
        values[key] = _generate_value(key, raw)
    spec = GenerateSpec(**values)
    if spec.nodes > MAX_GENERATED_NODES:
        raise UsageError(f"--generate: {spec.nodes:,} nodes; at most {MAX_GENERATED_NODES:,}")
    return spec


def _generate_value(key: str, raw: str) -> Any:
    """One ``--generate`` value, checked: the cluster generator trusts what it is given."""
    if key == "memory":
        if not _MEMORY.match(raw):
            raise UsageError(f"--generate: memory must be whole gibibytes such as 512Gi, got {raw!r}")
        return raw
    if key == "storage":
        if not _STORAGE.match(raw):
            raise UsageError(f"--generate: storage must be whole gibibytes or tebibytes such as 1Ti, got {raw!r}")
        return raw
    if key in ("os", "arch"):
        if not _LABEL_VALUE.fullmatch(raw):
            raise UsageError(f"--generate: {key} must be a label value such as {_EXAMPLE_VALUES[key]}, got {raw!r}")
        return raw
    if key == "used":
        try:
            share = float(raw)
        except ValueError:
            share = -1.0
        if not 0 <= share <= 1:
            raise UsageError(f"--generate: used must be a share between 0 and 1, got {raw!r}")
        return share
    lowest = 0 if key in ("gpus", "seed") else 1
    if not _COUNT.fullmatch(raw) or int(raw) < lowest:
        raise UsageError(f"--generate: {key} must be an integer of at least {lowest}, got {raw!r}")
    return int(raw)


def _allocatable(spec: GenerateSpec) -> dict[str, str]:
    """What each generated node offers; no GPU resource at all when ``gpus=0``, as on a CPU-only node."""
    alloc = {"cpu": str(spec.cpu), "memory": spec.memory, "ephemeral-storage": spec.storage}
    if spec.gpus:
        alloc["nvidia.com/gpu"] = str(spec.gpus)
    alloc["pods"] = str(spec.pods)
    return alloc


def _generated_keys(request: PlacementRequest) -> dict[str, str]:
    """The request's own topology keys for the generated levels they name (``.../rack`` labels racks)."""
    defaults = {"zone": ZONE_KEY, "block": BLOCK_KEY, "rack": RACK_KEY, "host": HOST_KEY}
    levels = {"zone": "zone", "block": "block", "rack": "rack", "host": "host", "hostname": "host"}
    keys: dict[str, str] = {}
    for group in request.groups:
        level = levels.get(short_key(group.topology_key)) if group.topology_key else None
        if level is not None and level not in keys and group.topology_key != defaults[level]:
            keys[level] = group.topology_key  # type: ignore[assignment]
    return keys


def _read_data(path: str) -> Any:
    """A JSON or YAML file, parsed with the manifests' bounds (JSON directly: kubectl dumps of large clusters are big).

    Raises:
        UsageError: no such file.
        ManifestError: it is not JSON or YAML (the document and line in the message).
    """
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"{path}: no such file")
    return manifests.read_data(file)


def _read_cluster(source: str, read: Callable[[], Cluster]) -> Cluster:
    """``read()``, its failures made one usage line naming ``source`` (the files it was read from)."""
    try:
        return read()
    except AggregateError as problem:
        raise UsageError(f"{source}: {summarize(problem)}") from None
    except (ValueError, TypeError, AttributeError) as problem:  # not the shape the reader expects at all
        raise UsageError(f"{source}: not a cluster description: {problem}") from None
