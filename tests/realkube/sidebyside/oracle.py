"""Is a PodGroup's spread over nodes one kube-scheduler's per-pod choice can make?

Inside a placement kube-scheduler places a PodGroup's pods one by one, each on a node its
default profile scores highest, at random among equals (pkg/scheduler/schedule_one.go,
``selectHost``). Equal scores are common (alike nodes), so two runs may spread the same pods
differently, and both are kube-scheduler's answer. This module re-derives the scores
independently of toposched's engine, in plain integers as the Go code computes them
(v1.37.2 default profile: NodeResourcesFit LeastAllocated and BalancedAllocation over cpu and
memory, TaintToleration's PreferNoSchedule count with weight 3; the other plugins score every
node alike here), and searches the equal choices for one that ends in the spread asked about.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toposched.model import Resources

MAX = 100
NON_ZERO = {"cpu": 100, "memory": 200 * 1024 * 1024}
SCORED = ("cpu", "memory")
BUDGET = 20000  # states searched before giving up (None: unknown)


@dataclass
class NodeState:
    name: str
    labels: Mapping[str, str]
    allocatable: Resources
    taints: list[dict[str, Any]]
    used: Counter[str] = field(default_factory=Counter)  # actual requests, pods included
    non_zero: Counter[str] = field(default_factory=Counter)  # cpu, memory as the scores count them

    def add(self, requests: Resources, times: int = 1) -> None:
        for resource, amount in requests.items():
            self.used[resource] += amount * times
        self.used["pods"] += times
        for resource in SCORED:
            self.non_zero[resource] += (requests.get(resource) or NON_ZERO[resource]) * times


@dataclass(frozen=True, slots=True)
class PodShape:
    requests: Resources
    tolerations: tuple[Mapping[str, Any], ...]
    selector: Mapping[str, str]


def pod_shape(pod: Mapping[str, Any]) -> PodShape:
    spec = pod["spec"]
    total: Resources = Resources()
    for container in spec.get("containers") or ():
        total = total + Resources.parse((container.get("resources") or {}).get("requests") or {})
    return PodShape(total, tuple(spec.get("tolerations") or ()), dict(spec.get("nodeSelector") or {}))


def cluster_state(items: Sequence[Mapping[str, Any]]) -> dict[str, NodeState]:
    """Nodes and the pods bound to them, from kubectl-shaped items."""
    nodes = {
        i["metadata"]["name"]: NodeState(
            i["metadata"]["name"],
            i["metadata"].get("labels") or {},
            Resources.parse(i.get("status", {}).get("allocatable") or {}),
            list(i.get("spec", {}).get("taints") or ()),
        )
        for i in items
        if i.get("kind") == "Node"
    }
    for item in items:
        node = nodes.get(item.get("spec", {}).get("nodeName", "")) if item.get("kind") == "Pod" else None
        if node is not None:
            node.add(pod_shape(item).requests)
    return nodes


def _tolerated(taint: Mapping[str, Any], tolerations: Sequence[Mapping[str, Any]]) -> bool:
    for t in tolerations:
        if t.get("effect") and t["effect"] != taint.get("effect"):
            continue
        if t.get("operator") == "Exists":
            if not t.get("key") or t.get("key") == taint.get("key"):
                return True
        elif t.get("key") == taint.get("key") and (t.get("value") or "") == (taint.get("value") or ""):
            return True
    return False


def fits(node: NodeState, pod: PodShape, extra: int) -> bool:
    """Filter: taints, selector, resources, with ``extra`` more copies of the pod on it."""
    for taint in node.taints:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not _tolerated(taint, pod.tolerations):
            return False
    if any(node.labels.get(k) != v for k, v in pod.selector.items()):
        return False
    asks = Counter(dict(pod.requests.items()))
    asks["pods"] += 1
    return all(node.used[r] + amount * (extra + 1) <= node.allocatable.get(r) for r, amount in asks.items())


def score(node: NodeState, pod: PodShape, extra: int) -> int:
    """LeastAllocated + BalancedAllocation of one more copy, ``extra`` copies already there."""
    least, counted = 0, 0
    for r in SCORED:
        alloc = node.allocatable.get(r)
        if not alloc:
            continue
        ask = pod.requests.get(r) or NON_ZERO[r]
        requested = node.non_zero[r] + ask * (extra + 1)
        least += 0 if requested > alloc else (alloc - requested) * MAX // alloc
        counted += 1
    total = least // counted if counted else 0
    if any(pod.requests.get(r) for r in SCORED):
        used = [node.used[r] + pod.requests.get(r) * extra for r in SCORED]
        request = [pod.requests.get(r) for r in SCORED]
        with_pod = _balance([u + q for u, q in zip(used, request, strict=True)], node)
        without = _balance(used, node)
        total += MAX // 2 + (MAX // 2 + with_pod - without) // 2
    return total


def _balance(requested: Sequence[int], node: NodeState) -> int:
    fractions = [
        min(1.0, requested[i] / node.allocatable.get(r))
        for i, r in enumerate(SCORED)
        if node.allocatable.get(r)
    ]
    std = abs((fractions[0] - fractions[1]) / 2) if len(fractions) == 2 else 0.0
    return int((1 - std) * MAX)


def _prefer_counts(node: NodeState, pod: PodShape) -> int:
    return sum(
        1 for t in node.taints if t.get("effect") == "PreferNoSchedule" and not _tolerated(t, pod.tolerations)
    )


def reachable(nodes: Sequence[NodeState], pod: PodShape, target: Counter[str], total: int) -> bool | None:
    """Can placing ``total`` alike pods one by one on ``nodes`` (kube-scheduler's greedy, any
    choice among equal scores) put ``target[node]`` of them on each node, the rest fitting
    nowhere? None: the search ran out of budget."""
    names = [n.name for n in nodes]
    want = tuple(target.get(name, 0) for name in names)
    placed = sum(want)
    if placed > total or any(name not in names for name in target):
        return False
    prefer = [_prefer_counts(n, pod) for n in nodes]
    seen: set[tuple[int, ...]] = set()
    budget = [BUDGET]

    def step(counts: tuple[int, ...]) -> bool | None:
        if counts in seen:
            return False
        seen.add(counts)
        budget[0] -= 1
        if budget[0] < 0:
            return None
        open_ = [i for i, node in enumerate(nodes) if fits(node, pod, counts[i])]
        if sum(counts) == placed:
            return placed == total or not open_  # the pods left fit nowhere
        if not open_:
            return False
        most = max(prefer[i] for i in open_)
        scored = {
            i: score(nodes[i], pod, counts[i]) + 3 * (MAX - (MAX * prefer[i] // most if most else 0))
            for i in open_
        }
        best = max(scored.values())
        unknown = False
        for i in (i for i in open_ if scored[i] == best and counts[i] < want[i]):
            found = step((*counts[:i], counts[i] + 1, *counts[i + 1 :]))
            if found:
                return True
            unknown = unknown or found is None
        return None if unknown else False

    return step(tuple(0 for _ in nodes))
