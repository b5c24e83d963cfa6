"""``workloadbuilder place`` and ``explain``: where each group of the input lands on a cluster, or why not.

The inputs are controller objects (each document an adapter claims becomes
a plan, compiled, and read by ``PlacementRequest.from_plan``) or ready-made
runtime groups (PodGroups and CompositePodGroups with the Pods that name
them in ``spec.schedulingGroup.podGroupName``). Every input's root groups
are placed in one pass over the cluster, in input order, each seeing what
the earlier ones took. The cluster comes from ``--cluster`` (a ``kubectl get
nodes -o json`` dump, with ``--pods``/``--groups``, or the compact YAML
format; the file says which) or from ``--generate``.

Exit codes: 0 when every input object is placed, 1 when any is not, 2 for
bad input.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import yaml

from adapters import Compiled, PlanError, adapter_for
from workloadbuilder import BuildError
from workloadbuilder.cli.inputs import Document, UsageError, read_inputs
from workloadbuilder.cli.progress import Progress
from workloadbuilder.field import AggregateError, ErrorList, FieldPath
from workloadbuilder.objpath import elements_of, get_in
from workloadbuilder.placement import (
    DEFAULT_BUDGET,
    STRATEGIES,
    Cluster,
    DeviceRequest,
    GroupPlacement,
    GroupRequest,
    Placement,
    PlacementRequest,
    Pods,
    place,
    resource_millis,
)
from workloadbuilder.placement.explain import count_of, short_key
from workloadbuilder.placement.generate import BLOCK_KEY, HOST_KEY, RACK_KEY, ZONE_KEY
from workloadbuilder.placement.render import readable_quantity, render_html, render_svg
from workloadbuilder.placement.resources import pod_requests

__all__ = [
    "GENERATE_KEYS",
    "MAX_GENERATED_NODES",
    "GenerateSpec",
    "add_options",
    "explain_command",
    "parse_claims",
    "parse_generate",
    "place_command",
]

MAX_GENERATED_NODES = 200_000
"""The largest cluster ``--generate`` makes."""

_NODES_SHOWN = 8
_MEMORY = re.compile(r"^[1-9][0-9]*Gi$")
_GROUP_PATH = re.compile(r"^groups\[(\d+)\]\.?")


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

    @property
    def nodes(self) -> int:
        """How many nodes: zones × blocks × racks × hosts."""
        return self.zones * self.blocks * self.racks * self.hosts

    def describe(self) -> str:
        """Every key's value, as ``--generate`` takes them."""
        return ",".join(f"{name}={getattr(self, name)}" for name in GENERATE_KEYS)


GENERATE_KEYS = ("zones", "blocks", "racks", "hosts", "gpus", "cpu", "memory", "seed", "used")
"""The keys of ``--generate``, in the order they are shown."""


def add_options(sub: argparse.ArgumentParser, render: bool) -> None:
    """The cluster, strategy and output options shared by ``place`` and ``explain`` (``--render`` for place)."""
    cluster = sub.add_argument_group("cluster (one of --cluster and --generate)")
    cluster.add_argument(
        "--cluster", metavar="FILE", help="`kubectl get nodes -o json` output, or the compact YAML cluster format"
    )
    cluster.add_argument(
        "--pods", metavar="FILE", help="`kubectl get pods -A -o json` output (with a kubectl --cluster)"
    )
    cluster.add_argument(
        "--groups", metavar="FILE", help="`kubectl get podgroups,compositepodgroups -A -o json` output, for preemption"
    )
    cluster.add_argument(
        "--generate",
        metavar="KEY=VALUE,...",
        help="a generated cluster: zones, blocks (per zone), racks (per block), hosts (per rack), "
        "gpus, cpu, memory (per node), seed, used (share of nodes partly used)",
    )
    sub.add_argument(
        "--claim",
        action="append",
        metavar="NAME=DEVICECLASS[:COUNT]",
        help="what a group resource claim (or claim template) NAME needs; repeatable",
    )
    sub.add_argument(
        "--strategy", default="kube-scheduler", help=" or ".join(STRATEGIES) + " (default: kube-scheduler)"
    )
    sub.add_argument("--preempt", action="store_true", help="evict lower-priority work when that is what it takes")
    sub.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="search steps of the complete strategy")
    sub.add_argument("--output", default="text", help="text (default) or json")
    if render:
        sub.add_argument(
            "--render", metavar="FILE", help="draw the placement: FILE.svg, or FILE.html with the SVG inline"
        )


