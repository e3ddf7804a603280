"""``compile --to kai`` writes the workload as KAI's docs annotate it (a Job or a JobSet the
PodGrouper builds the PodGroup from), and a PodGroup with its Pods only where KAI expects one.

Topology of every gang here (levels coarsest first)::

    zone
     └─ rack
         └─ host
"""

from __future__ import annotations

from typing import Any

import yaml
from tests.emit.inputs import examples

from builders import RACK, ZONE, topology
from toposched.emit.targets import TARGETS
from toposched.model import Gang, Group, PodSpec, Resources

TOPOLOGY = topology("zone", "rack", "host")
NAME, REQUIRED, PREFERRED = (
    "kai.scheduler/topology",
    "kai.scheduler/topology-required-placement",
    "kai.scheduler/topology-preferred-placement",
)
MIN_MEMBER = "kai.scheduler/batch-min-member"


def leaf(name: str, pods: int, **constraint: Any) -> Group:
    cpu = Resources.parse({"cpu": "1"})
    return Group(name, pods=tuple(PodSpec(f"{name}-{i}", i, cpu) for i in range(pods)), **constraint)


def kinds(objects: Any) -> list[str]:
    return [o["kind"] for o in objects]


def test_a_kueue_jobset_becomes_an_annotated_jobset_not_a_podgroup_and_pods() -> None:
    """The issue's case: a JobSet of a driver and 64 workers was a PodGroup and 65 Pods."""
    (source,) = [s for s in examples() if s.id == "example-jobset-rack-slices"]
    objects = TARGETS["kai"](source.gang, source.topology).objects
    assert kinds(objects) == ["Topology", "JobSet"]
    jobset = objects[1]
    assert jobset["metadata"]["labels"] == {"kai.scheduler/queue": "default-queue"}
    assert "annotations" not in jobset["metadata"]  # no constraint over both, and every job needed
    driver, workers = jobset["spec"]["replicatedJobs"]
    block = "cloud.provider.com/topology-block"
    for job, pods in ((driver, 1), (workers, 64)):
        assert job["template"]["metadata"]["annotations"] == {NAME: "default", REQUIRED: block}
        assert job["template"]["spec"]["parallelism"] == pods
        assert job["template"]["spec"]["template"]["spec"]["schedulerName"] == "kai-scheduler"
    assert len(yaml.safe_dump_all(objects).splitlines()) < 100  # was 1,263 lines


def test_one_group_is_a_job_with_its_constraint_and_minimum() -> None:
    gang = Gang(
        "job", Group("root", children=(leaf("main", 3, required=ZONE, preferred=RACK, min_member=2),))
    )
    (_, job) = TARGETS["kai"](gang, TOPOLOGY).objects
    assert job["kind"] == "Job"
    assert job["metadata"]["annotations"] == {
        NAME: TOPOLOGY.name,
        REQUIRED: ZONE,
        PREFERRED: RACK,
        MIN_MEMBER: "2",
    }
    assert job["spec"]["template"]["spec"]["schedulerName"] == "kai-scheduler"
    # A Job's PodGroup needs one pod unless told: a gang without a constraint still says its size.
    (_, plain) = TARGETS["kai"](Gang("plain", leaf("plain", 4)), TOPOLOGY).objects
    assert plain["metadata"]["annotations"] == {MIN_MEMBER: "4"}


def test_groups_are_replicated_jobs_with_the_root_constraint_on_the_jobset() -> None:
    root = Group(
        "root",
        required=ZONE,
        min_sub_group=1,
        children=(leaf("a", 2, required=RACK), leaf("b", 3, preferred=RACK, min_member=1)),
    )
    (_, jobset) = TARGETS["kai"](Gang("two", root), TOPOLOGY).objects
    assert jobset["kind"] == "JobSet"
    assert jobset["metadata"]["annotations"] == {NAME: TOPOLOGY.name, REQUIRED: ZONE, MIN_MEMBER: "1"}
    a, b = jobset["spec"]["replicatedJobs"]
    assert a["template"]["metadata"]["annotations"] == {NAME: TOPOLOGY.name, REQUIRED: RACK}
    assert b["template"]["metadata"]["annotations"] == {NAME: TOPOLOGY.name, PREFERRED: RACK, MIN_MEMBER: "1"}


def test_a_tree_deeper_than_a_jobset_keeps_the_podgroup_and_its_pods() -> None:
    inner = Group("pair", required=RACK, children=(leaf("x", 1), leaf("y", 1)))
    objects = TARGETS["kai"](Gang("deep", Group("root", children=(inner, leaf("z", 2)))), TOPOLOGY).objects
    assert kinds(objects) == ["Topology", "PodGroup", "Pod", "Pod", "Pod", "Pod"]
    assert all(o["spec"]["schedulerName"] == "kai-scheduler" for o in objects if o["kind"] == "Pod")


def test_bare_pods_stay_a_podgroup_and_pods() -> None:
    """An input of a PodGroup and its Pods is what KAI expects for bare pods: written as such."""
    gang = Gang("pods", Group("root", children=(leaf("w", 2, required=RACK),)), kind="PodGroup")
    assert kinds(TARGETS["kai"](gang, TOPOLOGY).objects) == ["Topology", "PodGroup", "Pod", "Pod"]
