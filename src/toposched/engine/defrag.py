"""Defragmentation advice: the fewest running workloads to move so that ``count`` whole domains
of one level become free, and where each moved pod would go.

Running pods group into workloads by owner (a pod without one is its own workload). Freeing a
domain moves the pods of every workload that has pods in it; pods outside the freed domains
stay, since nothing in a cluster dump says those workloads must move as a whole. The moved pods
of one workload are re-placed together, all or nothing, by the engine on the nodes outside the
freed domains, taking the capacity left after the pods that stay.

Workloads given with their gang (the service's own) move whole instead: all their pods leave,
wherever they run, and the gang is placed again by the engine under its own constraints.

Choosing the domains is greedy: each step adds the domain that moves the fewest new workloads
(then the fewest pods, then the lowest domain rank) among those whose moved pods still fit
elsewhere. Moved pods only go to nodes of the topology with no NoSchedule or NoExecute taint: a
dump's running pods carry no tolerations the engine could check.

Every placement goes through the caller's placement session, with the faithful search (a move
is where each upstream scheduler would put the workload); the gangs of one candidate plan are
booked on its snapshot through a ``Statement``, so each is placed around the ones before it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from toposched.engine.core.options import PlacementOptions
from toposched.engine.place import usage_of
from toposched.engine.session import PlacementSession, open_session
from toposched.model import (
    DefragPlan,
    Gang,
    Group,
    Node,
    Placement,
    PodMove,
    PodSpec,
    Policy,
    RunningPod,
    Search,
    Topology,
    WorkloadMove,
)

Path = tuple[str, ...]


def plan_defrag(
    topology: Topology,
    nodes: Sequence[Node],
    pods: Sequence[RunningPod],
    level: int,
    count: int,
    *,
    gangs: Mapping[str, Gang] | None = None,
    policy: str | None = None,
    session: PlacementSession | None = None,
) -> DefragPlan:
    """Free ``count`` domains at ``topology.levels[level]``, moving as few workloads as the greedy
    choice finds. Only domains whose nodes are all schedulable qualify. ``gangs`` (by workload,
    ``namespace/owner``) move whole, each under the policy the session's options give it
    (``policy``: the caller's choice, for a session of its own); their pods are named as in the
    gang. Workloads known only by their pods are placed under ``mixed``."""
    session = session if session is not None else open_session(PlacementOptions(policy=policy))
    key = topology.levels[level]
    domains = _whole_domains(topology, nodes, level)
    on_node: dict[str, list[RunningPod]] = defaultdict(list)
    for pod in pods:
        on_node[pod.node].append(pod)
    residents = {path: [p for n in members for p in on_node[n.name]] for path, members in domains.items()}
    empty = [path for path, placed in residents.items() if not placed]
    freed: list[Path] = sorted(empty)[:count]
    moves: tuple[WorkloadMove, ...] = ()
    reason = ""
    while len(freed) < count:
        candidates = sorted(
            (path for path in residents if path not in freed),
            key=lambda path: _cost(residents, freed, path),
        )
        if not candidates:
            reason = f"the cluster has only {len(domains)} {key} domain(s) whose nodes can all take pods"
            break
        for path in candidates:
            found = _relocate(session, topology, nodes, domains, residents, pods, [*freed, path], gangs or {})
            if found is not None:
                freed.append(path)
                moves = found
                break
        else:
            reason = f"the pods in any further {key} domain do not fit on the nodes outside the freed ones"
            break
    return DefragPlan(key, count, tuple(freed), moves, min(len(empty), count), reason)


def _whole_domains(topology: Topology, nodes: Sequence[Node], level: int) -> dict[Path, list[Node]]:
    """Domains at ``level`` (by path) with their nodes, for domains whose nodes are all schedulable."""
    by_path: dict[Path, list[Node]] = defaultdict(list)
    for node in nodes:
        if all(key in node.labels for key in topology.levels):
            by_path[tuple(node.labels[k] for k in topology.levels[: level + 1])].append(node)
    return {path: members for path, members in by_path.items() if all(n.schedulable for n in members)}


def _cost(
    residents: dict[Path, list[RunningPod]], freed: Sequence[Path], path: Path
) -> tuple[int, int, Path]:
    moved = {p.workload for done in freed for p in residents[done]}
    new = {p.workload for p in residents[path]} - moved
    return len(new), len(residents[path]), path


def _relocate(
    session: PlacementSession,
    topology: Topology,
    nodes: Sequence[Node],
    domains: dict[Path, list[Node]],
    residents: dict[Path, list[RunningPod]],
    pods: Sequence[RunningPod],
    freed: Sequence[Path],
    gangs: Mapping[str, Gang],
) -> tuple[WorkloadMove, ...] | None:
    """The moves that empty ``freed``, or None when some workload's moved pods fit nowhere."""
    emptied = {n.name for path in freed for n in domains[path]}
    leaving = {p.workload for path in freed for p in residents[path]}
    moving = [p for p in pods if p.workload in gangs and p.workload in leaving]
    moving += [p for path in freed for p in residents[path] if p.workload not in gangs]
    targets = [
        n
        for n in nodes
        if n.name not in emptied
        and all(key in n.labels for key in topology.levels)
        and not any(t.blocks_scheduling for t in n.taints)
    ]
    moving_ids = {id(p) for p in moving}
    snapshot = session.snapshot(topology, targets, [p for p in pods if id(p) not in moving_ids])
    statement = session.statement([snapshot])
    by_workload: dict[str, list[RunningPod]] = defaultdict(list)
    for pod in moving:
        by_workload[pod.workload].append(pod)
    out: list[WorkloadMove] = []
    # Largest first: they are the hardest to fit once the small ones took the gaps.
    for workload, group in sorted(by_workload.items(), key=lambda item: (-len(item[1]), item[0])):
        gang = gangs.get(workload) or _loose(workload, group)
        chosen = None if workload in gangs else Policy.MIXED
        result = session.place(gang, snapshot, policy=chosen, search=Search.FAITHFUL, probe=False)
        if not isinstance(result, Placement):
            statement.rollback()
            return None
        statement.book(workload, usage_of(result, gang))
        target = {pod.pod: pod.node for pod in result.pods}
        out.append(
            WorkloadMove(
                workload, tuple(PodMove(p.namespace, p.name, p.node, str(target.get(p.name))) for p in group)
            )
        )
    return tuple(sorted(out, key=lambda move: move.workload))


def _loose(workload: str, pods: Sequence[RunningPod]) -> Gang:
    """A workload known only by its running pods: its moved pods as one unconstrained group."""
    specs = tuple(PodSpec(p.name, i, p.requests) for i, p in enumerate(pods))
    return Gang(workload, Group("workload", children=(Group("pods", pods=specs),)))