def place_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder place``: where each group lands, capacity left, and why an input cannot be placed."""
    render = _render_writer(args.render)
    session = _Session.start(args, err)
    if args.output == "json":
        out.write(session.placement.to_json() + "\n")
    else:
        out.write(session.place_text())
    if render is not None:
        with session.progress.step(f"drawing {args.render}"):
            render(session)
    return 0 if session.placement.feasible else 1


def explain_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``workloadbuilder explain``: only the explanation, root by root and level by level."""
    session = _Session.start(args, err)
    if args.output == "json":
        out.write(json.dumps(session.placement.explanation, indent=2) + "\n")
    else:
        out.write(session.explain_text())
    return 0 if session.placement.feasible else 1


# -- one run -------------------------------------------------------------------------------


@dataclass
class _Input:
    """One input object and the root groups it asks to place."""

    label: str
    request: PlacementRequest


@dataclass
class _Session:
    """The inputs, the cluster and the answer of one ``place``/``explain`` run."""

    inputs: list[_Input]
    request: PlacementRequest
    cluster: Cluster
    cluster_line: str
    placement: Placement
    progress: Progress
    explained: dict[str, dict[str, Any]] = field(default_factory=dict)

    @classmethod
    def start(cls, args: argparse.Namespace, err: TextIO) -> _Session:
        if args.strategy not in STRATEGIES:
            raise UsageError(f"--strategy: {args.strategy!r} is not one of {', '.join(STRATEGIES)}")
        if args.output not in ("text", "json"):
            raise UsageError(f"--output: {args.output!r} is not one of text, json")
        if args.budget < 1:
            raise UsageError(f"--budget: must be at least 1, got {args.budget}")
        progress = Progress(err)
        inputs = _inputs(read_inputs(args.files), parse_claims(args.claim or []), err)
        request = _merge(inputs)
        cluster, line = _cluster(args, request, progress)
        with progress.step(f"placing on {_nodes(len(cluster))} ({args.strategy})"):
            placement = place(request, cluster, args.strategy, args.preempt, args.budget)
        explained = {entry["group"]: entry for entry in placement.explanation["roots"]}
        return cls(inputs, request, cluster, line, placement, progress, explained)

    def place_text(self) -> str:
        """Each input: its groups, where they went and the capacity left, or why not."""
        lines = [self.cluster_line, ""]
        by_name = {group.name: group for group in self.placement.groups}
        for item in self.inputs:
            roots = [self.explained[root.name] for root in item.request.roots]
            lines.append(f"{item.label}: {'placed' if all(r['feasible'] for r in roots) else 'not placed'}")
            for root in item.request.roots:
                for group, depth in _walk(root, 1):
                    lines += _group_lines(group, by_name[group.name], depth)
                entry = self.explained[root.name]
                notes = entry["text"][1:] if entry["feasible"] else entry["text"]
                if notes:
                    lines.append("  why:" if not entry["feasible"] else "  notes:")
                    lines += [f"    {note}" for note in notes]
            lines.append("")
        lines += _victim_lines(self.placement)
        lines.append(self._summary())
        return "\n".join(lines) + "\n"

    def explain_text(self) -> str:
        """Each input's explanation: quorum, each failing level, resources, claims, search, preemption."""
        lines = [self.cluster_line, ""]
        for item in self.inputs:
            entries = [self.explained[root.name] for root in item.request.roots]
            verdict = "placed" if all(entry["feasible"] for entry in entries) else "not placed"
            lines.append(f"{item.label}: {verdict} ({self.placement.strategy})")
            for entry in entries:
                lines += _explanation_lines(entry)
            lines.append("")
        lines.append(self._summary())
        return "\n".join(lines) + "\n"

    def _summary(self) -> str:
        placed = sum(all(self.explained[root.name]["feasible"] for root in item.request.roots) for item in self.inputs)
        verdict = "feasible" if self.placement.feasible else "not feasible"
        return f"{verdict} ({self.placement.strategy}): {placed} of {count_of(len(self.inputs), 'object')} placed"


