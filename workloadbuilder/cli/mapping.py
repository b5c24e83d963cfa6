"""``--mapping FILE``: registering a CRD mapping before a command reads its inputs."""

from __future__ import annotations

from pathlib import Path

import pydantic
import yaml

from workloadbuilder.adapters.crd.adapter import register_mapping
from workloadbuilder.cli.errors import UsageError, one_line

__all__ = ["register_mapping_file"]


def register_mapping_file(path: str) -> None:
    """Register the CRD mapping in ``path``, so its custom resource has an adapter.

    Raises:
        UsageError: no such file, not YAML, or not a valid mapping (each problem named by its location).
    """
    if not Path(path).is_file():
        raise UsageError(f"{path}: no such file")
    try:
        register_mapping(Path(path))
    except pydantic.ValidationError as invalid:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or '(the mapping)'}: {error['msg']}"
            for error in invalid.errors()
        )
        raise UsageError(f"{path}: not a valid CRD mapping: {problems}") from None
    except yaml.YAMLError as bad:
        raise UsageError(f"{path}: not YAML: {one_line(bad)}") from None
