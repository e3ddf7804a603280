"""A restarted controller rebuilds each placed gang from its pods' records and admits it as the
scheduler's cycle admits any gang: the stored placement is the one document every placement is
stored as, saying which search found it."""

from __future__ import annotations

import json

from tests.controller.cluster import bind, cluster, controller, kueue_pod, pod

from toposched.controller.keys import ASSIGNMENT
from toposched.controller.kubeapi import PODS
from toposched.emit.result import placement_from_json
from toposched.model import Search
from toposched.store import WorkloadState
from toposched.wire.core import annotations_patch

NAMES = ("p0", "p1")


def placed_and_restarted(found_by: str) -> tuple[object, dict[str, object]]:
    """A gang placed, ungated and bound by one controller, its records saying ``found_by``
    found it; then a second controller on the same cluster."""
    api = cluster()
    for name in NAMES:
        api.put(PODS, kueue_pod(name))
    first = controller(api)
    for _ in range(3):
        first.step()
    before = first.scheduler.list()[0].placement
    for name in NAMES:
        current = pod(api, name)
        record = json.loads(current["metadata"]["annotations"][ASSIGNMENT])
        record["found_by"] = found_by
        api.patch(PODS, name, annotations_patch({ASSIGNMENT: json.dumps(record)}), namespace="default")
        bind(api, name)
    second = controller(api)
    assert second.step().restored == ("kueue:default/g",)
    return second, before


def test_a_restored_placement_says_which_search_found_it() -> None:
    """The controller once stored every restored placement as found by the faithful search."""
    second, before = placed_and_restarted(Search.COMPLETE.value)
    (workload,) = second.scheduler.list()
    assert workload.state in (WorkloadState.ADMITTED, WorkloadState.RUNNING)
    assert workload.placement["foundBy"] == "complete"
    restored = placement_from_json(workload.placement)
    original = placement_from_json(before)
    assert {(p.pod, p.node) for p in restored.pods} == {(p.pod, p.node) for p in original.pods}
    assert (restored.policy, restored.assignments) == (original.policy, original.assignments)
    assert set(workload.placement) == {"topology", "policy", "pods", "assignments", "foundBy", "note"}


def test_records_written_before_they_named_the_search_restore_as_faithful() -> None:
    second, _ = placed_and_restarted(Search.FAITHFUL.value)
    assert second.scheduler.list()[0].placement["foundBy"] == "faithful"