# -- inputs --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Member:
    """A pod for a ready-made PodGroup: a Pod of the input, or one a root-less controller object makes."""

    where: str
    name: str
    spec: Any


def _inputs(documents: Sequence[Document], claims: Mapping[str, DeviceRequest], err: TextIO) -> list[_Input]:
    """Controller objects through their adapters, then ready-made runtime groups with their pods."""
    inputs: list[_Input] = []
    planned: set[str] = set()
    offered: dict[str, list[_Member]] = {}
    for doc in documents:
        compiled = _compile(doc, documents)
        if compiled is None:
            continue
        err.writelines(f"Warning: {warning}\n" for warning in compiled.warnings)
        groups = compiled.hierarchy.objects()
        if groups:
            planned.update(group.metadata.name for group in groups)
            request = _guarded(doc.where(), PlacementRequest.from_plan, compiled, claims=claims)
            namespace = (doc.data.get("metadata") or {}).get("namespace")
            name = f"{namespace}/{doc.name}" if namespace else doc.name
            inputs.append(_Input(f"{doc.kind} {name} ({doc.source}, document {doc.number})", request))
        elif any(assignment.stamp_path is not None for assignment in compiled.pods):
            for member_group, members in _assigned(doc, compiled).items():
                offered.setdefault(member_group, []).extend(members)
        else:
            err.write(
                f"Warning: {doc.where()}: {doc.kind} {doc.name!r} makes no runtime group of its own; not placed\n"
            )
    for doc in documents:
        if doc.kind == "Pod" and doc.api_version == "v1":
            target = ((doc.data.get("spec") or {}).get("schedulingGroup") or {}).get("podGroupName")
            if target is not None and target not in planned:
                offered.setdefault(target, []).append(_Member(doc.where(), doc.name, doc.data.get("spec") or {}))
    inputs += _runtime_inputs(documents, planned, offered, claims)
    if not inputs:
        raise UsageError(
            "nothing to place: give a controller object (Job, JobSet, LeaderWorkerSet, TrainJob, or one --mapping "
            "describes), or PodGroups with the Pods that name them"
        )
    return inputs


def _compile(doc: Document, documents: Sequence[Document]) -> Compiled | None:
    """The compiled plan of a document an adapter claims (``None`` for any other document)."""
    adapter = adapter_for(doc.api_version, doc.kind)
    if adapter is None:
        return None
    related = [other.data for other in documents if other is not doc]
    try:
        return adapter.plan(doc.data, related).compile()
    except PlanError as problem:
        raise UsageError(f"{doc.where()}: {doc.kind} {doc.name!r} is invalid: {_summarize(problem)}") from None
    except (BuildError, LookupError, ValueError) as problem:
        raise UsageError(f"{doc.where()}: {doc.kind} {doc.name!r}: {problem}") from None


def _assigned(doc: Document, compiled: Compiled) -> dict[str, list[_Member]]:
    """The pods a root-less object (a Job bringing its own PodGroup) makes, by the PodGroup they name."""
    out: dict[str, list[_Member]] = {}
    for assignment in compiled.pods:
        if assignment.stamp_path is None:
            continue
        template = get_in(compiled.source, elements_of(assignment.stamp_path))
        spec = template.get("spec") if isinstance(template, Mapping) else None
        out.setdefault(assignment.pod_group, []).extend(
            _Member(doc.where(), f"{doc.name}-{i}", spec or {}) for i in range(assignment.count)
        )
    return out


