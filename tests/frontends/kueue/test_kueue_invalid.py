"""Malformed workloads: every one is rejected with a WorkloadSpecError whose Problem names the field
(path), says what is wrong with the offending value (message) and how to fix it (hint)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest

from toposched.model import Topology

from .helpers import (
    BLOCK,
    GROUP,
    HOST,
    LAYERS,
    OFFSET,
    PREFERRED,
    RACK,
    REQUIRED,
    SAMPLE,
    SLICE_REQUIRED,
    SLICE_SIZE,
    UNCONSTRAINED,
    ZONE,
    ann,
    job,
    jobset,
    lws,
    mpijob,
    pod,
    pod_list,
    problems_of,
    replicated_job,
)

T = "spec.template"  # a Job's pod template
LEADER = "spec.leaderWorkerTemplate.leaderTemplate"
WORKER = "spec.leaderWorkerTemplate.workerTemplate"
TWO_LEVELS = Topology.create("two", [BLOCK, RACK])


def layers(*entries: tuple[str, Any]) -> str:
    import json

    return json.dumps([{"topology": level, "size": size} for level, size in entries])


def edited(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of ``doc`` with the dotted ``path`` set to ``value``."""
    result = copy.deepcopy(doc)
    target = result
    *parents, last = path.split(".")
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    target[last] = value
    return result


@dataclass(frozen=True)
class Case:
    source: Any
    path: str
    message: tuple[str, ...]
    topology: Topology | None = SAMPLE
    hint: str = ""


GROUPED = {GROUP: "sameGroup", REQUIRED: RACK}

