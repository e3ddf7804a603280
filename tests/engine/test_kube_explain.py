"""Explanations of refused kube-scheduler gangs: the failing PodGroup, its candidates and the
suggestions that apply to it (no preferred level: kube-scheduler has none)."""

from __future__ import annotations

from dataclasses import replace

from builders import RACK, composite, kube_gang, node, pod_group, running, topology
from toposched.engine import place
from toposched.engine.explain import SuggestionKind, apply_suggestion, explain_refusal
from toposched.model import Cluster, Placement, Policy, Unschedulable

LEVELS = topology("rack", "host")


def test_a_refused_pod_group_is_explained_with_suggestions_that_place() -> None:
    # Racks of 4-GPU nodes; a batch job holds 2 GPUs of a-n0 and of a-n1.
    #
    #   a: a-n0 (2 used) a-n1 (2 used) a-n2     b: b-n0 b-n1
    nodes = [
        node(f"{r}-n{i}").at(rack=r).alloc(gpu=4).build() for r, n in (("a", 3), ("b", 2)) for i in range(n)
    ]
    etl = [replace(running(f"etl-{i}", f"a-n{i}", gpu=2), owner="batch") for i in (0, 1)]
    cluster = Cluster.create(nodes, etl, [LEVELS])
    job = kube_gang(pod_group("leader", 1, gpu=1), pod_group("workers", 3, required=RACK, min_count=3, gpu=3))
    refusal = place(job, cluster, topology=LEVELS)
    assert isinstance(refusal, Unschedulable)
    explanation = explain_refusal(job, cluster, refusal, topology=LEVELS, policy=Policy.MIXED)
    assert (explanation.group, explanation.level) == ("workers", RACK)
    assert [(c.domain, c.fit, c.needed) for c in explanation.candidates] == [(("b",), 2, 3), (("a",), 1, 3)]
    kinds = [s.kind for s in explanation.suggestions]
    assert kinds == [SuggestionKind.AFTER_WORKLOADS_END]
    for suggestion in explanation.suggestions:
        changed, on, search = apply_suggestion(job, cluster, suggestion)
        assert isinstance(place(changed, on, topology=LEVELS, search=search), Placement)


def test_the_complete_search_is_suggested_when_the_per_pod_choice_misses() -> None:
    # The leader (2 CPUs) goes to the emptiest node, a-n1, and the worker (4 CPUs) then fits
    # nowhere; the leader on a-n0 leaves a-n1 whole.
    #
    #   a: a-n0 (2 of 4 used) a-n1
    nodes = [node(f"a-n{i}").at(rack="a").alloc(cpu=4).build() for i in (0, 1)]
    cluster = Cluster.create(nodes, [running("etl", "a-n0", cpu=2)], [LEVELS])
    job = kube_gang(
        composite(
            "lws",
            pod_group("leader", 1, cpu=2),
            pod_group("workers", 1, cpu=4),
            required=RACK,
            min_groups=2,
        )
    )
    refusal = place(job, cluster, topology=LEVELS)
    assert isinstance(refusal, Unschedulable)
    explanation = explain_refusal(job, cluster, refusal, topology=LEVELS, policy=Policy.MIXED)
    [complete] = [s for s in explanation.suggestions if s.kind is SuggestionKind.COMPLETE_SEARCH]
    changed, on, search = apply_suggestion(job, cluster, complete)
    found = place(changed, on, topology=LEVELS, search=search)
    assert isinstance(found, Placement)
    assert {p.pod: p.node for p in found.pods} == {"leader-0": "a-n0", "workers-0": "a-n1"}
