"""Kubernetes objects as plain data: dicts and YAML, in and out.

Output is deterministic: the same objects always give byte-identical YAML,
fields in the order the kubernetes client declares them, unset fields left
out, as ``kubectl`` would show them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml
from pydantic import BaseModel

from workloadbuilder.decode import to_json_dict

__all__ = ["to_dict", "to_yaml"]


def to_dict(obj: BaseModel | dict[str, Any]) -> dict[str, Any]:
    """A client model (or an already plain dict) as a Kubernetes JSON dict."""
    if isinstance(obj, dict):
        return obj
    return to_json_dict(obj)


def to_yaml(objects: BaseModel | dict[str, Any] | Iterable[BaseModel | dict[str, Any]]) -> str:
    """One object, or several as a multi-document stream, as YAML."""
    if isinstance(objects, (BaseModel, dict)):
        return _dump(to_dict(objects))
    return "---\n".join(_dump(to_dict(obj)) for obj in objects)


class _Dumper(yaml.SafeDumper):
    """Block style, no aliases, strings that look like other types quoted."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _dump(data: dict[str, Any]) -> str:
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
