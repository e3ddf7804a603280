"""Validated PodSets → the IR: one leaf per PodSet, one inner group per PodSet group."""

from __future__ import annotations

from collections.abc import Sequence

from toposched.frontends.kueue.podsets import PodSetSource, Shape, Workload
from toposched.frontends.kueue.request import TopologyRequest
from toposched.frontends.kueue.rules import Entry, group_members
from toposched.model import Gang, Group, PodSpec, Queue, QueueKind, Role, Semantics


def build_gang(workload: Workload, entries: Sequence[Entry], shapes: Sequence[Shape]) -> Gang:
    """The gang: root group named after the workload, children in PodSet order.

    ``entries`` are the validated PodSets that have pods (Kueue skips empty PodSets).
    """
    shape_of = {source.name: shape for (source, _), shape in zip(entries, shapes, strict=True)}
    groups = group_members(entries)
    children: list[Group] = []
    done: set[tuple[int, str]] = set()
    for source, request in entries:
        key = (source.unit, request.group or "")
        # A group whose other PodSet has no pods (an LWS of size 1) is just this PodSet.
        if request.group is None or len(groups[key]) == 1:
            offset = request.offset if request.offset is not None else source.implied_offset
            children.append(_leaf(source, request, shape_of[source.name], offset, own_level=True))
            continue
        if key in done:
            continue
        done.add(key)
        name = request.group if workload.units == 1 else f"{request.group}-{source.unit}"
        children.append(_group(name, groups[key], shape_of))
    root = Group(name=workload.name, children=tuple(children))
    return Gang(
        name=workload.name,
        namespace=workload.namespace,
        kind=workload.kind,
        root=root,
        semantics=Semantics.KUEUE,
        queue=Queue(workload.queue, QueueKind.KUEUE) if workload.queue else None,
    )


def _group(name: str, members: Sequence[Entry], shape_of: dict[str, Shape]) -> Group:
    """Leader (fewer pods; the first listed on a tie) then workers, under the shared level.

    The group manages the index offset: the workers' ranks are shifted by the leader's pod count
    (leader index 0, workers 1..N), and no pod-index-offset applies.
    """
    ordered = sorted(enumerate(members), key=lambda item: (item[1][0].count, item[0]))
    (leader, leader_req), (workers, workers_req) = ordered[0][1], ordered[1][1]
    level_req = workers_req
    children = (
        _leaf(leader, leader_req, shape_of[leader.name], 0, own_level=False, role=Role.LEADER),
        _leaf(workers, workers_req, shape_of[workers.name], leader.count, own_level=False, role=Role.WORKERS),
    )
    return Group(name=name, required=level_req.required, preferred=level_req.preferred, children=children)


def _leaf(
    source: PodSetSource,
    request: TopologyRequest,
    shape: Shape,
    offset: int,
    *,
    own_level: bool,
    role: Role = Role.NONE,
) -> Group:
    ranks = _ranks(source, offset)
    pods = tuple(
        sorted(
            (
                PodSpec(
                    name=pod,
                    index=rank,
                    requests=shape.requests,
                    tolerations=shape.tolerations,
                    node_selector=shape.node_selector,
                    template=shape.spec,
                )
                for pod, rank in zip(source.pod_names, ranks, strict=True)
            ),
            key=lambda pod: pod.index,
        )
    )
    return Group(
        name=source.name,
        required=request.required if own_level else None,
        preferred=request.preferred if own_level else None,
        slices=request.slices,
        pods=pods,
        role=role,
    )


def _ranks(source: PodSetSource, offset: int) -> tuple[int, ...]:
    """Rank = index label value - offset. When that does not give exactly 0..count-1 (an offset
    that does not match the controller's numbering), fall back to pod order, as Kueue's ungater
    falls back to greedy ungating."""
    ranks = tuple(value - offset for value in source.index_values)
    if sorted(ranks) == list(range(source.count)):
        return ranks
    return tuple(range(source.count))