CASES = {
    # --- input shape -----------------------------------------------------------------------
    "bad-yaml": Case(
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: [oops\n", "job.yaml:5:1", ("invalid YAML",)
    ),
    "bad-yaml-tab-indent": Case("kind: Job\nmetadata:\n\tname: x\n", "job.yaml:3:1", ("invalid YAML",)),
    "not-an-object": Case("- just\n- a list\n", "document", ("expected a Kubernetes object", "a list")),
    "empty-input": Case("# nothing here\n", "", ("the input has no documents",)),  # refused by the registry
    "unknown-kind": Case(
        {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d"}}, "kind", ('"Deployment"',)
    ),
    "wrong-api-version": Case(
        edited(jobset(replicated_job("w")), "apiVersion", "jobset.x-k8s.io/v1"),
        "apiVersion",
        ("jobset.x-k8s.io/v1alpha2",),
    ),
    "missing-kind": Case(
        {"apiVersion": "batch/v1", "metadata": {"name": "x"}}, "kind", ("is missing",), hint="Job"
    ),
    "missing-name": Case(job({REQUIRED: RACK}, name=None), "metadata.name", ("is missing",)),
    "two-workloads": Case([job(None), job(None, name="other")], "", ("2 objects", "2 Job")),
    "missing-pod-template": Case(edited(job(None), "spec.template", None), T, ("is missing",)),
    "no-containers": Case(
        edited(job(None), "spec.template.spec.containers", []), f"{T}.spec.containers", ("is empty",)
    ),
    # --- counts ----------------------------------------------------------------------------
    "negative-parallelism": Case(
        job(None, parallelism=-2), "spec.parallelism", ("must not be negative", "-2")
    ),
    "non-integer-parallelism": Case(job(None, parallelism="4"), "spec.parallelism", ("whole number", "'4'")),
    "non-integer-replicas": Case(
        jobset(replicated_job("w", replicas="two")),
        "spec.replicatedJobs[0].replicas",
        ("whole number", "'two'"),
    ),
    "zero-pods": Case(job(None, parallelism=0), "spec", ("no pods",)),
    "lws-size-zero": Case(lws(None, None, size=0), "spec.leaderWorkerTemplate.size", ("at least 1",)),
    "duplicate-replicated-job": Case(
        jobset(replicated_job("w"), replicated_job("w")), "spec.replicatedJobs[1].name", ("'w'", "twice")
    ),
    "mpijob-unknown-replica-type": Case(
        edited(mpijob(), "spec.mpiReplicaSpecs.Horker", {"replicas": 1}),
        "spec.mpiReplicaSpecs.Horker",
        ("'Horker'",),
    ),
    # --- pod spec --------------------------------------------------------------------------
    "bad-quantity": Case(
        job(None, requests={"cpu": "four"}),
        f"{T}.spec.containers[0].resources.requests.cpu",
        ("invalid quantity", "four"),
    ),
    "negative-quantity": Case(
        job(None, requests={"memory": "-1Gi"}),
        f"{T}.spec.containers[0].resources.requests.memory",
        ("negative",),
    ),
    "bad-toleration-operator": Case(
        edited(job(None), "spec.template.spec.tolerations", [{"key": "k", "operator": "Maybe"}]),
        f"{T}.spec.tolerations[0].operator",
        ("'Maybe'",),
    ),
    "node-selector-not-string": Case(
        edited(job(None), "spec.template.spec.nodeSelector", {"gpu": True}),
        f'{T}.spec.nodeSelector["gpu"]',
        ("must be a string", "True"),
    ),
    # --- levels ----------------------------------------------------------------------------
    "unknown-required-level": Case(
        job({REQUIRED: "cloud.provider.com/rack"}),
        ann(T, REQUIRED),
        (REQUIRED, '"cloud.provider.com/rack"', 'topology "sample"'),
        hint=RACK,
    ),
    "unknown-preferred-level": Case(job({PREFERRED: "rackz"}), ann(T, PREFERRED), (PREFERRED, '"rackz"')),
    "not-a-label-key-without-topology": Case(
        job({REQUIRED: "Rack!"}), ann(T, REQUIRED), ('"Rack!"', "not a node label key"), topology=None
    ),
    "required-and-preferred": Case(
        job({REQUIRED: RACK, PREFERRED: BLOCK}),
        f"{T}.metadata.annotations",
        ("mutually exclusive", REQUIRED, PREFERRED),
    ),
    "required-and-unconstrained": Case(
        job({REQUIRED: RACK, UNCONSTRAINED: "true"}),
        f"{T}.metadata.annotations",
        ("mutually exclusive", UNCONSTRAINED),
    ),
    "unconstrained-not-boolean": Case(
        job({UNCONSTRAINED: "yes"}), ann(T, UNCONSTRAINED), ('"yes"', "not a boolean")
    ),
    "unknown-podset-annotation": Case(
        job({"kueue.x-k8s.io/podset-required-topolgy": RACK}),
        ann(T, "kueue.x-k8s.io/podset-required-topolgy"),
        ("unknown annotation",),
        hint=REQUIRED,
    ),
    "annotation-on-the-job-itself": Case(
        edited(job(None), "metadata.annotations", {REQUIRED: RACK}),
        ann("", REQUIRED).lstrip("."),
        ("ignores it",),
    ),
    "annotation-not-a-string": Case(
        job({REQUIRED: [RACK]}), ann(T, REQUIRED), ("must be a string", "a list")
    ),
    # --- one level on every PodSet ---------------------------------------------------------
    "explicit-unconstrained-next-to-required": Case(
        jobset(replicated_job("a", {REQUIRED: RACK}), replicated_job("b", {UNCONSTRAINED: "true"})),
        "spec.replicatedJobs[1].template.spec.template.metadata.annotations",
        ('PodSet "b"', UNCONSTRAINED, 'PodSet "a"'),
    ),
    "slice-only-next-to-preferred": Case(
        jobset(
            replicated_job("a", {PREFERRED: RACK}),
            replicated_job("b", {SLICE_REQUIRED: HOST, SLICE_SIZE: "1"}, parallelism=2),
        ),
        "spec.replicatedJobs[1].template.spec.template.metadata.annotations",
        ('PodSet "b"', REQUIRED, PREFERRED),
    ),
    # --- single-layer slices ---------------------------------------------------------------
    "slice-size-not-dividing": Case(
        job({REQUIRED: BLOCK, SLICE_REQUIRED: RACK, SLICE_SIZE: "3"}, parallelism=8),
        ann(T, SLICE_SIZE),
        ('"3"', "does not evenly divide", "8 pods"),
        hint="1, 2, 4, 8",
    ),
    "slice-size-above-count": Case(
        job({REQUIRED: BLOCK, SLICE_REQUIRED: RACK, SLICE_SIZE: "16"}, parallelism=8),
        ann(T, SLICE_SIZE),
        ('"16"', "larger than", "8 pods"),
    ),
    "slice-size-zero": Case(
        job({REQUIRED: BLOCK, SLICE_REQUIRED: RACK, SLICE_SIZE: "0"}), ann(T, SLICE_SIZE), ('"0"', ">= 1")
    ),
    "slice-size-not-a-number": Case(
        job({REQUIRED: BLOCK, SLICE_REQUIRED: RACK, SLICE_SIZE: "four"}),
        ann(T, SLICE_SIZE),
        ('"four"', "whole number"),
    ),
    "slice-size-missing": Case(
        job({REQUIRED: BLOCK, SLICE_REQUIRED: RACK}), ann(T, SLICE_SIZE), (SLICE_REQUIRED, "is missing")
    ),
    "slice-size-without-slice-level": Case(
        job({REQUIRED: BLOCK, SLICE_SIZE: "2"}), ann(T, SLICE_SIZE), ('"2"', f"needs {SLICE_REQUIRED}")
    ),
    "slice-above-main-level": Case(
        job({REQUIRED: RACK, SLICE_REQUIRED: BLOCK, SLICE_SIZE: "2"}),
        ann(T, SLICE_REQUIRED),
        (f'"{BLOCK}"', "above the PodSet level", f'"{RACK}"'),
        hint=HOST,
    ),
    "slice-level-unknown": Case(
        job({REQUIRED: BLOCK, SLICE_REQUIRED: "host", SLICE_SIZE: "2"}),
        ann(T, SLICE_REQUIRED),
        ('"host"', "not a level"),
    ),
    # --- multi-layer slices ----------------------------------------------------------------
    "layers-bad-json": Case(
        job({REQUIRED: ZONE, LAYERS: f'[{{"topology": "{BLOCK}", "size": 2}},]'}),
        ann(T, LAYERS),
        ("not valid JSON",),
        hint="no trailing commas",
    ),
    "layers-nested-too-deep": Case(  # read bounded: Python's decoder would raise RecursionError
        job({REQUIRED: ZONE, LAYERS: "[" * 100_000}),
        ann(T, LAYERS),
        ("not valid JSON", "nested more than 64 levels deep"),
        hint="no trailing commas",
    ),
    "layers-duplicate-key": Case(
        job({REQUIRED: ZONE, LAYERS: f'[{{"topology": "{BLOCK}", "size": 2, "size": 4}}]'}),
        ann(T, LAYERS),
        ("not valid JSON", "has the key 'size' twice"),
    ),
    "layers-not-a-list": Case(
        job({REQUIRED: ZONE, LAYERS: f'{{"topology": "{BLOCK}", "size": 2}}'}),
        ann(T, LAYERS),
        ("list of 1 to 3", "a mapping"),
    ),
    "layers-empty": Case(job({REQUIRED: ZONE, LAYERS: "[]"}), ann(T, LAYERS), ("0 layers",)),
    "layers-four": Case(
        job({REQUIRED: ZONE, LAYERS: layers((BLOCK, 8), (RACK, 4), (HOST, 2), (HOST, 1))}, parallelism=8),
        ann(T, LAYERS),
        ("1 to 3", "4 layers"),
    ),
    "layers-more-than-levels": Case(
        job({LAYERS: layers((BLOCK, 4), (RACK, 2), (HOST, 1))}),
        ann(T, LAYERS),
        ("3 layers", 'topology "two" has 2 levels'),
        topology=TWO_LEVELS,
    ),
    "layers-coarse-after-fine": Case(
        job({REQUIRED: ZONE, LAYERS: layers((RACK, 4), (BLOCK, 2))}),
        f"{ann(T, LAYERS)}[1].topology",
        (f'"{BLOCK}"', "strictly finer", f'"{RACK}"'),
    ),
    "layers-same-level-twice": Case(
        job({REQUIRED: ZONE, LAYERS: layers((RACK, 4), (RACK, 2))}, parallelism=8),
        f"{ann(T, LAYERS)}[1].topology",
        ("strictly finer",),
        topology=None,
    ),
    "layers-size-not-dividing": Case(
        job({REQUIRED: ZONE, LAYERS: layers((BLOCK, 64), (RACK, 24))}, parallelism=128),
        f"{ann(T, LAYERS)}[1].size",
        ("24", "does not evenly divide", "64"),
    ),
    "layers-first-size-not-dividing-count": Case(
        job({REQUIRED: ZONE, LAYERS: layers((BLOCK, 6), (RACK, 3))}, parallelism=8),
        f"{ann(T, LAYERS)}[0].size",
        ("first layer size 6", "8 pods"),
    ),
    "layers-first-above-main": Case(
        job({REQUIRED: RACK, LAYERS: layers((BLOCK, 4), (HOST, 2))}),
        f"{ann(T, LAYERS)}[0].topology",
        (f'"{BLOCK}"', "above the PodSet level"),
    ),
    "layers-with-single-layer-annotation": Case(
        job({REQUIRED: ZONE, SLICE_REQUIRED: RACK, SLICE_SIZE: "2", LAYERS: layers((BLOCK, 4))}),
        ann(T, LAYERS),
        ("may not be combined with", SLICE_REQUIRED),
    ),
    "layers-unknown-level": Case(
        job({REQUIRED: ZONE, LAYERS: layers(("cloud.provider.com/block", 4))}),
        f"{ann(T, LAYERS)}[0].topology",
        ('"cloud.provider.com/block"', "not a level"),
    ),
    "layers-size-missing": Case(
        job({REQUIRED: ZONE, LAYERS: f'[{{"topology": "{BLOCK}"}}]'}),
        f"{ann(T, LAYERS)}[0].size",
        ("None", ">= 1"),
    ),
    "layers-unknown-field": Case(
        job({REQUIRED: ZONE, LAYERS: f'[{{"level": "{BLOCK}", "topology": "{BLOCK}", "size": 4}}]'}),
        f"{ann(T, LAYERS)}[0]",
        ("unknown field(s) level",),
    ),
    # --- PodSet groups ---------------------------------------------------------------------
    "group-unconstrained": Case(
        lws({GROUP: "sameGroup", UNCONSTRAINED: "true"}, {GROUP: "sameGroup", UNCONSTRAINED: "true"}, size=2),
        ann(LEADER, GROUP),
        ('PodSet group "sameGroup"', 'PodSet "leader"', "neither"),
    ),
    "group-different-levels": Case(
        lws(GROUPED, {GROUP: "sameGroup", PREFERRED: RACK}),
        f"{WORKER}.metadata.annotations",
        ('"sameGroup"', f'required "{RACK}"', f'preferred "{RACK}"'),
    ),
    "group-three-podsets": Case(
        jobset(replicated_job("a", GROUPED), replicated_job("b", GROUPED), replicated_job("c", GROUPED)),
        ann("spec.replicatedJobs[2].template.spec.template", GROUP),
        ('"sameGroup"', "3 PodSet(s)", "exactly two"),
    ),
    "group-without-single-pod": Case(
        jobset(replicated_job("a", GROUPED, parallelism=2), replicated_job("b", GROUPED, parallelism=4)),
        ann("spec.replicatedJobs[0].template.spec.template", GROUP),
        ('"sameGroup"', "exactly 1 pod", "2 and 4"),
    ),
    "group-with-slices": Case(
        lws(GROUPED, {**GROUPED, SLICE_REQUIRED: HOST, SLICE_SIZE: "1"}),
        ann(WORKER, GROUP),
        ('"sameGroup"', "may not be combined with", SLICE_REQUIRED),
    ),
    "group-name-is-a-number": Case(
        lws({GROUP: "123", REQUIRED: RACK}, {GROUP: "123", REQUIRED: RACK}),
        ann(LEADER, GROUP),
        ('"123"', "number"),
    ),
    # --- pod index offset ------------------------------------------------------------------
    "offset-negative": Case(
        job({REQUIRED: RACK, OFFSET: "-1"}), ann(T, OFFSET), ('"-1"', "non-negative integer")
    ),
    "offset-not-a-number": Case(
        job({REQUIRED: RACK, OFFSET: "one"}), ann(T, OFFSET), ('"one"', "non-negative integer")
    ),
    "offset-with-group": Case(lws(GROUPED, {**GROUPED, OFFSET: "1"}), ann(WORKER, OFFSET), ('"1"', GROUP)),
    # --- pod groups ------------------------------------------------------------------------
    "pod-group-total-mismatch": Case(
        pod_list(pod("a", total=3), pod("b", total=3)),
        ann("items[0]", "kueue.x-k8s.io/pod-group-total-count"),
        ('"g"', "3", "2 pod(s)"),
    ),
    "pod-group-total-missing": Case(
        pod_list(pod("a", total=2), pod("b")),
        ann("items[1]", "kueue.x-k8s.io/pod-group-total-count"),
        ("is missing",),
    ),
    "pod-group-total-not-a-number": Case(
        pod_list(pod("a", total="two"), pod("b", total="two")),
        ann("items[0]", "kueue.x-k8s.io/pod-group-total-count"),
        ('"two"', ">= 1"),
    ),
    "pod-without-group-label": Case(
        pod_list(pod("a", total=2), pod("b", group=None)),
        'items[1].metadata.labels["kueue.x-k8s.io/pod-group-name"]',
        ("'b'", "no kueue.x-k8s.io/pod-group-name"),
    ),
    "pods-of-two-groups": Case(
        pod_list(pod("a", total=1), pod("b", group="h", total=1)), "metadata.labels", ("2 groups", "g, h")
    ),
    "error-paths-inside-a-list": Case(
        pod_list(job({REQUIRED: "nowhere"})), ann("items[0].spec.template", REQUIRED), ('"nowhere"',)
    ),
    "pod-group-totals-differ": Case(
        pod_list(pod("a", total=2), pod("b", total=3)),
        "metadata.annotations",
        ("differs between pods", "2, 3"),
    ),
    "pod-names-repeat": Case(
        pod_list(pod("a", total=2), pod("a", total=2)), "items[1].metadata.name", ("'a'", "twice")
    ),
    "pods-name-two-queues": Case(
        pod_list(pod("a", total=2, queue="q1"), pod("b", total=2, queue="q2")),
        "metadata.labels",
        ("2 LocalQueues", "q1, q2"),
    ),
}


@pytest.mark.parametrize("case", [pytest.param(case, id=name) for name, case in CASES.items()])
def test_rejected(case: Case) -> None:
    problems = problems_of(case.source, case.topology)
    matching = [p for p in problems if p.path == case.path]
    assert matching, f"no problem at {case.path!r}; got {[str(p) for p in problems]}"
    assert any(all(text in p.message for text in case.message) for p in matching), [str(p) for p in matching]
    assert all(p.hint for p in matching if p.path.startswith("spec.template.metadata")), (
        "annotation problems need hints"
    )
    if case.hint:
        assert any(case.hint in p.hint for p in matching), [p.hint for p in matching]


def test_table_is_large_enough() -> None:
    assert len(CASES) >= 25


def test_every_problem_is_collected_at_once() -> None:
    doc = job(
        {
            REQUIRED: "cloud.provider.com/rack",
            SLICE_REQUIRED: HOST,
            SLICE_SIZE: "3",
            "kueue.x-k8s.io/podset-typo": "x",
            OFFSET: "-4",
        },
        parallelism=8,
        requests={"cpu": "lots"},
        name=None,
    )
    paths = [p.path for p in problems_of(doc)]
    assert paths == sorted(set(paths), key=paths.index), "no duplicates"
    assert set(paths) == {
        "metadata.name",
        f"{T}.spec.containers[0].resources.requests.cpu",
        ann(T, "kueue.x-k8s.io/podset-typo"),
        ann(T, REQUIRED),
        ann(T, SLICE_SIZE),
        ann(T, OFFSET),
    }


def test_one_problem_per_template_for_lws_replicas() -> None:
    problems = problems_of(lws({REQUIRED: "nowhere"}, {REQUIRED: RACK}, replicas=3))
    assert [p.path for p in problems] == [ann(LEADER, REQUIRED)]


def test_invalid_level_does_not_also_report_a_missing_level() -> None:
    doc = jobset(replicated_job("a", {REQUIRED: "nowhere"}), replicated_job("b", {REQUIRED: RACK}))
    assert len(problems_of(doc)) == 1
