"""Replay a case recorded from the Go workloadbuilder through the public API and compare the results.

A case (see tests/data/go-recorded/README.md) is a tree or an existing Workload, options, an optional old tree
and a list of calls. ``replay`` runs it and returns the Go-shaped result; ``differences`` compares it with what Go
returned, by the rules of the shared checker (../shared/conformance/go-recorded/compare.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from kubernetes.client import V1beta1TopologyConstraint

import workloadbuilder as wb
from workloadbuilder import to_dict
from workloadbuilder.types import (
    AllDisruptionMode,
    BasicSchedulingPolicy,
    DisruptionMode,
    DisruptionModeOption,
    GangSchedulingPolicy,
    ResourceClaim,
    SchedulingConstraints,
    SchedulingPolicy,
    SchedulingPolicyOption,
    SingleDisruptionMode,
)

_SEGMENT = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")
_POLICIES = {"basic": SchedulingPolicyOption.BASIC, "gang": SchedulingPolicyOption.GANG}
_MODES = {"single": DisruptionModeOption.SINGLE, "all": DisruptionModeOption.ALL}


def _path(text: str | None) -> wb.FieldPath | None:
    """A FieldPath from its string form; a bracketed decimal is an index (strconv.Atoi), anything else a key."""
    if text is None:
        return None
    path: wb.FieldPath | None = None
    for match in _SEGMENT.finditer(text):
        name, sub = match.group(1), match.group(2)
        if name is not None:
            path = wb.FieldPath(name) if path is None else path.child(name)
        elif path is None:
            raise ValueError(f"path cannot start with an index: {text!r}")
        elif re.fullmatch(r"[+-]?[0-9]+", sub):
            path = path.index(int(sub))
        else:
            path = path.key(sub)
    return path


def _policy(p: dict[str, Any] | None) -> SchedulingPolicy | None:
    if p is None:
        return None
    return SchedulingPolicy(
        basic=BasicSchedulingPolicy() if p.get("basic") is not None else None,
        gang=GangSchedulingPolicy(min_count=p["gang"].get("min_count")) if p.get("gang") is not None else None,
    )


def _constraints(c: dict[str, Any] | None) -> SchedulingConstraints | None:
    if c is None:
        return None
    return SchedulingConstraints(topology=[V1beta1TopologyConstraint(key=t["key"]) for t in c.get("topology") or []])


def _mode(d: dict[str, Any] | None) -> DisruptionMode | None:
    if d is None:
        return None
    return DisruptionMode(
        single=SingleDisruptionMode() if d.get("single") is not None else None,
        all=AllDisruptionMode() if d.get("all") is not None else None,
    )


def _claim(c: dict[str, Any]) -> ResourceClaim:
    return ResourceClaim(
        name=c.get("name", ""),
        resource_claim_name=c.get("resource_claim_name"),
        resource_claim_template_name=c.get("resource_claim_template_name"),
    )


def _config(c: dict[str, Any] | None) -> wb.SchedulingConfig | None:
    if c is None:
        return None
    config = wb.SchedulingConfig(
        policy=_policy(c.get("policy")),
        constraints=_constraints(c.get("constraints")),
        disruption_mode=_mode(c.get("disruption_mode")),
        priority_class_name=c.get("priority_class_name", "") or "",
    )
    if c.get("resource_claims") is not None:
        config.resource_claims = [_claim(rc) for rc in c["resource_claims"]]
    return config


def _int32(value: int) -> int:
    """What a Go *int32 holds after overflowing arithmetic."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= (1 << 31) else value


