"""Kubernetes ``Pod`` objects → ``RunningPod`` (the pods that already use node capacity).

A pod counts when it is bound (``spec.nodeName``) and not finished (phase not Succeeded or
Failed), whoever scheduled it: DaemonSet pods and pods of other schedulers use capacity too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.intake.cluster.documents import Located
from toposched.intake.cluster.nodes import object_name
from toposched.model import Problem, RunningPod, SpecError
from toposched.model.podspec import effective_requests

FINISHED = frozenset({"Succeeded", "Failed"})


def parse_pod(located: Located, problems: list[Problem]) -> RunningPod | None:
    """The pod's usage, or None when it is unbound, finished or invalid (problems appended)."""
    name = object_name(located, problems)
    if name is None:
        return None
    obj = located.obj
    metadata: Mapping[str, Any] = obj.get("metadata") or {}
    namespace = metadata.get("namespace") or "default"
    base = f"pods[{namespace}/{name}]"
    spec = obj.get("spec")
    if not isinstance(spec, Mapping):
        problems.append(Problem(f"{base}.spec", "a pod needs a spec", "write spec: {containers: [...]}"))
        return None
    status = obj.get("status")
    phase = status.get("phase") if isinstance(status, Mapping) else None
    node = spec.get("nodeName")
    if not node or phase in FINISHED:
        return None
    if not isinstance(node, str):
        problems.append(Problem(f"{base}.spec.nodeName", f"nodeName {node!r} is not a string", ""))
        return None
    try:
        requests = effective_requests(spec, path=f"{base}.spec")
    except SpecError as exc:
        problems.extend(exc.problems)
        return None
    return RunningPod(name, str(namespace), node, requests, _owner(metadata.get("ownerReferences")))


def _owner(raw: object) -> str:
    """``Kind/name`` of the first owner reference ("" when there is none)."""
    if isinstance(raw, list) and raw and isinstance(raw[0], Mapping):
        return f"{raw[0].get('kind', '')}/{raw[0].get('name', '')}"
    return ""
