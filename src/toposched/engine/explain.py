"""Why a gang does not place, and what would: the refusal plus the best candidate domains, the
nodes left out and why, and suggestions each checked by placing it.

Suggestions, each kept only when placing it succeeds:

* the same gang preferring the level it requires (the failing group's, else every required one;
  not for kube-scheduler's PodGroups, which have no preferred constraints);
* the largest size of the failing group that fits now (a leaf without a minimum);
* the running workloads whose end would let it place (one workload at a time, those with pods
  in the best candidate domains first, fewest pods first);
* the complete search, when the faithful solver is what refuses (unless a probe of that same
  search, ``place(probe=True)``, found nothing already).

Everything here places through the caller's placement session on a whole cluster, as
``toposched.engine.place`` does, so a suggestion is exactly what the engine would do with it:
``apply_suggestion`` gives the gang, cluster and search to place.

The budget bounds each search as every search is bounded (the session's steps and seconds) and,
through its injected ``expired``, the whole explanation: once it has expired no further placement
is tried, and the kinds of suggestion cut short are listed in ``Explanation.untried``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from toposched.engine.core.budget import SearchBudget
from toposched.engine.core.options import PlacementOptions
from toposched.engine.place import COMPLETE_WOULD_PLACE
from toposched.engine.session import PlacementSession, open_session
from toposched.engine.slice_fit import SliceFit, slice_fit
from toposched.model import (
    Cluster,
    DomainFit,
    Exclusion,
    ExclusionReason,
    Explanation,
    Gang,
    Group,
    Placement,
    RunningPod,
    Search,
    Semantics,
    Suggestion,
    SuggestionKind,
    Taint,
    Topology,
    ToposchedError,
    Unschedulable,
)
from toposched.model.node import tolerates_all
from toposched.snapshot import PodShape, Snapshot, per_slot_requests

Path = tuple[str, ...]
CANDIDATES = 3  # best domains shown
SLICED_TRIES = 16  # roomiest domains whose slices are arranged to find the best candidates
WORKLOAD_TRIES = 8  # running workloads tried one at a time
WORKLOAD_SUGGESTIONS = 3


def explain_refusal(
    gang: Gang,
    cluster: Cluster,
    refusal: Unschedulable,
    *,
    topology: Topology,
    policy: str,
    search: Search = Search.FAITHFUL,
    budget: SearchBudget | None = None,
    probed: bool = False,
    session: PlacementSession | None = None,
) -> Explanation:
    """Explain ``refusal``, the result of placing ``gang`` on ``cluster`` under ``policy`` with
    ``search``; suggestions are placed the same way (the complete search is suggested only when
    ``search`` was the faithful one), through ``session`` (a session of its own by default), each
    only while ``budget`` has not expired (its steps bound each search). ``probed``: ``refusal``
    came from a placement that probed the complete search (``place(..., probe=True)``, a session's
    ``place``) with this budget, so its note already says whether the complete search places it."""
    session = session if session is not None else open_session(PlacementOptions(search=search))
    group = _failing_group(gang, refusal)
    level = refusal.level or (group.level if group is not None else None)
    snapshot = session.snapshot(topology, cluster.nodes, cluster.pods)
    shape = _shape(group or gang.root)
    needed = group.size if group else gang.size
    candidates = _candidates(snapshot, group, shape, level, needed) if shape else ()
    places = Places(session, cluster, topology, policy, search, budget)

    def landed(placement: Placement) -> tuple[Path, ...]:
        return _domains_of(placement, cluster, topology, level, group)

    kinds: tuple[tuple[SuggestionKind, Callable[[], list[Suggestion]]], ...] = (
        (SuggestionKind.PREFERRED_LEVEL, lambda: _preferred_level(gang, group, topology, places, landed)),
        (SuggestionKind.SMALLER, lambda: _smaller(gang, group, places)),
        (
            SuggestionKind.AFTER_WORKLOADS_END,
            lambda: _after_workloads(gang, cluster, candidates, topology, level, places, landed),
        ),
        (SuggestionKind.COMPLETE_SEARCH, lambda: _complete(gang, refusal, probed, places, landed)),
    )
    suggestions: list[Suggestion] = []
    untried: list[SuggestionKind] = []
    for kind, suggest in kinds:
        suggestions += suggest()
        if places.stopped:
            untried.append(kind)
    exclusions = _exclusions(cluster, topology, snapshot, shape)
    return Explanation(
        refusal,
        group.name if group else None,
        level,
        candidates,
        exclusions,
        tuple(suggestions),
        tuple(untried),
    )


class Places:
    """Places a changed gang (or the same gang on a changed cluster) as the explained one was
    placed: the placement, or None. Once the budget has expired it places nothing more and
    ``stopped`` is set."""

    def __init__(
        self,
        session: PlacementSession,
        cluster: Cluster,
        topology: Topology,
        policy: str,
        search: Search,
        budget: SearchBudget | None,
    ) -> None:
        self.session = session
        self.cluster, self.topology, self.policy, self.search = cluster, topology, policy, search
        self.budget = budget
        self.stopped = False

    def __call__(self, gang: Gang, on: Cluster | None = None, mode: Search | None = None) -> Placement | None:
        expired = self.budget.expired if self.budget is not None else None
        if self.stopped or (expired is not None and expired()):
            self.stopped = True
            return None
        given = self.budget
        try:
            result = self.session.place_on(
                gang,
                self.cluster if on is None else on,
                self.topology,
                policy=self.policy,
                search=self.search if mode is None else mode,
                budget=None
                if given is None
                else SearchBudget(given.steps, given.expired, self.session.meter),
                probe=False,
            )
        except ToposchedError:
            return None
        return result if isinstance(result, Placement) else None


def apply_suggestion(
    gang: Gang, cluster: Cluster, suggestion: Suggestion, search: Search = Search.FAITHFUL
) -> tuple[Gang, Cluster, Search]:
    """The gang, cluster and search mode the suggestion places (``search``: the one explained)."""
    ended = set(suggestion.ended)
    if ended:
        cluster = replace(cluster, pods=tuple(p for p in cluster.pods if p.workload not in ended))
    mode = Search.COMPLETE if suggestion.kind is SuggestionKind.COMPLETE_SEARCH else search
    return suggestion.gang or gang, cluster, mode


# -- what failed ---------------------------------------------------------------------------------


def _failing_group(gang: Gang, refusal: Unschedulable) -> Group | None:
    groups = list(gang.root.walk())
    if refusal.group is not None:
        for group in groups:
            if group.name == refusal.group:
                return group
    constrained = [g for g in groups if g.level is not None]
    return constrained[0] if constrained else next(gang.leaves(), None)


def _shape(group: Group) -> PodShape | None:
    pod = next(group.all_pods(), None)
    if pod is None:
        return None
    return PodShape(pod.requests, pod.tolerations, tuple(sorted(pod.node_selector.items())))


def _candidates(
    snapshot: Snapshot, group: Group | None, shape: PodShape, level: str | None, needed: int
) -> tuple[DomainFit, ...]:
    """The best domains of ``level`` for the failing group: the pods each holds (of a sliced
    group, as one arrangement of all its slice layers takes them), never more than needed."""
    tree = snapshot.tree
    index = tree.level_index(level) if level is not None else None
    if index is None or tree.node_count == 0:
        return ()
    capacity = snapshot.capacity(shape)
    per_level = snapshot.level_capacity(shape)
    per_domain = per_level[index]
    layers = group.slices if group is not None else ()
    order = sorted(range(len(per_domain)), key=lambda d: (-int(per_domain[d]), d))
    sliced: dict[int, SliceFit] = {}
    if layers:
        # Raw capacity ranks domains badly for slices: arrange the roomiest few and keep the best.
        for domain in order[:SLICED_TRIES]:
            found = slice_fit(tree, per_level, layers, needed, index, domain)
            if found is not None:
                sliced[domain] = found
        order = sorted(sliced, key=lambda d: (-sliced[d].pods, -int(per_domain[d]), d)) or order
    mask = snapshot.eligible(shape)
    eligible = capacity >= 0 if mask is None else mask
    charged = per_slot_requests(shape.requests)
    out: list[DomainFit] = []
    for domain in order[:CANDIDATES]:
        first, last = tree.descendants(index, domain, tree.leaf_level)
        rows = np.arange(tree.leaf_nodes(first).start, tree.leaf_nodes(last - 1).stop)
        rows = rows[eligible[rows]]
        shortfall: dict[str, int] = {}
        for resource, amount in charged.items():
            column = snapshot.columns.get(resource)
            free = int(np.maximum(snapshot.free[rows, column], 0).sum()) if column is not None else 0
            if amount * needed > free:
                shortfall[resource] = amount * needed - free
        fit = sliced.get(domain)
        held = min(int(per_domain[domain]), needed) if fit is None else fit.pods
        out.append(
            DomainFit(
                tree.path(index, domain),
                held,
                needed,
                shortfall,
                layers=() if fit is None else fit.layers,
                short=() if fit is None else fit.short,
            )
        )
    return tuple(out)


def _exclusions(
    cluster: Cluster, topology: Topology, snapshot: Snapshot, shape: PodShape | None
) -> tuple[Exclusion, ...]:
    counts: Counter[tuple[ExclusionReason, Taint | None, str | None]] = Counter()
    for node in cluster.nodes:
        if not all(key in node.labels for key in topology.levels):
            counts[ExclusionReason.MISSING_LABELS, None, None] += 1
        elif not node.ready:
            counts[ExclusionReason.NOT_READY, None, None] += 1
        elif node.unschedulable:
            counts[ExclusionReason.CORDONED, None, None] += 1
    if shape is not None:
        tree = snapshot.tree
        charged = per_slot_requests(shape.requests)
        for row, node in enumerate(tree.nodes):
            taint = tolerates_all(shape.tolerations, node.taints)
            if taint is not None:
                counts[ExclusionReason.TAINT, taint, None] += 1
            elif any(node.labels.get(k) != v for k, v in shape.selector):
                counts[ExclusionReason.NODE_SELECTOR, None, None] += 1
            else:
                short = next(
                    (
                        r
                        for r, a in charged.items()
                        if r not in snapshot.columns or snapshot.free[row, snapshot.columns[r]] < a
                    ),
                    None,
                )
                if short is not None:
                    counts[ExclusionReason.RESOURCE, None, short] += 1
    return tuple(
        Exclusion(reason, n, taint, resource)
        for (reason, taint, resource), n in sorted(counts.items(), key=lambda item: (-item[1], str(item[0])))
    )


# -- suggestions ---------------------------------------------------------------------------------

Landed = Callable[[Placement], tuple[Path, ...]]


def _rewrite(root: Group, name: str, change: Callable[[Group], Group]) -> Group:
    if root.name == name:
        return change(root)
    if not root.children:
        return root
    return replace(root, children=tuple(_rewrite(child, name, change) for child in root.children))


def _preferred_level(
    gang: Gang, group: Group | None, topology: Topology, places: Places, landed: Landed
) -> list[Suggestion]:
    if gang.semantics is Semantics.KUBE:
        return []  # kube-scheduler has no preferred constraints to suggest
    targets = [group] if group is not None and group.required else [g for g in gang.root.walk() if g.required]
    if not targets:
        return []
    root = gang.root
    for target in targets:
        root = _rewrite(root, target.name, lambda g: replace(g, required=None, preferred=g.required))
    try:
        relaxed = replace(gang, root=root)
    except (ToposchedError, ValueError):
        return []
    found = places(relaxed)
    if found is None:
        return []
    levels = ", ".join(sorted({topology.short_name(str(t.required)) for t in targets}))
    return [
        Suggestion(
            SuggestionKind.PREFERRED_LEVEL,
            f"prefer {levels} instead of requiring it: the gang then places across {len(landed(found))} domain(s)",
            gang=relaxed,
            domains=landed(found),
        )
    ]


def _smaller(gang: Gang, group: Group | None, places: Places) -> list[Suggestion]:
    if group is None or not group.is_leaf or group.min_member is not None or len(group.pods) < 2:
        return []
    step = max((layer.size for layer in group.slices), default=1)

    def resized(count: int) -> Gang | None:
        try:
            return replace(
                gang, root=_rewrite(gang.root, group.name, lambda g: replace(g, pods=g.pods[:count]))
            )
        except (ToposchedError, ValueError):
            return None

    low, high = 0, (len(group.pods) - 1) // step  # in steps; the full size is known not to place
    best: Gang | None = None
    while low < high:
        middle = (low + high + 1) // 2
        candidate = resized(middle * step)
        if candidate is not None and places(candidate) is not None:
            low, best = middle, candidate
        else:
            high = middle - 1
    if best is None or places.stopped:  # stopped: a larger size may place too
        return []
    count = low * step
    return [
        Suggestion(
            SuggestionKind.SMALLER,
            f"{count} of {len(group.pods)} pods of {group.name} fit now (the largest size that places)",
            gang=best,
        )
    ]


def _after_workloads(
    gang: Gang,
    cluster: Cluster,
    candidates: Sequence[DomainFit],
    topology: Topology,
    level: str | None,
    places: Places,
    landed: Landed,
) -> list[Suggestion]:
    by_workload: dict[str, list[RunningPod]] = defaultdict(list)
    for pod in cluster.pods:
        by_workload[pod.workload].append(pod)
    if not by_workload:
        return []
    domain_of = _node_domains(cluster, topology, level)
    best = {fit.domain: rank for rank, fit in enumerate(candidates)}

    def order(item: tuple[str, list[RunningPod]]) -> tuple[int, int, str]:
        name, pods = item
        ranks = [best[d] for p in pods if (d := domain_of.get(p.node)) in best]
        return (min(ranks) if ranks else len(best), len(pods), name)

    out: list[Suggestion] = []
    for name, _ in sorted(by_workload.items(), key=order)[:WORKLOAD_TRIES]:
        remaining = replace(cluster, pods=tuple(p for p in cluster.pods if p.workload != name))
        found = places(gang, remaining)
        if found is None:
            continue
        where = landed(found)
        text = f"places once {name} ends" + (f", in {', '.join('/'.join(d) for d in where)}" if where else "")
        out.append(Suggestion(SuggestionKind.AFTER_WORKLOADS_END, text, ended=(name,), domains=where))
        if len(out) == WORKLOAD_SUGGESTIONS:
            break
    return out


def _complete(
    gang: Gang, refusal: Unschedulable, probed: bool, places: Places, landed: Landed
) -> list[Suggestion]:
    """The complete search, when the faithful one refused; not again when a probe of it found
    nothing (the search is deterministic: it would find nothing again)."""
    if places.search is not Search.FAITHFUL or (probed and refusal.note != COMPLETE_WOULD_PLACE):
        return []
    found = places(gang, mode=Search.COMPLETE)
    if found is None:
        return []
    return [
        Suggestion(
            SuggestionKind.COMPLETE_SEARCH,
            "a complete search places it (--search complete)",
            domains=landed(found),
        )
    ]


def _node_domains(cluster: Cluster, topology: Topology, level: str | None) -> dict[str, Path]:
    resolved = topology.resolve(level) if level is not None else None
    if resolved is None:
        return {}
    depth = topology.levels.index(resolved) + 1
    keys = topology.levels[:depth]
    return {
        n.name: tuple(n.labels[k] for k in keys) for n in cluster.nodes if all(k in n.labels for k in keys)
    }


def _domains_of(
    placement: Placement, cluster: Cluster, topology: Topology, level: str | None, group: Group | None
) -> tuple[Path, ...]:
    domain_of = _node_domains(cluster, topology, level)
    names = {p.name for p in group.all_pods()} if group is not None else None
    found = {
        domain_of[p.node] for p in placement.pods if p.node in domain_of and (names is None or p.pod in names)
    }
    return tuple(sorted(found))