def _callback(op: dict[str, Any] | None, marks: dict[str, int]) -> Callable[[wb.SchedulingConfig], None] | None:
    """The callback a case names (a nil callback stays ``None``, as Go's nil func)."""
    if op is None:
        return None
    ((name, arg),) = op.items()

    def set_gang_min_count_if_unset(cfg: wb.SchedulingConfig) -> None:
        if cfg.policy is not None and cfg.policy.gang is not None and cfg.policy.gang.min_count is None:
            cfg.policy.gang.min_count = arg

    def multiply_gang_min_count(cfg: wb.SchedulingConfig) -> None:
        if cfg.policy is not None and cfg.policy.gang is not None and cfg.policy.gang.min_count is not None:
            cfg.policy.gang.min_count = _int32(cfg.policy.gang.min_count * arg)

    def mark(cfg: wb.SchedulingConfig) -> None:
        marks[arg] = marks.get(arg, 0) + 1

    def set_policy(cfg: wb.SchedulingConfig) -> None:
        cfg.policy = _policy(arg)

    def set_disruption_mode(cfg: wb.SchedulingConfig) -> None:
        cfg.disruption_mode = _mode(arg)

    def set_constraints(cfg: wb.SchedulingConfig) -> None:
        cfg.constraints = _constraints(arg)

    def set_priority_class_name(cfg: wb.SchedulingConfig) -> None:
        cfg.priority_class_name = arg

    def append_resource_claim(cfg: wb.SchedulingConfig) -> None:
        cfg.resource_claims.append(_claim(arg))

    ops = {
        f.__name__: f
        for f in (
            set_gang_min_count_if_unset,
            multiply_gang_min_count,
            mark,
            set_policy,
            set_disruption_mode,
            set_constraints,
            set_priority_class_name,
            append_resource_claim,
        )
    }
    return ops[name]


def _block(cls: Any, b: dict[str, Any] | None, composite_ok: bool = True) -> Any:
    if b is None:
        return cls()
    kw: dict[str, Any] = {}
    if b.get("pod_group_data") is not None:
        kw["pod_group_data"] = json.loads(json.dumps(b["pod_group_data"]))
    if composite_ok and b.get("composite_pod_group_data") is not None:
        kw["composite_pod_group_data"] = json.loads(json.dumps(b["composite_pod_group_data"]))
    if b.get("path_elements") is not None:
        kw["path_elements"] = list(b["path_elements"])
    return cls(**kw)


def _item(t: dict[str, Any] | None, marks: dict[str, int]) -> wb.WorkloadItem | None:
    if t is None:
        return None
    given = t.get("input") or {}
    return wb.WorkloadItem(
        name=t.get("name", ""),
        path=_path(t.get("path")),
        default_config=_config(t.get("default_config")),
        input=wb.WorkloadInput(
            policy=_block(wb.PolicyInput, given.get("policy")),
            constraints=_block(wb.ConstraintsInput, given.get("constraints")),
            disruption_mode=_block(wb.DisruptionModeInput, given.get("disruption_mode")),
            resource_claims=_block(wb.ResourceClaimsInput, given.get("resource_claims"), composite_ok=False),
        ),
        callbacks=[_callback(c, marks) for c in t.get("callbacks") or []],
        children=[_item(c, marks) for c in t.get("children") or []],
    )


def _options(o: dict[str, Any] | None) -> wb.BuildOptions:
    o = o or {}
    owner = o.get("owner")
    return wb.BuildOptions(
        name=o.get("name", ""),
        namespace=o.get("namespace", ""),
        owner=json.loads(json.dumps(owner)) if owner is not None else None,
        allowed_policies=[_POLICIES[p] for p in o.get("allowed_policies") or []],
        allowed_disruption_modes=[_MODES[d] for d in o.get("allowed_disruption_modes") or []],
        disable_declarative_validation=bool(o.get("disable_declarative_validation", False)),
    )


def _error(e: wb.FieldError) -> dict[str, str]:
    return {"type": e.type.value, "field": e.field, "detail": e.detail, "error": str(e)}


def _call(builder: wb.Builder, call: dict[str, Any], old: wb.WorkloadItem | None) -> dict[str, Any]:
    method = call["method"]
    result: dict[str, Any] = {"method": method}
    try:
        if method == "validate":
            errors = builder.validate(old_root=old)
            result["errors"] = [_error(e) for e in errors]
            aggregate = errors.to_aggregate()
            if aggregate is not None:
                result["aggregate"] = str(aggregate)
            return result
        if method == "build_workload":
            obj: Any = builder.build_workload()
        elif method == "new_pod_group":
            obj = builder.new_pod_group(call.get("name", ""), call.get("template_name", ""))
        else:
            obj = builder.new_composite_pod_group(call.get("name", ""), call.get("template_name", ""))
        result["object"] = to_dict(obj)
    except wb.BuildError as e:
        result["error"] = str(e)
    except Exception as e:  # any other exception is a disagreement to report, not a crash
        result["exception"] = f"{type(e).__name__}: {e}"
    return result


