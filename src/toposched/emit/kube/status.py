"""The PodGroup conditions kube-scheduler would write after this attempt (the dry run's status).

Each PodGroup of the gang, as ``compile_to_kube`` writes it, gets ``PodGroupInitiallyScheduled``
(``PodGroupScheduled`` in ``v1alpha2``): True/``Scheduled`` when its pods were placed, else
False/``Unschedulable`` with kube-scheduler's message, "0/N placements are available, reported
placement status: ...", N being the values of the group's constraint label among the nodes (one
placement, all nodes, for a group without a constraint).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from toposched.emit.kube.intent import compile_to_kube
from toposched.model import Gang, Node, Placement, Topology, Unschedulable
from toposched.model.lenient import mapping, text
from toposched.wire.scheduling import (
    DEFAULT_API_VERSION,
    PLACEMENTS_AVAILABLE,
    POD_GROUP,
    read_key,
    read_pod_link,
    scheduled_condition,
    unschedulable_message,
)


def status_objects(
    gang: Gang,
    topology: Topology,
    result: Placement | Unschedulable,
    nodes: Sequence[Node],
    *,
    at: float,
    api_version: str = DEFAULT_API_VERSION,
) -> tuple[dict[str, Any], ...]:
    """The gang's PodGroups with ``status.conditions`` for ``result``, an attempt made ``at``
    (seconds since the epoch: the conditions' transition time)."""
    translation = compile_to_kube(gang, topology, api_version=api_version)
    placed = {p.pod for p in result.pods if p.node is not None} if isinstance(result, Placement) else set()
    members: dict[str, list[str]] = {}
    for obj in translation.objects:
        if obj.get("kind") == "Pod":
            group = read_pod_link(obj).pod_group or ""
            members.setdefault(group, []).append(text(mapping(obj.get("metadata")).get("name")))
    out: list[dict[str, Any]] = []
    for obj in translation.objects:
        if obj.get("kind") != POD_GROUP:
            continue
        name = text(mapping(obj.get("metadata")).get("name"))
        pods = members.get(name, [])
        if any(p in placed for p in pods):
            condition = scheduled_condition(api_version, scheduled=True, at=at)
        else:
            total = _placements(read_key(mapping(obj.get("spec"))), nodes)
            message = _message(result, name, total, len(pods))
            condition = scheduled_condition(api_version, scheduled=False, at=at, message=message)
        out.append({**obj, "status": {"conditions": [condition]}})
    return tuple(out)


def _placements(key: str | None, nodes: Sequence[Node]) -> int:
    """kube-scheduler's candidates: one per value of the key (unlabelled nodes dropped), else one."""
    if key is None:
        return 1
    return len({node.labels[key] for node in nodes if key in node.labels})


def _message(result: Placement | Unschedulable, group: str, total: int, pods: int) -> str:
    """kube-scheduler's message for a group left unscheduled. The engine already words a kube
    gang's refusal this way, for the group it names; the gang's other groups wait for it."""
    if not isinstance(result, Unschedulable):
        return unschedulable_message(total, [f"none of the group's {pods} pods was placed"])
    if result.group not in (None, group):
        return unschedulable_message(
            total, [f"the gang's group {result.group} cannot be placed: {result.message}"]
        )
    if PLACEMENTS_AVAILABLE in result.message:
        return result.message
    return unschedulable_message(total, [result.message])
