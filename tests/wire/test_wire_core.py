"""Core objects built by ``wire.core`` read back through the cluster front end as what they say."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toposched.intake.cluster import load_cluster
from toposched.model import PodSpec, Resources, Taint, TaintEffect
from toposched.model.podspec import parse_tolerations
from toposched.wire.batch import job_object
from toposched.wire.core import (
    PLACEHOLDER_IMAGE,
    list_object,
    node_object,
    pinned_affinity,
    pod_object,
    pod_spec_object,
    toleration_for,
    unpinned_affinity,
)

GPU = "nvidia.com/gpu"


def test_node_and_running_pod_read_back() -> None:
    taint = Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE)
    node = node_object(
        "n1", {"rack": "r1"}, {GPU: "4", "cpu": "64"}, taints=[taint], unschedulable=True, ready=False
    )
    requests = {"requests": {GPU: "2"}}
    pod = pod_object(
        "p1",
        "team",
        spec={"containers": [{"name": "c", "resources": requests}]},
        node_name="n1",
        phase="Running",
    )
    cluster = load_cluster(json.dumps(list_object([node, pod])))
    (read,) = cluster.nodes
    assert read.name == "n1" and dict(read.labels) == {"rack": "r1"}
    assert read.allocatable == Resources.parse({GPU: "4", "cpu": "64"})
    assert read.taints == (taint,) and read.unschedulable and not read.ready
    (running,) = cluster.pods
    assert (running.name, running.namespace, running.node) == ("p1", "team", "n1")
    assert running.requests.get(GPU) == Resources.parse({GPU: "2"}).get(GPU)


def test_pending_pod_has_no_node_or_status() -> None:
    pod = pod_object("p", "default", labels={"a": "b"})
    assert "spec" not in pod and "status" not in pod
    assert pod["metadata"] == {"name": "p", "namespace": "default", "labels": {"a": "b"}}


@pytest.mark.parametrize(
    "taint",
    [Taint("dedicated", "gpu", TaintEffect.NO_SCHEDULE), Taint("maintenance", "", TaintEffect.NO_EXECUTE)],
)
def test_toleration_admits_exactly_its_taint(taint: Taint) -> None:
    (toleration,) = parse_tolerations([toleration_for(taint)])
    assert toleration.tolerates(taint)
    assert not toleration.tolerates(Taint("other", taint.value, taint.effect))


def test_a_pod_without_an_input_spec_gets_what_the_api_server_requires() -> None:
    """No image in the model, GPUs requested: the pause image, and limits equal to the requests
    for what cannot be overcommitted (cpu and memory may stay below their limits)."""
    pod = PodSpec("p", 0, Resources.parse({"cpu": "2", "memory": "1Gi", GPU: "4", "hugepages-2Mi": "2Mi"}))
    (container,) = pod_spec_object(pod)["containers"]
    assert container["image"] == PLACEHOLDER_IMAGE
    assert container["resources"]["limits"] == {GPU: "4", "hugepages-2Mi": "2Mi"}


def test_the_input_spec_is_kept_without_what_binds_it_to_its_scheduler() -> None:
    written: dict[str, Any] = {
        "restartPolicy": "OnFailure",
        "schedulerName": "kai-scheduler",
        "schedulingGates": [{"name": "kueue.x-k8s.io/topology"}],
        "schedulingGroup": {"podGroupName": "g"},
        "nodeName": "n1",
        "volumes": [{"name": "data", "emptyDir": {}}],
        "initContainers": [{"name": "fetch", "image": "busybox", "resources": {"requests": {GPU: "1"}}}],
        "containers": [
            {
                "name": "train",
                "image": "trainer:1",
                "resources": {"requests": {GPU: "8"}, "limits": {GPU: "8"}},
            }
        ],
    }
    spec = pod_spec_object(PodSpec("p", 0, Resources.parse({GPU: "8"}), template=written))
    assert set(spec) == {"restartPolicy", "volumes", "initContainers", "containers"}
    assert spec["containers"] == written["containers"]
    assert spec["initContainers"][0]["resources"]["limits"] == {GPU: "1"}  # what the server requires
    assert "limits" not in written["initContainers"][0]["resources"]  # the input is not changed


@pytest.mark.parametrize(
    ("written", "kept"), [(None, "Never"), ("Always", "Never"), ("OnFailure", "OnFailure")]
)
def test_a_job_template_restarts_as_the_input_says_when_a_job_may(written: str | None, kept: str) -> None:
    spec = {"containers": [{"name": "c", "image": "i"}]} | ({"restartPolicy": written} if written else {})
    job = job_object("j", "ns", 2, spec)
    assert job["spec"]["template"]["spec"]["restartPolicy"] == kept


def by_name(node: str) -> dict[str, object]:
    return {"key": "metadata.name", "operator": "In", "values": [node]}


RACK_TERM = {"matchExpressions": [{"key": "rack", "operator": "In", "values": ["r1"]}]}
OWN_AFFINITIES = {
    "none": None,
    "preferred only": {
        "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": RACK_TERM}]
        }
    },
    "two terms": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [RACK_TERM, {"matchFields": [by_name("n9")]}]
            }
        },
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": []},
    },
    "already on that node": {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchFields": [by_name("n1")]}]
            }
        }
    },
}


@pytest.mark.parametrize("own", OWN_AFFINITIES)
def test_a_pin_by_name_narrows_each_term_and_comes_off_again(own: str) -> None:
    affinity = OWN_AFFINITIES[own]

    pinned = pinned_affinity(affinity, "n1")

    terms = pinned["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms and all(term["matchFields"][-1] == by_name("n1") for term in terms)
    assert {k: v for k, v in pinned.items() if k != "nodeAffinity"} == {
        k: v for k, v in (affinity or {}).items() if k != "nodeAffinity"
    }
    assert unpinned_affinity(pinned, "n1") == affinity


def test_an_empty_term_matches_no_node_and_is_left_as_it_is() -> None:
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{}, RACK_TERM]}
        }
    }

    pinned = pinned_affinity(affinity, "n1")

    terms = pinned["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{}, {**RACK_TERM, "matchFields": [by_name("n1")]}]
    assert unpinned_affinity(pinned, "n1") == affinity
