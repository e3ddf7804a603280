"""A policy registered by name (``worst_fit``: one module, one registry entry) is used by
``toposched place``'s path, the service's and the simulator's alike, chosen by the caller or
named by the workload; a caller that does not know it refuses the name.

Two racks of two 8-GPU nodes: r0 is empty, r1 has 8 GPUs in use. A 2-pod Job of 4-GPU pods
required in a rack fits both: BestFit (``mixed``) takes the tighter r1, ``worstfit`` r0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from builders import HOST, RACK, node
from toposched.model import Cluster, Resources, RunningPod, Search, Topology

from .one_path import Answer, via_cli, via_service, via_simulator
from .worst_fit import NAME, policies

GPU = "nvidia.com/gpu"
TOPOLOGY = Topology.create("default", [RACK, HOST])


def cluster() -> Cluster:
    nodes = [
        node(f"r{r}-n{n}").at(rack=f"r{r}").alloc(**{GPU: 8}).build() for r in range(2) for n in range(2)
    ]
    used = [RunningPod("used", "other", "r1-n0", Resources({GPU: 8}))]
    return Cluster.create(nodes, used, [TOPOLOGY])


def job(annotations: dict[str, str] | None = None) -> list[Any]:
    template = {
        "metadata": {"annotations": {"kueue.x-k8s.io/podset-required-topology": RACK}},
        "spec": {"containers": [{"name": "main", "image": "x", "resources": {"requests": {GPU: "4"}}}]},
    }
    metadata = {"name": "job", "namespace": "default", "annotations": annotations or {}}
    spec = {"parallelism": 2, "completions": 2, "completionMode": "Indexed", "template": template}
    return [{"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec}]


def every_path(documents: list[Any], db: Path, **options: Any) -> Answer:
    cli = via_cli(documents, cluster(), search=Search.COMPLETE, **options)
    service = via_service(documents, cluster(), db, search=Search.COMPLETE, **options)
    simulated = via_simulator(documents, cluster(), search=Search.COMPLETE, **options)
    assert cli == service == simulated
    return cli


def racks(answer: Answer) -> set[str]:
    return {str(node_name).split("-")[0] for *_, node_name in answer.pods}


def test_the_callers_choice_of_a_registered_policy_places_alike_everywhere(tmp_path: Path) -> None:
    chosen = every_path(job(), tmp_path / "a.db", policy=NAME, policies=policies())
    assert chosen.placed and chosen.policy == NAME and racks(chosen) == {"r0"}
    default = every_path(job(), tmp_path / "b.db", policies=policies())
    assert default.placed and default.policy == "mixed" and racks(default) == {"r1"}


def test_a_workload_names_a_registered_policy(tmp_path: Path) -> None:
    named = every_path(
        job({"toposched.io/policy": NAME}), tmp_path / "a.db", policy="mixed", policies=policies()
    )
    assert named.placed and named.policy == NAME and racks(named) == {"r0"}  # the workload's word first


def test_a_caller_that_does_not_know_it_refuses_the_name(tmp_path: Path) -> None:
    refused = every_path(job({"toposched.io/policy": NAME}), tmp_path / "a.db")
    assert not refused.placed and refused.reason is not None
    assert "unknown policy 'worstfit'" in refused.reason
