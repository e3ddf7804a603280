"""Explanations on hand-built clusters: candidates with their shortfall, excluded nodes with the
reason and fix, and suggestions that each place when applied."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from builders import GPU, RACK, gang, node, podset, running, topology
from toposched.engine import SearchBudget, place
from toposched.engine.exact.backtrack import ExactSearch
from toposched.engine.explain import (
    ExclusionReason,
    Suggestion,
    SuggestionKind,
    apply_suggestion,
    explain_refusal,
)
from toposched.model import Cluster, Gang, Node, Placement, Policy, Taint, TaintEffect, Unschedulable

LEVELS = topology("rack", "host")


def rack(name: str, count: int, gpus: int = 4) -> list[Node]:
    return [node(f"{name}-n{i}").at(rack=name).alloc(gpu=gpus).build() for i in range(count)]


def refused(job: Gang, cluster: Cluster) -> Unschedulable:
    result = place(job, cluster, topology=LEVELS, policy=Policy.MIXED)
    assert isinstance(result, Unschedulable)
    return result


def every_suggestion_places(job: Gang, cluster: Cluster, suggestions: Sequence[Suggestion]) -> None:
    for suggestion in suggestions:
        changed, on, search = apply_suggestion(job, cluster, suggestion)
        assert isinstance(place(changed, on, topology=LEVELS, policy=Policy.MIXED, search=search), Placement)


def test_candidates_say_how_many_pods_fit_and_what_is_short() -> None:
    cluster = Cluster.create(rack("a", 2) + rack("b", 2), [running("busy", "b-n0", gpu=3)], [LEVELS])
    job = gang(podset("train", 3).requests(gpu=4).required(RACK).build())
    explanation = explain_refusal(job, cluster, refused(job, cluster), topology=LEVELS, policy=Policy.MIXED)
    assert explanation.group == "train" and explanation.level == RACK
    best, second = explanation.candidates
    assert (best.domain, best.fit, best.needed) == (("a",), 2, 3)
    assert best.shortfall == {GPU: 4}  # 12 GPUs needed, 8 free
    assert (second.domain, second.fit, second.shortfall) == (("b",), 1, {GPU: 7})


def test_suggestions_preferred_level_smaller_and_after_a_workload_ends() -> None:
    pods = [
        replace(running("serve", "a-n0", gpu=3), owner="inference"),
        replace(running("etl-0", "b-n0", gpu=1), owner="batch"),
        replace(running("etl-1", "b-n1", gpu=1), owner="batch"),
    ]
    cluster = Cluster.create(rack("a", 3) + rack("b", 3), pods, [LEVELS])
    job = gang(podset("train", 3).requests(gpu=4).required(RACK).build())
    explanation = explain_refusal(job, cluster, refused(job, cluster), topology=LEVELS, policy=Policy.MIXED)
    kinds = {s.kind: s for s in explanation.suggestions}
    assert set(kinds) == {
        SuggestionKind.PREFERRED_LEVEL,
        SuggestionKind.SMALLER,
        SuggestionKind.AFTER_WORKLOADS_END,
    }
    assert "2 of 3 pods of train fit now" in kinds[SuggestionKind.SMALLER].text
    ended = [s for s in explanation.suggestions if s.kind is SuggestionKind.AFTER_WORKLOADS_END]
    assert [(s.ended, s.domains) for s in ended] == [
        (("other/inference",), (("a",),)),
        (("other/batch",), (("b",),)),
    ]
    every_suggestion_places(job, cluster, explanation.suggestions)


def test_tainted_and_unusable_nodes_are_counted_with_the_taint_to_tolerate() -> None:
    taint = Taint("dedicated", "infer", TaintEffect.NO_SCHEDULE)
    nodes = [
        *[node(f"t{i}").at(rack="a").alloc(gpu=4).taint("dedicated", "infer").build() for i in range(2)],
        node("down").at(rack="a").alloc(gpu=4).not_ready().build(),
        node("off").at(rack="b").alloc(gpu=4).cordoned().build(),
        node("bare").alloc(gpu=4).build(),
    ]
    cluster = Cluster.create(nodes, [], [LEVELS])
    job = gang(podset("train", 1).requests(gpu=4).required(RACK).build())
    explanation = explain_refusal(job, cluster, refused(job, cluster), topology=LEVELS, policy=Policy.MIXED)
    found = {(e.reason, e.taint): e.nodes for e in explanation.exclusions}
    assert found == {
        (ExclusionReason.TAINT, taint): 2,
        (ExclusionReason.NOT_READY, None): 1,
        (ExclusionReason.CORDONED, None): 1,
        (ExclusionReason.MISSING_LABELS, None): 1,
    }
    assert explanation.suggestions == ()  # nothing but a toleration helps


def test_no_suggestion_when_nothing_would_place() -> None:
    cluster = Cluster.create(rack("a", 1), [], [LEVELS])
    job = gang(podset("train", 2).requests(gpu=8).build())
    explanation = explain_refusal(job, cluster, refused(job, cluster), topology=LEVELS, policy=Policy.MIXED)
    assert explanation.suggestions == ()
    assert [(e.reason, e.resource) for e in explanation.exclusions] == [(ExclusionReason.RESOURCE, GPU)]


def busy_cluster() -> tuple[Gang, Cluster]:
    """Three racks, each with a small running workload: every kind of suggestion has a try."""
    pods = [replace(running(f"w{i}", f"{r}-n0", gpu=3), owner=f"w{i}") for i, r in enumerate("abc")]
    cluster = Cluster.create(rack("a", 3) + rack("b", 3) + rack("c", 3), pods, [LEVELS])
    return gang(podset("train", 3).requests(gpu=4).required(RACK).build()), cluster


class Deadline:
    """An injected ``expired`` that turns true after ``calls`` questions (a clock passing its
    deadline), counting every question."""

    def __init__(self, calls: int) -> None:
        self.calls, self.asked = calls, 0

    def __call__(self) -> bool:
        self.asked += 1
        return self.asked > self.calls


def test_an_expired_budget_stops_the_suggestions_and_lists_what_was_left_out() -> None:
    job, cluster = busy_cluster()
    refusal = refused(job, cluster)
    full = explain_refusal(job, cluster, refusal, topology=LEVELS, policy=Policy.MIXED)
    assert {s.kind for s in full.suggestions} >= {SuggestionKind.SMALLER, SuggestionKind.AFTER_WORKLOADS_END}
    deadline = Deadline(calls=1)  # one placement, then the time is up
    cut = explain_refusal(
        job, cluster, refusal, topology=LEVELS, policy=Policy.MIXED, budget=SearchBudget(expired=deadline)
    )
    assert [s.kind for s in cut.suggestions] == [SuggestionKind.PREFERRED_LEVEL]
    assert cut.untried == (
        SuggestionKind.SMALLER,
        SuggestionKind.AFTER_WORKLOADS_END,
        SuggestionKind.COMPLETE_SEARCH,
    )
    assert deadline.asked <= 6  # each kind asks once more, then gives up
    assert full.untried == ()
    assert cut.candidates == full.candidates and cut.exclusions == full.exclusions


def test_a_probed_refusal_is_not_searched_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """``place(probe=True)`` ran the complete search; explaining its refusal does not run it twice."""
    runs: list[int] = []
    real = ExactSearch.resume

    def counted(self: ExactSearch, pause: Any = None) -> Any:
        runs.append(1)
        return real(self, pause)

    monkeypatch.setattr(ExactSearch, "resume", counted)
    cluster = Cluster.create(rack("a", 2) + rack("b", 2), [], [LEVELS])
    job = gang(podset("train", 5).requests(gpu=4).required(RACK).build())  # no rack holds 5
    refusal = place(job, cluster, topology=LEVELS, policy=Policy.MIXED, probe=True)
    assert isinstance(refusal, Unschedulable) and len(runs) == 1
    explanation = explain_refusal(job, cluster, refusal, topology=LEVELS, policy=Policy.MIXED, probed=True)
    assert len(runs) == 1
    assert SuggestionKind.COMPLETE_SEARCH not in {s.kind for s in explanation.suggestions}
