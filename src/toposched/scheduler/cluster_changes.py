"""Cluster changes for the ``Scheduler``: a parsed cluster dump imported, and one node changed
or deleted. Each node change starts or stops the node's NotReady and taint clocks and is logged
as an event; a dump's running pods replace the external ones of the nodes it lists."""

from __future__ import annotations

from collections.abc import Sequence

from toposched.model import Cluster, Node, Taint
from toposched.scheduler.managed import put_topology
from toposched.scheduler.state import State
from toposched.scheduler.tracker import merge_external, node_event_data, pod_to_json
from toposched.scheduler.types import EventType, ImportReport
from toposched.scheduler.view import CycleView


def import_cluster(
    state: State, cluster: Cluster, *, replace: bool = False, warnings: Sequence[str] = ()
) -> ImportReport:
    """Store the nodes and Topology objects of a parsed cluster dump (nodes upserted by name).
    Its running pods replace those of the nodes it lists; other nodes keep theirs, so a dump
    imported in chunks adds up. With ``replace`` the dump is the whole cluster: nodes it does
    not list are deleted (their gangs see them as failed) and all external pods replaced.
    Nodes left with less capacity than is booked on them are reported; the next cycle
    replaces or evicts their gangs as for a failed node. ``warnings`` (the parser's) are
    passed through to the report."""
    imported = {node.name for node in cluster.nodes}
    with state.lock:
        before = {n.name: n for n in state.store.get_nodes()}
        state.store.put_nodes(cluster.nodes, replace=replace)
        for topology in cluster.topologies:
            put_topology(state, topology)
        for node in cluster.nodes:
            _node_changed(state, before.get(node.name), node)
        removed_nodes = sorted(set(before) - imported) if replace else []
        for name in removed_nodes:
            _node_deleted(state, name)
        old = state.tracker.external
        external = merge_external(old, cluster.pods, None if replace else imported)
        kept = {(p.namespace, p.name, p.node) for p in external}
        removed_pods = sorted(
            {f"{p.namespace}/{p.name}" for p in old if (p.namespace, p.name, p.node) not in kept}
        )
        data = {
            "pods": [pod_to_json(p) for p in cluster.pods],
            "nodes": sorted(imported),
            "replace": replace,
        }
        message = (
            f"imported {len(cluster.nodes)} nodes, {len(cluster.pods)} pods, "
            f"{len(cluster.topologies)} topologies" + (" (full replace)" if replace else "")
        )
        state.store.append_event(state.event(EventType.CLUSTER_IMPORTED, message, data=data))
        state.tracker.external = external
        booked = state.store.reservations_by_workload()
        after = {} if replace else dict(before)  # the nodes as just stored, without reading them back
        after.update((node.name, node) for node in cluster.nodes)
        view = CycleView.of([after[name] for name in sorted(after)], external, booked)
        overbooked = tuple(f"node {n}: {why}" for n, why in sorted(view.overbooked().items()))
        state.notify()
        return ImportReport(
            len(cluster.nodes),
            len(cluster.pods),
            tuple(t.name for t in cluster.topologies),
            tuple(warnings),
            tuple(removed_nodes),
            tuple(removed_pods),
            overbooked,
        )


def delete_node(state: State, name: str) -> None:
    """Forget a node; gangs with pods on it see it as failed in the next cycle."""
    with state.lock:
        state.store.delete_node(name)
        _node_deleted(state, name)
    state.notify()


def update_node(
    state: State,
    name: str,
    *,
    ready: bool | None = None,
    taints: tuple[Taint, ...] | None = None,
    unschedulable: bool | None = None,
) -> Node:
    """Change a node's readiness, taints or cordon, and start or stop its clocks."""
    with state.lock:
        before = state.store.get_node(name)
        node = state.store.update_node(name, ready=ready, taints=taints, unschedulable=unschedulable)
        _node_changed(state, before, node)
        return node


def _node_deleted(state: State, name: str) -> None:
    """Stop the deleted node's clocks and log its deletion as an event."""
    state.tracker.observe(name, None, (), state.clock.now())
    state.store.append_event(
        state.event(EventType.NODE, f"node {name} deleted", data=node_event_data(name, None))
    )


def _node_changed(state: State, before: Node | None, node: Node) -> None:
    """Start or stop the node's NotReady and taint clocks and log the change as an event."""
    old = node_event_data(node.name, before) if before is not None else None
    new = node_event_data(node.name, node)
    state.tracker.observe_node(node, state.clock.now())
    if old != new and (before is not None or not node.ready or node.taints or node.unschedulable):
        state.store.append_event(state.event(EventType.NODE, _describe(node), data=new))


def _describe(node: Node) -> str:
    facts = ["Ready" if node.ready else "NotReady"]
    if node.unschedulable:
        facts.append("cordoned")
    facts += [f"taint {t}" for t in node.taints]
    return f"node {node.name}: {', '.join(facts)}"
