"""Step 1 of the cycle as a pure decision: which nodes of one admitted gang have failed.

A node fails for a gang when (Kueue KEP-2724 "Node failures" and "Tainted nodes treatment"):

* it was deleted;
* it is NotReady for longer than the grace period, or, with ``replace_on_pod_termination``, it
  is NotReady and every pod of the gang on it has ended (failed or terminating);
* it carries a NoExecute taint a pod of the gang there does not tolerate, or tolerates only for
  ``tolerationSeconds`` that have passed since the taint appeared;
* it carries an untolerated NoSchedule taint, or is cordoned, and no pod of the gang on it is
  still running (all failed, terminating or unscheduled);
* it has less capacity than is booked on it (re-imported smaller): ``overbooked``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toposched.model import Node, PodSpec, Taint, TaintEffect, Toleration
from toposched.scheduler.tracker import Tracker
from toposched.scheduler.types import PodStatus, SchedulerConfig


@dataclass(frozen=True, slots=True)
class NodeFailure:
    """One failed node of a gang and why it counts as failed."""

    node: str
    reason: str


def failed_nodes(
    pods_by_node: Mapping[str, Sequence[tuple[PodSpec | None, PodStatus]]],
    nodes: Mapping[str, Node],
    tracker: Tracker,
    now: float,
    config: SchedulerConfig,
    overbooked: Mapping[str, str] | None = None,
) -> list[NodeFailure]:
    """The failed nodes among those holding the gang's pods, sorted by node name.
    ``overbooked`` names the nodes booked beyond their capacity, with what is over."""
    failures: list[NodeFailure] = []
    for name in sorted(pods_by_node):
        reason = _why_failed(name, nodes.get(name), pods_by_node[name], tracker, now, config)
        if reason is None and overbooked and name in overbooked:
            reason = f"node {name} has less capacity than is booked on it ({overbooked[name]})"
        if reason is not None:
            failures.append(NodeFailure(name, reason))
    return failures


def _why_failed(
    name: str,
    node: Node | None,
    pods: Sequence[tuple[PodSpec | None, PodStatus]],
    tracker: Tracker,
    now: float,
    config: SchedulerConfig,
) -> str | None:
    if node is None:
        return f"node {name} was deleted"
    statuses = [status for _, status in pods]
    if not node.ready:
        waited = now - tracker.not_ready_since(name, now)
        if waited > config.node_grace_seconds:
            return f"node {name} is NotReady for {waited:g}s (more than {config.node_grace_seconds:g}s)"
        if config.replace_on_pod_termination and all(s.ended for s in statuses):
            return f"node {name} is NotReady and every pod of the workload on it has terminated"
    tolerations = [spec.tolerations if spec is not None else () for spec, _ in pods]
    for taint in node.taints:
        if taint.effect is TaintEffect.NO_EXECUTE:
            limit = _tolerated_for(tolerations, taint)
            if limit == 0.0:
                return f"node {name} has the NoExecute taint {taint}, which the workload does not tolerate"
            if limit is not None and now - tracker.taint_since(name, taint, now) >= limit:
                return f"node {name} has the NoExecute taint {taint}, tolerated only for {limit:g}s"
    idle = all(s.not_progressing for s in statuses)
    if idle and node.unschedulable:
        return f"node {name} is cordoned and no pod of the workload runs on it"
    for taint in node.taints:
        if idle and taint.effect is TaintEffect.NO_SCHEDULE and _tolerated_for(tolerations, taint) == 0.0:
            return f"node {name} has the NoSchedule taint {taint} and no pod of the workload runs on it"
    return None


def _tolerated_for(tolerations: Sequence[tuple[Toleration, ...]], taint: Taint) -> float | None:
    """How long the least tolerant pod stays: 0 = not tolerated, None = forever."""
    shortest: float | None = None
    for own in tolerations:
        matching = [t for t in own if t.tolerates(taint)]
        if not matching:
            return 0.0
        if any(t.toleration_seconds is None for t in matching):
            continue
        # Kubernetes keeps a pod for the shortest matching tolerationSeconds.
        seconds = float(min(t.toleration_seconds or 0 for t in matching))
        shortest = seconds if shortest is None else min(shortest, seconds)
    return shortest