def _runtime_inputs(
    documents: Sequence[Document],
    planned: set[str],
    offered: dict[str, list[_Member]],
    claims: Mapping[str, DeviceRequest],
) -> list[_Input]:
    """Ready-made PodGroups and CompositePodGroups, one input per root; each PodGroup with its pods.

    Groups a controller object of the input already makes (``compile``'s
    output piped back in) are left to that object.
    """
    groups = [
        doc
        for doc in documents
        if doc.is_scheduling_object and doc.kind in ("PodGroup", "CompositePodGroup") and doc.name not in planned
    ]
    seen: dict[str, Document] = {}
    for doc in groups:
        if doc.name in seen:
            raise UsageError(f"{doc.where()}: {doc.kind} {doc.name!r} is also in {seen[doc.name].where()}")
        seen[doc.name] = doc
    names = {doc.name for doc in groups if doc.kind == "PodGroup"}
    for target, members in offered.items():
        if target not in names:
            raise UsageError(
                f"{members[0].where}: {members[0].name!r} goes to PodGroup {target!r}, which is not in the input"
            )
    if not groups:
        return []
    pods = {doc.name: _pods_of(doc, offered.get(doc.name, [])) for doc in groups if doc.kind == "PodGroup"}
    try:
        request = PlacementRequest.from_groups([doc.data for doc in groups], pods, claims)
    except AggregateError as problem:  # errors at groups[i]: say which document that is
        texts = [
            _GROUP_PATH.sub(lambda m: _group_where(groups[int(m[1])]), str(error)) for error in problem.field_errors
        ]
        raise UsageError(_first_few(texts)) from None
    where = {doc.name: doc for doc in groups}
    return [
        _Input(
            f"{root.kind} {root.name} ({where[root.name].source}, document {where[root.name].number})",
            PlacementRequest([root]),
        )
        for root in request.roots
    ]


def _pods_of(group: Document, members: list[_Member]) -> Pods:
    if not members:
        raise UsageError(
            f"{group.where()}: PodGroup {group.name!r}: no Pod in the input names it in "
            "spec.schedulingGroup.podGroupName; give its Pods, or the controller object that makes it"
        )
    shapes = []
    for member in members:
        errors = ErrorList()
        shapes.append(pod_requests(member.spec, FieldPath("spec"), errors))
        if errors:
            raise UsageError(f"{member.where}: {member.name!r}: {_summarize(AggregateError(errors))}")
        if shapes[-1] != shapes[0]:
            raise UsageError(
                f"{member.where}: {member.name!r} requests other resources than {members[0].name!r}: "
                f"one pod shape per PodGroup ({group.name!r}) is modelled"
            )
    return Pods(len(members), template={"spec": members[0].spec}, names=tuple(member.name for member in members))


def _merge(inputs: list[_Input]) -> PlacementRequest:
    """One request: every input's roots, in input order; a group name may appear once."""
    owner: dict[str, str] = {}
    for item in inputs:
        for group in item.request.groups:
            if group.name in owner:
                raise UsageError(f"group {group.name!r} is in both {owner[group.name]} and {item.label}")
            owner[group.name] = item.label
    return PlacementRequest([root for item in inputs for root in item.request.roots])


def _guarded(where: str, read: Callable[..., PlacementRequest], *args: Any, **kwargs: Any) -> PlacementRequest:
    """``read(*args, **kwargs)``, its field errors made one line that says where."""
    try:
        return read(*args, **kwargs)
    except AggregateError as problem:
        hint = ""
        if any(str(error.field).startswith("claims[") for error in problem.field_errors):
            hint = " (size each group resource claim with --claim NAME=DEVICECLASS:COUNT)"
        raise UsageError(f"{where}: {_summarize(problem)}{hint}") from None


