"""Which policy a gang is placed under, in the service: what the workload says
(``toposched.io/policy``), then the service's configuration (``SchedulerConfig.policy``), then
the front end's default (binpack for KAI, OSMO, Grove and upstream PodGroups), then mixed."""

from __future__ import annotations

from typing import Any

import pytest
from tests.scheduler.conftest import Env, job

from builders import GPU
from toposched.model import Policy, SpecError
from toposched.scheduler import SchedulerConfig


def kai_job(name: str, pods: int, annotations: dict[str, str] | None = None) -> list[Any]:
    """A KAI-annotated Job: its front end's default ordering is binpack."""
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": "default",
        "uid": f"uid-{name}",
        "annotations": {"kai.scheduler/topology": "default", **(annotations or {})},
    }
    container = {"name": "main", "image": "x", "resources": {"requests": {GPU: "1"}}}
    spec = {"parallelism": pods, "completions": pods, "template": {"spec": {"containers": [container]}}}
    return [{"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec}]


def placed_under(env: Env, documents: list[Any]) -> str:
    workload = env.submit(documents)
    assert env.sched.cycle().admitted == (workload,)
    return str(env.sched.get(workload).placement["policy"])


def test_a_kai_gang_follows_the_services_policy_over_its_front_ends_default() -> None:
    """The service's policy once did nothing for KAI gangs: their front end stamped binpack on
    every gang, and the gang's policy came first."""
    assert placed_under(Env(), kai_job("default", 2)) == Policy.BINPACK  # the front end's default
    assert (
        placed_under(Env(config=SchedulerConfig(policy=Policy.BESTFIT)), kai_job("chosen", 2))
        == Policy.BESTFIT
    )


@pytest.mark.parametrize("kind", ["kueue", "kai"])
def test_what_the_workload_names_comes_before_the_services_choice(kind: str) -> None:
    env = Env(config=SchedulerConfig(policy=Policy.BESTFIT))
    named = {"toposched.io/policy": "LeastFree"}
    if kind == "kai":
        documents = kai_job("named", 2, named)
    else:
        documents = job("named", 2)
        documents[0]["metadata"]["annotations"] = named
    assert placed_under(env, documents) == Policy.LEASTFREE


def test_a_policy_the_service_does_not_know_is_refused_at_submission_by_its_field() -> None:
    env = Env()
    documents = job("odd", 1)
    documents[0]["metadata"]["annotations"] = {"toposched.io/policy": "tightest"}
    with pytest.raises(SpecError) as refused:
        env.submit(documents)
    (problem,) = refused.value.problems
    assert problem.path == "metadata.annotations[toposched.io/policy]"
    assert "unknown policy 'tightest'" in problem.message and "bestfit" in problem.hint
    assert env.sched.list() == []  # nothing stored


def test_a_service_configured_with_an_unknown_policy_says_so() -> None:
    with pytest.raises(SpecError, match="unknown policy 'tightest'"):
        Env(config=SchedulerConfig(policy="tightest"))
