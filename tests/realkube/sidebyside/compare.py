"""kube-scheduler's placement of a case against toposched's, unit by unit.

kube-scheduler places each unit (a PodGroup, or a CompositePodGroup tree) in its own cycle, on
the cluster as the earlier units left it. So each unit is compared on its own: toposched places
it on the dump plus the pods kube-scheduler bound for the units before it. Agreement per
PodGroup: the same pods placed on the same nodes (pods of a PodGroup are alike, so the nodes as
a multiset), which is also the same domain for every group. Where they differ, a renaming that
sorts kube-scheduler's domains and nodes first is tried (``placing.Renaming``): if toposched
then makes kube-scheduler's choices, they were ties of equal score, drawn at random upstream.
Otherwise, in the same domains, both spreads over nodes are checked against kube-scheduler's
per-pod scores re-derived on their own (``ties``): two spreads it can both make are a tie too.

A Workload of several PodGroups is also placed whole, as a user runs ``toposched place``: where
kube-scheduler places some PodGroups and refuses another, toposched refuses the workload (its
documented difference: it admits a workload whole); that is noted beside the verdict.

A run whose first cycle for a group saw only part of its pods (``Observed.first_cycles``, an
upstream race: see ``run``) is ``raced``, not compared.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.realkube.sidebyside.cases import Case
from tests.realkube.sidebyside.gangs import Leaf, Unit
from tests.realkube.sidebyside.placing import Ours, Renaming, place
from tests.realkube.sidebyside.run import Observed
from tests.realkube.sidebyside.ties import both_tied, kube_order

from toposched.wire.scheduling import NO_FEASIBLE_PLACEMENTS

SAME, TIE, BOTH_REFUSE, DIFFER, ERROR, UNSETTLED, RACED = (
    "same",
    "tie",
    "both refuse",
    "differ",
    "error",
    "unsettled",
    "raced",
)
PLACEMENTS = re.compile(r"0/(\d+) placements are available")


@dataclass
class UnitVerdict:
    unit: str
    outcome: str
    detail: str = ""
    messages_agree: bool | None = None  # both refused: the same number of placements tried


@dataclass
class Verdict:
    case: Case
    outcome: str
    units: list[UnitVerdict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    attempts: int = 1  # runs it took (a raced run is repeated)

    @property
    def detail(self) -> str:
        return "; ".join(f"{u.unit}: {u.detail}" for u in self.units if u.detail)


def judge(case: Case, observed: Observed) -> Verdict:
    if not observed.settled:
        missing = [
            leaf.name for u in case.gang.units for leaf in u.leaves if leaf.name not in observed.conditions
        ]
        return Verdict(case, UNSETTLED, notes=[f"kube-scheduler did not settle: no condition on {missing}"])
    units = case.gang.units
    partial = [
        f"{leaf.name}: {observed.first_cycles[leaf.name]} of {len(leaf.pods)} pods"
        for unit in units
        for leaf in unit.leaves
        if observed.first_cycles.get(leaf.name, len(leaf.pods)) < len(leaf.pods)
    ]
    if partial:
        return Verdict(
            case, RACED, notes=[f"kube-scheduler's first cycle saw part of a group ({'; '.join(partial)})"]
        )
    verdicts: list[UnitVerdict] = []
    earlier: list[str] = []
    for unit in units:
        documents = all_documents(observed) if len(units) == 1 else unit_documents(observed, unit)
        dump = [*observed.dump, *observed.bound_pods(earlier)]
        verdicts.append(judge_unit(unit, observed, dump, documents))
        earlier += [pod for leaf in unit.leaves for pod in leaf.pods]
    outcome = _worst(v.outcome for v in verdicts)
    verdict = Verdict(case, outcome, verdicts)
    if len(units) > 1:
        verdict.notes += _whole_workload(case, observed)
    return verdict


def judge_unit(
    unit: Unit, observed: Observed, dump: Sequence[Mapping[str, Any]], documents: Sequence[Mapping[str, Any]]
) -> UnitVerdict:
    ours = place(dump, documents)
    if ours.error:
        return UnitVerdict(unit.name, ERROR, f"toposched rejected the input: {ours.error}")
    outcome, detail = compare_unit(unit, observed, ours)
    if outcome == BOTH_REFUSE:
        return UnitVerdict(unit.name, outcome, messages_agree=_messages_agree(unit, observed, ours))
    if outcome == SAME:
        return UnitVerdict(unit.name, SAME)
    tied = place(dump, documents, tie_renaming(unit, observed, dump))
    if tied.error:
        return UnitVerdict(unit.name, DIFFER, detail)
    if compare_unit(unit, observed, tied)[0] == SAME:
        return UnitVerdict(unit.name, TIE)
    spread = both_tied(unit, dump, observed.pods, observed.groups, observed.nodes, tied.nodes)
    if spread:
        return UnitVerdict(unit.name, TIE)
    if spread is None:
        detail += " (the search for equal node choices gave up)"
    return UnitVerdict(unit.name, DIFFER, detail)


def compare_unit(unit: Unit, observed: Observed, ours: Ours) -> tuple[str, str]:
    """SAME, BOTH_REFUSE or DIFFER, with what differs."""
    differences = []
    placed_any = False
    for leaf in unit.leaves:
        theirs = _nodes(observed.nodes.get(p) for p in leaf.pods)
        mine = _nodes(ours.nodes.get(p) for p in leaf.toposched_pods)
        placed_any = placed_any or bool(theirs) or bool(mine)
        if theirs != mine:
            differences.append(f"{leaf.name} kube {_show(theirs)} vs toposched {_show(mine)}")
    if differences:
        if ours.refused:
            differences.append(f"toposched refused: {ours.refused}")
        return DIFFER, "; ".join(differences)
    return (SAME if placed_any else BOTH_REFUSE), ""


def tie_renaming(unit: Unit, observed: Observed, dump: Sequence[Mapping[str, Any]]) -> Renaming:
    """Prefixes that sort kube-scheduler's domains (parents first) and nodes (in the order its
    PodGroups and their pods went) before every other name: generated names begin with a
    letter, the prefixes with 0."""
    labels = {
        i["metadata"]["name"]: i["metadata"].get("labels") or {} for i in dump if i.get("kind") == "Node"
    }
    leaves = {leaf.name: leaf for leaf in unit.leaves}
    values: dict[tuple[str, str], str] = {}
    for scope in unit.scopes:
        nodes = {observed.nodes.get(p) for name in scope.leaves for p in leaves[name].pods} - {None}
        found = {labels.get(str(n), {}).get(scope.key) for n in nodes} - {None}
        if len(found) == 1:
            value = str(found.pop())
            values.setdefault((scope.key, value), f"0{len(values):03d}-{value}")
    nodes: dict[str, str] = {}
    by_name = {leaf.name: leaf for leaf in unit.leaves}
    for leaf in (by_name[name] for name in kube_order(unit, observed.groups)):
        for pod in leaf.pods:
            node = observed.nodes.get(pod)
            if node and node not in nodes:
                nodes[node] = f"0{len(nodes):03d}-{node}"
    return Renaming(values, nodes)


def all_documents(observed: Observed) -> list[dict[str, Any]]:
    """What a user gives ``toposched place``: the Job, or the Workload, groups and pods."""
    if observed.job is not None:
        return [observed.job]
    return [*observed.groups, *observed.pods]


def unit_documents(observed: Observed, unit: Unit) -> list[dict[str, Any]]:
    """One unit's groups and pods (no Workload: it names every unit's template)."""
    names = set(unit.objects)
    pods = {p for leaf in unit.leaves for p in leaf.pods}
    groups = [g for g in observed.groups if g["kind"] != "Workload" and g["metadata"]["name"] in names]
    return [*groups, *(p for p in observed.pods if p["metadata"]["name"] in pods)]


def _whole_workload(case: Case, observed: Observed) -> list[str]:
    """How the whole workload, placed at once, compares with kube-scheduler's unit by unit."""
    ours = place(observed.dump, all_documents(observed))
    leaves = [leaf for unit in case.gang.units for leaf in unit.leaves]
    placed = [leaf.name for leaf in leaves if _nodes(observed.nodes.get(p) for p in leaf.pods)]
    if ours.refused and placed:
        return [
            f"whole workload: toposched refuses it ({ours.group}) where kube-scheduler placed "
            f"{', '.join(placed)} (toposched admits a workload whole)"
        ]
    return []