def parse_claims(specs: Sequence[str]) -> dict[str, DeviceRequest]:
    """``--claim NAME=DEVICECLASS[:COUNT]`` options: what each named claim (or claim template) needs.

    Raises:
        UsageError: a malformed option.

    Example:
        >>> claims = parse_claims(["rdma-pair=rdma.example.com:2", "gpu=gpu.nvidia.com"])
        >>> claims["rdma-pair"], claims["gpu"].count
        (DeviceRequest(device_class='rdma.example.com', count=2), 1)
    """
    claims: dict[str, DeviceRequest] = {}
    for spec in specs:
        name, sep, rest = spec.partition("=")
        device_class, _, count = rest.partition(":")
        if not sep or not name or not device_class or (count and (not count.isdigit() or int(count) < 1)):
            raise UsageError(f"--claim: expected NAME=DEVICECLASS or NAME=DEVICECLASS:COUNT, got {spec!r}")
        claims[name] = DeviceRequest(device_class, int(count) if count else 1)
    return claims


def _group_where(doc: Document) -> str:
    return f"{doc.where()}: {doc.kind} {doc.name!r}: "


def _summarize(problem: AggregateError) -> str:
    """The first few errors of an aggregate, in one line."""
    return _first_few([str(error) for error in problem.field_errors] or [str(problem)])


def _first_few(texts: Sequence[str], limit: int = 3) -> str:
    unique = list(dict.fromkeys(texts))
    more = f" (and {len(unique) - limit} more)" if len(unique) > limit else ""
    return "; ".join(unique[:limit]) + more


# -- the cluster -----------------------------------------------------------------------------------


def _cluster(args: argparse.Namespace, request: PlacementRequest, progress: Progress) -> tuple[Cluster, str]:
    """The cluster of ``--cluster`` (with ``--pods``/``--groups``) or ``--generate``, and a line describing it."""
    if (args.cluster is None) == (args.generate is None):
        raise UsageError("give one of --cluster FILE and --generate KEY=VALUE,...")
    if args.generate is not None:
        if args.pods or args.groups:
            raise UsageError("--pods and --groups go with a kubectl --cluster dump, not --generate")
        spec = parse_generate(args.generate)
        keys = _generated_keys(request)
        with progress.step(f"generating {_nodes(spec.nodes)}"):
            cluster = Cluster.generate(
                spec.nodes,
                seed=spec.seed,
                hosts_per_rack=spec.hosts,
                racks_per_block=spec.racks,
                blocks_per_zone=spec.blocks,
                allocatable=_allocatable(spec),
                used_fraction=spec.used,
                keys=keys,
            )
        labels = "".join(f"; {level} label {key}" for level, key in keys.items())
        return cluster, f"cluster: {_nodes(len(cluster))}, generated ({spec.describe()}{labels})"
    with progress.step(f"reading {args.cluster}"):
        data = _read_data(args.cluster)
        if isinstance(data, Mapping) and "nodes" in data:
            if args.pods or args.groups:
                raise UsageError(
                    f"--pods and --groups go with a kubectl dump; {args.cluster} is the compact format, "
                    "which lists what runs under `running`"
                )
            cluster = _read_cluster(args.cluster, lambda: Cluster.from_yaml(data))
            return cluster, f"cluster: {_nodes(len(cluster))} from {args.cluster}"
        if isinstance(data, Mapping) and data.get("kind") == "Node":  # `kubectl get node NAME -o json`
            data = [data]
        if not (isinstance(data, list) or (isinstance(data, Mapping) and "items" in data)):
            raise UsageError(
                f"{args.cluster}: neither `kubectl get nodes -o json` output (a List with items) "
                "nor the compact cluster format (a mapping with nodes)"
            )
        pods = _read_data(args.pods) if args.pods else None
        groups = _read_data(args.groups) if args.groups else None
        sources = ", ".join(path for path in (args.cluster, args.pods, args.groups) if path)
        cluster = _read_cluster(sources, lambda: Cluster.from_kubectl(data, pods, groups))
    running = f", {count_of(len(cluster.running_pods), 'running pod')}" if args.pods else ""
    return cluster, f"cluster: {_nodes(len(cluster))}{running} from {sources}"


