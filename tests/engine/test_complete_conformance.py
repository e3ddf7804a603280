"""The conformance cases in both search modes: ``faithful`` (the default) is what the conformance
suite checks, and ``complete`` returns exactly that placement whenever there is one. Where the
faithful solver refuses, ``complete`` either keeps its reason or says it placed the gang."""

from __future__ import annotations

from dataclasses import replace

import pytest

from conformance import kai_case
from conformance import kueue_case as kc
from conformance.loader import Case, params
from toposched.engine import place_gang
from toposched.model import Gang, Placement, Policy, Search, Unschedulable
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree


@pytest.mark.parametrize("case", params("kueue", {"placement"}))
def test_kueue_cases(case: Case) -> None:
    nodes, pods = kc.nodes_of(case.data)
    snapshot = Snapshot.build(TopologyTree.build(kc.topology_of(case.data), nodes), pods)
    _compare(kc.gang_of(case.data), snapshot, None, kc.policy_of(case.data))


@pytest.mark.parametrize("case", params("kai", {"placement"}))
def test_kai_cases(case: Case) -> None:
    main, snapshots = kai_case.snapshots_of(case.data)
    _compare(kai_case.gang_of(case.data), main, snapshots, Policy.BINPACK)


def _compare(gang: Gang, snapshot: Snapshot, snapshots: dict[str, Snapshot] | None, policy: Policy) -> None:
    default = place_gang(gang, snapshot, policy=policy, snapshots=snapshots)
    faithful = place_gang(gang, snapshot, policy=policy, snapshots=snapshots, search=Search.FAITHFUL)
    complete = place_gang(gang, snapshot, policy=policy, snapshots=snapshots, search=Search.COMPLETE)
    assert default == faithful
    if isinstance(faithful, Placement):
        assert complete == faithful
        return
    if isinstance(complete, Unschedulable):
        assert replace(complete, note="", budget_exhausted=False) == faithful
        assert complete.note == "" or complete.note.startswith("complete search")  # "": invalid request
        return
    assert complete.found_by is Search.COMPLETE
    assert complete.note.startswith(f"faithful placement failed: {faithful.message}")