def replay(case: dict[str, Any]) -> dict[str, Any]:
    """Run one case through the port: ``{"setup_error"?, "calls": [...], "marks": {...}}`` in Go's shape."""
    marks: dict[str, int] = {}
    try:
        options = _options(case.get("options"))
        if case.get("workload") is not None:
            builder = wb.Builder.from_existing_workload(json.loads(json.dumps(case["workload"])), options)
        else:
            builder = wb.Builder(_item(case.get("tree"), marks), options)
        old = _item(case.get("old_tree"), {})
    except Exception as e:  # Go had no setup error here, so any is a disagreement
        return {"setup_error": f"{type(e).__name__}: {e}", "calls": []}
    calls = [_call(builder, call, old) for call in case.get("calls") or []]
    return {"calls": calls, "marks": marks}


def _drop_nulls(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_nulls(v) for v in value]
    return value


def normalize(go: Any, port: Any) -> tuple[Any, Any]:
    """Both objects without the serialization-only differences: nulls, our apiVersion/kind, Go's ``status: {}``."""
    go, port = _drop_nulls(go), _drop_nulls(port)
    if isinstance(go, dict) and isinstance(port, dict):
        port = {k: v for k, v in port.items() if k in go or k not in ("apiVersion", "kind")}
        if go.get("status") == {} and "status" not in port:
            go = {k: v for k, v in go.items() if k != "status"}
    return go, port


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _call_differences(index: int, go: dict[str, Any], port: dict[str, Any]) -> list[dict[str, Any]]:
    where = {"call": index, "method": go["method"]}
    if "panic" in go:
        return [{**where, "what": "go-panic", "go": go["panic"]}]
    if "exception" in port:
        return [{**where, "what": "exception", "port": port["exception"]}]
    if go["method"] == "validate":
        keys = ("type", "field", "detail", "error")
        go_errors = [tuple(e[k] for k in keys) for e in go.get("errors") or []]
        port_errors = [tuple(e[k] for k in keys) for e in port.get("errors") or []]
        if go_errors != port_errors:
            return [{**where, "what": "errors", "go": [e[3] for e in go_errors], "port": [e[3] for e in port_errors]}]
        if go.get("aggregate") != port.get("aggregate"):
            return [{**where, "what": "aggregate", "go": go.get("aggregate"), "port": port.get("aggregate")}]
        return []
    if go.get("error") != port.get("error") or ("error" in go) != ("error" in port):
        return [{**where, "what": "error", "go": go.get("error"), "port": port.get("error")}]
    if ("object" in go) != ("object" in port):
        return [{**where, "what": "object-presence"}]
    if "object" in go:
        go_obj, port_obj = normalize(go["object"], port["object"])
        if _canon(go_obj) != _canon(port_obj):
            return [{**where, "what": "object", "go": go_obj, "port": port_obj}]
    return []


def differences(go: dict[str, Any], port: dict[str, Any]) -> list[dict[str, Any]]:
    """Every way the port's result differs from Go's; empty when they agree."""
    if go.get("setup_error"):
        return [{"what": "go-setup-error", "go": go["setup_error"], "port": port.get("setup_error")}]
    if port.get("setup_error"):
        return [{"what": "setup-error", "port": port["setup_error"]}]
    go_calls, port_calls = go.get("calls") or [], port.get("calls") or []
    found = [d for i, (g, p) in enumerate(zip(go_calls, port_calls, strict=False)) for d in _call_differences(i, g, p)]
    if len(go_calls) != len(port_calls):
        found.append({"what": "call-count", "go": len(go_calls), "port": len(port_calls)})
    if (go.get("marks") or {}) != (port.get("marks") or {}):
        found.append({"what": "marks", "go": go.get("marks"), "port": port.get("marks")})
    return found