def _nodes(n: int) -> str:
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
    if key == "memory":
        if not _MEMORY.match(raw):
            raise UsageError(f"--generate: memory must be whole gibibytes such as 512Gi, got {raw!r}")
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
    if not raw.isdigit() or int(raw) < lowest:
        raise UsageError(f"--generate: {key} must be an integer of at least {lowest}, got {raw!r}")
    return int(raw)


def _allocatable(spec: GenerateSpec) -> dict[str, str]:
    alloc = {"cpu": str(spec.cpu), "memory": spec.memory, "pods": "110"}
    if spec.gpus:
        alloc["nvidia.com/gpu"] = str(spec.gpus)
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
    """A JSON or YAML file, parsed (JSON directly: kubectl dumps of large clusters are big)."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"{path}: no such file")
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as problem:
        raise UsageError(f"{path}: cannot read: {problem}") from None
    try:
        if text.lstrip()[:1] in ("{", "["):
            return json.loads(text)
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return yaml.load(text, Loader=loader)
    except (ValueError, yaml.YAMLError) as problem:
        first = str(problem).strip().splitlines()[0] if str(problem).strip() else type(problem).__name__
        raise UsageError(f"{path}: not JSON or YAML: {first}") from None


def _read_cluster(source: str, read: Callable[[], Cluster]) -> Cluster:
    try:
        return read()
    except AggregateError as problem:
        raise UsageError(f"{source}: {_summarize(problem)}") from None
    except (ValueError, TypeError, AttributeError) as problem:  # not the shape the reader expects at all
        raise UsageError(f"{source}: not a cluster description: {problem}") from None


# -- rendering -----------------------------------------------------------------------------------------


def _render_writer(path: str | None) -> Callable[[_Session], None] | None:
    """What ``--render PATH`` writes, chosen (and checked) before any work is done."""
    if path is None:
        return None
    suffix = Path(path).suffix.lower()
    if suffix not in (".svg", ".html", ".htm"):
        raise UsageError(f"--render: {path}: the file name must end in .svg or .html")
    if not Path(path).parent.is_dir():
        raise UsageError(f"--render: {path}: no such directory")
    draw = render_svg if suffix == ".svg" else render_html

    def write(session: _Session) -> None:
        text = draw(session.request, session.cluster, session.placement)
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as problem:
            raise UsageError(f"--render: cannot write {path}: {problem.strerror or problem}") from None

    return write


# -- text ---------------------------------------------------------------------------------------------


def _walk(group: GroupRequest, depth: int) -> Iterable[tuple[GroupRequest, int]]:
    yield group, depth
    for child in group.children:
        yield from _walk(child, depth + 1)


def _group_lines(group: GroupRequest, placed: GroupPlacement, depth: int) -> list[str]:
    """A group's header, where it went (or that it did not), and the capacity left in its domain."""
    pad = "  " * depth
    policy = f"gang, {'minCount' if group.is_leaf else 'minGroupCount'} {group.minimum}" if group.gang else "basic"
    details = [f"template {group.template}"] if group.template else []
    details += [policy, *([f"topology {group.topology_key}"] if group.topology_key else [])]
    lines = [f"{pad}{group.kind} {group.name} ({'; '.join(details)})"]
    where = ", ".join(f"{short_key(key)} {value}" for key, value in placed.domains.items()) or "the cluster"
    if group.is_leaf:
        if placed.pods:
            nodes = Counter(pod.node for pod in placed.pods)
            shown = [f"{node} x{n}" if n > 1 else node for node, n in list(nodes.items())[:_NODES_SHOWN]]
            if len(nodes) > _NODES_SHOWN:
                shown.append(f"... ({len(nodes) - _NODES_SHOWN} more nodes)")
            lines.append(
                f"{pad}  placed {len(placed.pods)} of {count_of(group.count, 'pod')} in {where}, "
                f"on {count_of(len(nodes), 'node')}: {', '.join(shown)}"
            )
        else:
            lines.append(f"{pad}  not placed ({group.minimum} of its {count_of(group.count, 'pod')} needed)")
    else:
        below = sum(1 for member in group.walk() if member.is_leaf)
        if placed.domains or placed.capacity_left:
            lines.append(f"{pad}  placed in {where} ({count_of(below, 'PodGroup')} below)")
        else:
            lines.append(
                f"{pad}  not placed ({group.minimum} of its {count_of(len(group.children), 'child group')} needed)"
            )
    if placed.capacity_left:
        left = ", ".join(
            f"{resource} {readable_quantity(resource, resource_millis(resource, amount))}"
            for resource, amount in placed.capacity_left.items()
        )
        lines.append(f"{pad}  capacity left in {where}: {left}")
    return lines


