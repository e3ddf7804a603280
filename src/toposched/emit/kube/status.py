"""The PodGroup conditions kube-scheduler would write after this attempt (the dry run's status).

Each PodGroup object given (as the input wrote it, or as its controller would create it) is
returned unchanged but for ``status.conditions``: ``PodGroupInitiallyScheduled``
(``PodGroupScheduled`` in ``v1alpha2``, by the object's own apiVersion), True/``Scheduled`` when
its pods were placed, else False/``Unschedulable`` with kube-scheduler's message, "0/N placements
are available, first placement status: ...", N being the values of the group's constraint
label among the nodes (one placement, all nodes, for a group without a constraint), or "no
feasible placements found" when no node has the label. A PodGroup's
pods are the gang group of the same name (a kube gang keeps the PodGroups' names).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toposched.model import Gang, Node, Placement, Unschedulable
from toposched.model.lenient import mapping, text
from toposched.wire.scheduling import (
    NO_FEASIBLE_PLACEMENTS,
    PLACEMENTS_AVAILABLE,
    api_version_of,
    read_key,
    scheduled_condition,
    unschedulable_message,
)


def status_objects(
    pod_groups: Sequence[Mapping[str, Any]],
    gang: Gang,
    result: Placement | Unschedulable,
    nodes: Sequence[Node],
    *,
    at: float,
) -> tuple[dict[str, Any], ...]:
    """``pod_groups`` with the ``status.conditions`` kube-scheduler would set for ``result``, an
    attempt made ``at`` (seconds since the epoch: the conditions' transition time)."""
    placed = {p.pod for p in result.pods if p.node is not None} if isinstance(result, Placement) else set()
    members = {leaf.name: [p.name for p in leaf.pods] for leaf in gang.leaves()}
    out: list[dict[str, Any]] = []
    for obj in pod_groups:
        name = text(mapping(obj.get("metadata")).get("name"))
        pods = members.get(name, [])
        version = api_version_of(obj)
        if any(p in placed for p in pods):
            condition = scheduled_condition(version, scheduled=True, at=at)
        else:
            total = _placements(read_key(mapping(obj.get("spec"))), nodes)
            message = _message(result, name, total, len(pods))
            condition = scheduled_condition(version, scheduled=False, at=at, message=message)
        out.append({**obj, "status": {**mapping(obj.get("status")), "conditions": [condition]}})
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
    if PLACEMENTS_AVAILABLE in result.message or result.message == NO_FEASIBLE_PLACEMENTS:
        return result.message
    return unschedulable_message(total, [result.message])
