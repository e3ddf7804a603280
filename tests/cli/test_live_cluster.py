"""The commands that read a cluster read the live one of the kubeconfig when no ``--cluster``
file is given: on the real control plane (``real_apiserver``), ``place``, ``explain``,
``topology lint|show`` and ``defrag`` print exactly what they print for a dump of the same
objects; the listing is paged and bounded. Without a control plane: the errors a user meets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.cli.conftest import Invoke
from tests.controller.real_cluster import RACK, RealCluster
from tests.realkube.control_plane import ControlPlane

from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_TOPOLOGIES,
    KUEUE_TOPOLOGIES,
    NODES,
    PODS,
    ApiNotFoundError,
    KubeApiError,
    Listing,
    Object,
    Resource,
)
from toposched.controller.live_cluster import listed
from toposched.controller.rest import RestKubeApi

GPUS = "nvidia.com/gpu"


@pytest.fixture
def live(real_apiserver: ControlPlane, monkeypatch: pytest.MonkeyPatch) -> Iterator[RealCluster]:
    """Six nodes of 8 GPUs in two racks and the test's Kueue Topology on the real API server, and
    $KUBECONFIG naming its admin kubeconfig (as a user's shell would)."""
    cluster = RealCluster(real_apiserver)
    monkeypatch.setenv("KUBECONFIG", str(real_apiserver.kubeconfig))
    try:
        cluster.add_racks(6)
        yield cluster
    finally:
        cluster.close()


def add_pod(live: RealCluster, name: str, node: str | None, *, phase: str | None = None) -> None:
    """A pod asking for 8 GPUs, bound to ``node`` (or not), reported in ``phase``."""
    resources = {"requests": {GPUS: "8"}, "limits": {GPUS: "8"}}
    spec: dict[str, Any] = {"containers": [{"name": "c", "image": "pause", "resources": resources}]}
    if node is not None:
        spec["nodeName"] = node
    created = live.create(PODS, {"metadata": {"name": name}, "spec": spec})
    if phase is not None:
        path = f"/api/v1/namespaces/{live.namespace}/pods/{name}/status"
        live.plane.request("PUT", path, {**created, "status": {"phase": phase}})


def job(live: RealCluster, path: Path, pods: int) -> Path:
    """``pods`` pods of 8 GPUs that must share one rack."""
    template = {
        "metadata": {"annotations": {"kueue.x-k8s.io/podset-required-topology": RACK}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "pause", "resources": {"requests": {GPUS: "8"}}}],
        },
    }
    spec = {"parallelism": pods, "completions": pods, "completionMode": "Indexed", "template": template}
    obj = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "train", "namespace": live.run}}
    path.write_text(yaml.safe_dump({**obj, "spec": spec}), encoding="utf-8")
    return path


def dump(api: RestKubeApi, path: Path) -> Path:
    """``kubectl get nodes,pods,topologies -A -o json``: every object, the loader filters."""
    items: list[Object] = []
    for resource in (NODES, PODS, KUEUE_TOPOLOGIES, KAI_TOPOLOGIES, GROVE_CLUSTER_TOPOLOGIES):
        try:
            items += api.list(resource).items
        except ApiNotFoundError:
            continue
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}), encoding="utf-8")
    return path


