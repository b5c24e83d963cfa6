"""kubectl's JSON text decoded in C into only the fields the cluster readers read, typed.

A realistic ``kubectl get nodes -o json`` is mostly what the model never
reads (annotations, addresses, nodeInfo, capacity, managedFields). The
shapes below declare what ``nodes.read_nodes`` and the pod reader of
``readers`` do read; msgspec decodes the text into plain dicts holding only
those fields, checks each value's type, and skips the rest without building
it. The readers then run on those dicts as on any parsed dump, so the
answers are theirs.

A text the decoder refuses (not JSON, a value of another type than
declared, ``NaN``, a lone surrogate: ``textread.typed_json``), or a List
that holds other kinds than Node (a mixed ``kubectl get nodes,pods``
List), is left to the careful reader. A field a reader reads must be
declared here, or this fast way would not see it: the seeded tests of
``tests/placement/cluster/test_kubectl_text.py`` compare both ways on
realistic dumps.

``status.images`` is declared as raw JSON per image: a node lists some
twenty of a few hundred images the cluster runs, so each distinct image is
decoded once (``_Image``) and the nodes that list it share that dict.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict

import msgspec

from workloadbuilder._internal.textread import typed_json

__all__ = ["decoded"]

_Amounts = dict[str, str]
"""A resource list: quantities as strings, as the API writes them."""


class _Metadata(TypedDict, total=False):
    name: str | None
    namespace: str | None
    labels: dict[str, str] | None


class _Taint(TypedDict, total=False):
    key: str | None
    value: str | None
    effect: str | None


class _NodeSpec(TypedDict, total=False):
    unschedulable: bool | None
    taints: list[_Taint] | None


class _Condition(TypedDict, total=False):
    type: str | None
    status: str | None


class _Image(TypedDict, total=False):
    names: list[str] | None
    sizeBytes: int


class _NodeStatus(TypedDict, total=False):
    allocatable: _Amounts | None
    conditions: list[_Condition] | None
    images: list[msgspec.Raw] | None


class _Node(TypedDict, total=False):
    kind: str | None
    metadata: _Metadata | None
    spec: _NodeSpec | None
    status: _NodeStatus | None


class _NodeList(TypedDict, total=False):
    items: list[_Node] | None


class _Resources(TypedDict, total=False):
    requests: _Amounts | None
    limits: _Amounts | None


class _Port(TypedDict, total=False):
    hostPort: int | None
    protocol: str | None
    hostIP: str | None


class _Container(TypedDict, total=False):
    resources: _Resources | None
    restartPolicy: str | None
    ports: list[_Port] | None


class _SchedulingGroup(TypedDict, total=False):
    podGroupName: str | None


class _PodSpec(TypedDict, total=False):
    nodeName: str | None
    priority: int | None
    priorityClassName: str | None
    schedulingGroup: _SchedulingGroup | None
    containers: list[_Container] | None
    initContainers: list[_Container] | None
    resources: _Resources | None
    overhead: _Amounts | None


class _PodStatus(TypedDict, total=False):
    phase: str | None
    startTime: str | None


class _Pod(TypedDict, total=False):
    metadata: _Metadata | None
    spec: _PodSpec | None
    status: _PodStatus | None


class _PodList(TypedDict, total=False):
    items: list[_Pod] | None


_NODES = msgspec.json.Decoder(_NodeList | list[_Node])
_PODS = msgspec.json.Decoder(_PodList | list[_Pod])
_IMAGE = msgspec.json.Decoder(_Image)
_OPENS = re.compile(r"[ \t\r\n]*[\[{]")
_OPENS_BYTES = re.compile(rb"[ \t\r\n]*[\[{]")


def decoded(nodes_json: Any, pods_json: Any) -> tuple[Any, Any] | None:
    """The nodes and pods to read, each text among them decoded to the fields the readers read.

    ``None`` when neither is text, when the decoder refuses a text, or when
    the nodes' List holds another kind than Node: the careful reader then
    reads the arguments as given. What is not text is handed on as it is.
    """
    nodes_text, pods_text = _is_text(nodes_json), _is_text(pods_json)
    if not nodes_text and not pods_text:
        return None
    nodes, pods = nodes_json, pods_json
    if nodes_text:
        nodes = typed_json(nodes_json, _NODES)
        if nodes is None or not _nodes_only(nodes) or not _images_decoded(nodes):
            return None
    if pods_text:
        pods = typed_json(pods_json, _PODS)
        if pods is None:
            return None
    return nodes, pods


def _is_text(value: Any) -> bool:
    """Whether ``value`` is JSON text (not a path, not YAML): its first character that is not blank opens it."""
    if isinstance(value, str):
        return _OPENS.match(value) is not None
    if isinstance(value, bytes):
        return _OPENS_BYTES.match(value) is not None
    return False


def _items(data: _NodeList | list[_Node]) -> list[_Node]:
    return (data.get("items") or []) if isinstance(data, dict) else data


def _nodes_only(data: _NodeList | list[_Node]) -> bool:
    """Whether every item is a Node (an item without ``kind`` is one)."""
    return not {item.get("kind") for item in _items(data)} - {None, "Node"}


def _images_decoded(data: Any) -> bool:
    """Each node's raw ``status.images`` replaced by the images decoded; ``False`` when one is not an image.

    ``data`` is what ``_NODES`` decoded, changed in place: a node's images are raw JSON until this is done.
    """
    known: dict[bytes, _Image] = {}
    get = known.get

    def image(raw: bytes) -> _Image:
        found = get(raw)
        if found is None:
            found = known[raw] = _IMAGE.decode(raw)
        return found

    try:
        for item in _items(data):
            status: Any = item.get("status")  # a _NodeStatus whose images are rewritten from Raw to _Image here
            raw = status.get("images") if status is not None else None
            if raw:
                status["images"] = [image(one) for one in map(bytes, raw)]
    except (msgspec.DecodeError, RecursionError):
        return False
    return True