def _victim_lines(placement: Placement) -> list[str]:
    if not placement.victims:
        return []
    lines = ["evicted:"]
    for victim in placement.victims:
        nodes = sorted({pod.node for pod in victim.pods})
        lines.append(
            f"  {victim.kind} {victim.name} (priority {victim.priority}): "
            f"{count_of(len(victim.pods), 'pod')} on {', '.join(nodes)}"
        )
    return [*lines, ""]


def _explanation_lines(entry: dict[str, Any]) -> list[str]:
    """One root's explanation, section by section; a placed root says where and what it took."""
    lines = [f"  {entry['text'][0]}"]
    if entry["feasible"]:
        lines += [f"  {line}" for line in entry["text"][1:]]
    else:
        if entry["quorum"]:
            lines.append("  quorum:")
            for quorum in entry["quorum"]:
                field_name = "minCount" if quorum["unit"] == "pods" else "minGroupCount"
                state = "met" if quorum["ok"] else "short"
                lines.append(
                    f"    `{quorum['group']}`: {quorum['have']} {quorum['unit']} for a {field_name} of "
                    f"{quorum['need']}: {state}"
                )
        if entry["levels"]:
            lines.append("  levels, outermost first:")
            lines += [f"    [{short_key(level['topologyKey'])}] {level['text']}" for level in entry["levels"]]
        if entry["resources"]:
            lines.append("  resources:")
            lines += [f"    {_resource_text(resource)}" for resource in entry["resources"]]
        if entry["claims"]:
            lines.append("  claims:")
            lines += [f"    {claim['text']}" for claim in entry["claims"]]
        if entry["preemption"] is not None:
            lines.append(f"  preemption: {entry['preemption']['text']}")
    search = entry["search"]
    if search is not None:
        lines.append(f"  search: {_search_text(search, entry['feasible'])}")
    return lines


def _resource_text(entry: Mapping[str, Any]) -> str:
    if entry["resource"] == "unschedulable":
        return f"`{entry['group']}`: {entry['nodes']:,} of {entry['of']:,} nodes are cordoned"
    nodes = f"{entry['nodes']:,} of {entry['of']:,} nodes"
    return f"`{entry['group']}`: {entry['resource']} leaves {nodes} without room for one pod"


def _search_text(search: Mapping[str, Any], feasible: bool) -> str:
    steps = count_of(search["steps"], "step")
    if search["greedy"]:
        return "kube-scheduler's answer, kept by the complete strategy"
    if search["exhausted"]:
        return f"the complete search ran out of its budget ({search['budget']:,} steps): no placement found, none ruled out"
    if not feasible:
        return f"no placement exists (complete search, {steps})"
    return f"found by the complete search in {steps} (budget {search['budget']:,})"