def test_every_cluster_command_reads_the_live_cluster_as_its_dump(
    live: RealCluster, tmp_path: Path, invoke: Invoke
) -> None:
    # Rack r0 holds a running pod (8 GPUs of n0); r1's only pod has finished and one waits unbound:
    # neither uses capacity, so 3 pods of 8 GPUs fit in r1 only.
    add_pod(live, "running", live.node_name(0), phase="Running")
    add_pod(live, "done", live.node_name(3), phase="Succeeded")
    add_pod(live, "waiting", None)
    fits, too_big = job(live, tmp_path / "fits.yaml", 3), job(live, tmp_path / "big.yaml", 4)
    dumped = dump(live.admin, tmp_path / "dump.json")
    topology = ("--topology", live.run)
    commands = [
        ("place", fits, *topology),
        ("place", too_big, *topology),
        ("explain", too_big, *topology),
        ("topology", "lint", *topology),
        ("topology", "show", *topology),
        ("defrag", "--level", RACK, *topology),
    ]
    for command in commands:
        from_dump = invoke(*command, "--cluster", dumped, "-o", "json")
        from_live = invoke(*command, "-o", "json")
        assert from_live.exit_code == from_dump.exit_code, (command, from_live.stderr)
        assert from_live.stdout == from_dump.stdout, command
        assert from_live.stderr == from_dump.stderr, command
    placed = json.loads(invoke("place", fits, *topology, "-o", "json").stdout)
    assert {pod["node"] for pod in placed["pods"]} == {live.node_name(i) for i in (3, 4, 5)}
    refused = invoke("place", too_big, *topology, "-o", "json")
    assert refused.exit_code == 3


def test_context_and_kubeconfig_choose_the_live_cluster_as_kubectl(
    live: RealCluster, tmp_path: Path, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    fits = job(live, tmp_path / "fits.yaml", 3)
    monkeypatch.delenv("KUBECONFIG")
    kubeconfig = str(live.plane.kubeconfig)

    chosen = invoke("place", fits, "--topology", live.run, "--kubeconfig", kubeconfig, "--context", "admin")
    assert chosen.exit_code == 0, chosen.stderr

    unknown = invoke("place", fits, "--topology", live.run, "--kubeconfig", kubeconfig, "--context", "nope")
    assert unknown.exit_code == 2
    assert unknown.stderr.startswith("--context: no context 'nope' in --kubeconfig ")


def test_the_listing_is_paged_and_bounded(live: RealCluster) -> None:
    calls: list[str] = []
    api = live.admin

    class Counting:
        def list_page(self, resource: Resource, **kwargs: Any) -> tuple[Listing, str]:
            calls.append(kwargs["continue_token"])
            return api.list_page(resource, **kwargs)

    every = [n["metadata"]["name"] for n in api.list(NODES).items]
    paged = [n["metadata"]["name"] for n in listed(Counting(), NODES, page_size=2)]  # type: ignore[arg-type]
    assert paged == every
    assert len(calls) == -(-len(every) // 2) and all(calls[1:])  # one page per 2 nodes, each continued

    with pytest.raises(KubeApiError, match=r"list nodes: more than 3 objects"):
        list(listed(api, NODES, page_size=2, max_listed=3))


def test_without_a_cluster_file_or_a_kubeconfig_the_command_says_what_to_give(
    tmp_path: Path, invoke: Invoke
) -> None:
    fits = tmp_path / "job.yaml"
    fits.write_text("apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {}\n", encoding="utf-8")
    for command in (("place", fits), ("explain", fits), ("topology", "lint"), ("defrag", "--level", "x")):
        run = invoke(*command)
        assert run.exit_code == 2, command
        assert "--cluster: is missing, and there is no live cluster to read instead" in run.stderr, command
        assert "give a dump: --cluster FILE, or a kubeconfig" in run.stderr


def test_an_unreachable_live_cluster_exits_1_naming_the_server(tmp_path: Path, invoke: Invoke) -> None:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:9"}}],  # discard: nothing
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "x",
    }
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(yaml.safe_dump(config), encoding="utf-8")

    run = invoke("topology", "show", "--kubeconfig", kubeconfig)

    assert run.exit_code == 1
    assert run.stderr.startswith("0: list nodes: no response from http://127.0.0.1:9: ")
    assert "Traceback" not in run.stderr


def test_a_cluster_file_and_a_context_are_refused_together(
    tmp_path: Path, invoke: Invoke, sample_cluster: Path
) -> None:
    run = invoke("topology", "lint", "--cluster", sample_cluster, "--context", "prod")
    assert run.exit_code == 2
    assert run.stderr == (
        f"--context: chooses a live cluster, but --cluster {sample_cluster} gives a dump "
        "(leave out one of them)\n"
    )
