"""The project's schemas for scheduling.k8s.io objects (schemas/scheduling.k8s.io), by kind and version."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs among the test dependencies
import yaml

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas" / "scheduling.k8s.io"
PLURALS = {"Workload": "workloads", "PodGroup": "podgroups", "CompositePodGroup": "compositepodgroups"}


@cache
def schema(kind: str, version: str) -> dict[str, Any]:
    crd = yaml.safe_load((SCHEMAS / f"scheduling.k8s.io_{PLURALS[kind]}.yaml").read_text(encoding="utf-8"))
    found = next(v for v in crd["spec"]["versions"] if v["name"] == version)
    return dict(found["schema"]["openAPIV3Schema"])


def check(obj: Mapping[str, Any]) -> None:
    """Validate one emitted object against its kind's schema (Pods are core objects: skipped)."""
    kind = obj["kind"]
    if kind == "Pod":
        return
    version = str(obj["apiVersion"]).split("/")[1]
    jsonschema.validate(dict(obj), schema(kind, version))