def _messages_agree(unit: Unit, observed: Observed, ours: Ours) -> bool | None:
    """Both refused: do kube-scheduler's condition and toposched's reason name the same count
    of placements (or both say there is none)? (Which placement's status follows is random
    upstream: a map's order.)"""
    ours_count = PLACEMENTS.search(ours.refused or "")
    theirs = [observed.conditions.get(leaf.name, {}).get("message", "") for leaf in unit.leaves]
    counts = {m.group(1) for text in theirs if (m := PLACEMENTS.search(text))}
    # No node has the constraint's label: no placement to count, the generator's status instead.
    counts |= {"none" for text in theirs if NO_FEASIBLE_PLACEMENTS in text}
    ours_key = "none" if NO_FEASIBLE_PLACEMENTS in (ours.refused or "") else None
    if ours_count is not None:
        ours_key = ours_count.group(1)
    if ours_key is None or not counts:
        return None
    return ours_key in counts


def _nodes(nodes: Iterable[str | None]) -> list[str]:
    return sorted(n for n in nodes if n)


def _show(nodes: list[str]) -> str:
    if not nodes:
        return "nothing"
    counts = Counter(nodes)
    return "[" + ", ".join(f"{n}x{c}" if c > 1 else n for n, c in sorted(counts.items())) + "]"


def _worst(outcomes: Iterable[str]) -> str:
    order = (ERROR, DIFFER, TIE, SAME, BOTH_REFUSE)
    found = set(outcomes)
    if found == {BOTH_REFUSE}:
        return BOTH_REFUSE
    for outcome in order:
        if outcome in found:
            return outcome
    return SAME


__all__ = ["Leaf", "Verdict", "judge"]
