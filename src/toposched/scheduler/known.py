"""What the loop knows of the store between cycles, brought up to date from what changed.

``KnownNodes``: every stored node, with the ones that are not ready, tainted or cordoned (the
only ones whose gangs may have failed) kept apart. ``HoldingIndex``: where the pods of each
workload holding capacity are, so a cycle looks only at the gangs on suspect nodes. Both are
updated from the store's change reads (``Store.node_changes``, ``Store.booking_changes``), so an
idle cycle reads nothing and walks nothing, whatever the size of the cluster.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from toposched.emit.result import pod_nodes
from toposched.model import Node, TaintEffect
from toposched.scheduler.running import Held, held_of
from toposched.store import NodeChanges, WorkloadRecord


def suspect(node: Node) -> bool:
    """A node that may fail any gang on it: not ready, or tainted ``NoExecute``."""
    return not node.ready or any(t.effect is TaintEffect.NO_EXECUTE for t in node.taints)


def closed(node: Node) -> bool:
    """A node that fails only the gangs with no pod running on it: cordoned, or tainted
    ``NoSchedule`` (GPU nodes often are, to keep other pods off; see ``health``)."""
    return node.unschedulable or any(t.effect is TaintEffect.NO_SCHEDULE for t in node.taints)


class KnownNodes:
    """The stored nodes by name, as of the generation last read."""

    def __init__(self) -> None:
        self.by_name: dict[str, Node] = {}
        self.suspect: set[str] = set()
        self.closed: set[str] = set()
        self.generation: int | None = None  # None: nothing read yet, the next read is a full one
        self._members: tuple[Node, ...] | None = ()  # sorted by name; None: to be sorted again

    def apply(self, changes: NodeChanges) -> tuple[list[Node], list[str]]:
        """Bring the nodes up to date; returns the nodes whose value changed (or that are new)
        and the names of the nodes that are gone."""
        if changes.full:
            stored = {node.name for node in changes.nodes}
            removed = [name for name in self.by_name if name not in stored]
        else:
            removed = [name for name in changes.removed if name in self.by_name]
        for name in removed:
            del self.by_name[name]
            self.suspect.discard(name)
            self.closed.discard(name)
        changed = [node for node in changes.nodes if self.by_name.get(node.name) != node]
        for node in changed:
            self.by_name[node.name] = node
            for kept, belongs in ((self.suspect, suspect(node)), (self.closed, closed(node))):
                if belongs:
                    kept.add(node.name)
                else:
                    kept.discard(node.name)
        if changed or removed:
            self._members = None
        self.generation = changes.generation
        return changed, removed

    @property
    def members(self) -> tuple[Node, ...]:
        """Every node sorted by name: the same tuple while no node changed, so what is built
        from it (the topology trees) is known to be current by identity."""
        if self._members is None:
            self._members = tuple(self.by_name[name] for name in sorted(self.by_name))
        return self._members


def placement_nodes(placement: Any) -> tuple[str, ...] | None:
    """The distinct nodes of a stored placement's pods; None when it is not of the shape the
    store writes (its gang is then looked at every cycle: it cannot be told safe)."""
    try:
        nodes = set(pod_nodes(placement).values())
    except (KeyError, TypeError, AttributeError):
        return None
    nodes.discard(None)
    if not all(isinstance(node, str) for node in nodes):
        return None
    return tuple(str(node) for node in nodes)


class HoldingIndex:
    """Per workload holding capacity: its arrival order and the nodes of its pods (from its
    stored placement), what preemption and reservations need of it (``held``, see ``running``),
    and by node the workloads with pods there. Workloads whose placement
    cannot be read are kept apart: ``damaged`` (the store's reason) and ``misshapen``. Nodes that
    hold pods but are no longer stored are ``missing``."""

    def __init__(self) -> None:
        self.sequence: dict[int, int] = {}
        self.held: dict[int, Held] = {}
        # A tuple, not a set: most nodes hold pods of one or two gangs (a set costs 216 bytes).
        self.on_node: dict[str, tuple[int, ...]] = {}
        self.missing: set[str] = set()
        self.damaged: dict[int, str] = {}
        self.misshapen: set[int] = set()
        self._nodes_of: dict[int, tuple[str, ...]] = {}

    def clear(self) -> None:
        """Forget every workload (before a full read)."""
        for table in (self.sequence, self.held, self.on_node, self.damaged, self._nodes_of):
            table.clear()
        self.missing.clear()
        self.misshapen.clear()

    def put(self, record: WorkloadRecord, stored: Callable[[str], bool]) -> None:
        """Index a workload holding capacity as stored (replacing what was known of it);
        ``stored`` tells whether a node is stored."""
        self.drop(record.id)
        self.sequence[record.id] = record.sequence
        self.held[record.id] = held_of(record)
        if record.damage:
            self.damaged[record.id] = record.damage
            return
        nodes = placement_nodes(record.placement)
        if nodes is None:
            self.misshapen.add(record.id)
            return
        self._place(record.id, nodes, stored)

    def booked(
        self, workload: int, nodes: Iterable[str], stored: Callable[[str], bool], held: Held | None = None
    ) -> None:
        """A workload the cycle just booked on ``nodes`` (its pods' nodes), before the store's
        record of it is read; its arrival order and facts stay as known unless ``held`` is given."""
        sequence = self.sequence.get(workload)
        known = held if held is not None else self.held.get(workload)
        self.drop(workload)
        if sequence is not None:
            self.sequence[workload] = sequence
        if known is not None:
            self.held[workload] = known
        self._place(workload, tuple(nodes), stored)

    def _place(self, workload: int, nodes: tuple[str, ...], stored: Callable[[str], bool]) -> None:
        self._nodes_of[workload] = nodes
        for name in nodes:
            self.on_node[name] = (*self.on_node.get(name, ()), workload)
            if not stored(name):
                self.missing.add(name)

    def drop(self, workload: int) -> None:
        """Forget a workload (it holds no capacity any more)."""
        self.sequence.pop(workload, None)
        self.held.pop(workload, None)
        self.damaged.pop(workload, None)
        self.misshapen.discard(workload)
        for name in self._nodes_of.pop(workload, ()):
            left = tuple(w for w in self.on_node.get(name, ()) if w != workload)
            if left:
                self.on_node[name] = left
            else:
                self.on_node.pop(name, None)
                self.missing.discard(name)

    def nodes_gone(self, names: Iterable[str]) -> None:
        """Nodes deleted from the store: the ones holding pods are missing."""
        self.missing.update(name for name in names if name in self.on_node)

    def nodes_back(self, names: Iterable[str]) -> None:
        """Nodes stored (again)."""
        self.missing.difference_update(names)

    def to_check(self, nodes: Iterable[str], also: Iterable[int] = ()) -> list[int]:
        """The workloads with pods on any of ``nodes`` or on a missing node, those whose
        placement cannot be read, and ``also``, in arrival order."""
        found = set(self.damaged) | self.misshapen
        found.update(also)
        for name in (*nodes, *self.missing):
            found.update(self.on_node.get(name, ()))
        return sorted(found, key=lambda w: (self.sequence.get(w, w), w))

    def nodes_of(self, workload: int) -> tuple[str, ...]:
        """The nodes of a workload's pods (none for one unknown or unreadable)."""
        return self._nodes_of.get(workload, ())
