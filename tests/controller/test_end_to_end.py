"""The assembled controller (``toposched.controller.app.run``) through the real client library
(``RestKubeApi``) against the API server test double: it does its job, and every request it
sends is one its mode's RBAC in deploy/ grants."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from kubernetes.client import Configuration
from tests.controller.cluster import (
    TOPOLOGY,
    kube_child,
    kube_composite,
    kube_pod,
    kube_podgroup,
    kueue_pod,
    node,
)
from tests.controller.kube_test_server import RESOURCES, KubeTestServer
from tests.controller.rbac import granted, permitted
from tests.controller.test_sync import service

from polling import wait_until
from toposched.controller.app import Options, run
from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    KUBE_WORKLOADS,
    KUEUE_TOPOLOGIES,
    NODES,
    PODS,
    KubeApi,
)
from toposched.controller.modes import Mode
from toposched.controller.rest import RestKubeApi
from toposched.controller.ungating import UngaterController
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore, Store
from toposched.wire.kueue import topology_object


@contextmanager
def running(api: KubeApi, options: Options, store: Store | None = None) -> Iterator[None]:
    stop = threading.Event()
    runner = threading.Thread(target=run, args=(api, options, stop), kwargs={"store": store})
    runner.start()
    try:
        yield
    finally:
        stop.set()
        runner.join(timeout=60)
    assert not runner.is_alive()


def test_the_ungater_places_and_ungates_a_gang_over_http_within_its_rbac(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add(KUEUE_TOPOLOGIES, topology_object(TOPOLOGY))
    for i in range(6):
        kube_test_server.add(NODES, node(i))
    for name in ("p0", "p1"):
        kube_test_server.add(PODS, kueue_pod(name))
    options = Options(identity="replica-a", metrics_port=0, interval=0.05)

    with running(kube_api, options):
        wait_until(
            lambda: not any(is_gated(kube_test_server.object(PODS, n)) for n in ("p0", "p1")),
            what="the gang is ungated",
            timeout=60,
        )

    pods = [kube_test_server.object(PODS, n) for n in ("p0", "p1")]
    hosts = [p["spec"]["nodeSelector"]["kubernetes.io/hostname"] for p in pods]
    racks = {kube_test_server.object(NODES, h)["metadata"]["labels"]["example.com/rack"] for h in hosts}
    assert len(set(hosts)) == 2 and len(racks) == 1  # the gang requires one rack
    assert all("toposched.io/assignment" in p["metadata"]["annotations"] for p in pods)
    undeclared = [c for c in kube_test_server.calls if not permitted(granted(Mode.UNGATER), c)]
    assert undeclared == []


def test_the_ungater_places_and_ungates_an_upstream_podgroup_over_http_within_its_rbac(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add(KUEUE_TOPOLOGIES, topology_object(TOPOLOGY))
    for i in range(6):
        kube_test_server.add(NODES, node(i))
    workers = ("w0", "w1", "w2")
    for name in workers:
        kube_test_server.add(PODS, kube_pod(name))
    kube_test_server.add(KUBE_PODGROUPS, kube_podgroup(min_count=3))
    options = Options(identity="replica-a", metrics_port=0, interval=0.05)

    with running(kube_api, options):
        wait_until(
            lambda: not any(is_gated(kube_test_server.object(PODS, n)) for n in workers),
            what="the PodGroup's pods are ungated",
            timeout=60,
        )

    pods = [kube_test_server.object(PODS, n) for n in workers]
    hosts = [p["spec"]["nodeSelector"]["kubernetes.io/hostname"] for p in pods]
    racks = {kube_test_server.object(NODES, h)["metadata"]["labels"]["example.com/rack"] for h in hosts}
    assert len(set(hosts)) == 3 and len(racks) == 1  # the PodGroup's constraint: one rack
    undeclared = [c for c in kube_test_server.calls if not permitted(granted(Mode.UNGATER), c)]
    assert undeclared == []


def test_the_ungater_places_and_ungates_a_composite_podgroup_tree_over_http_within_its_rbac(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add(KUEUE_TOPOLOGIES, topology_object(TOPOLOGY))
    for i in range(6):
        kube_test_server.add(NODES, node(i))
    members = {"l0": "leader", "w0": "workers", "w1": "workers"}
    for name, group in members.items():
        kube_test_server.add(PODS, kube_pod(name, group, gpus=4))
    kube_test_server.add(KUBE_COMPOSITE_PODGROUPS, kube_composite())
    kube_test_server.add(KUBE_PODGROUPS_V1ALPHA3, kube_child("leader", "train", 1))
    kube_test_server.add(KUBE_PODGROUPS_V1ALPHA3, kube_child("workers", "train", 2))
    options = Options(identity="replica-a", metrics_port=0, interval=0.05)

    with running(kube_api, options):
        wait_until(
            lambda: not any(is_gated(kube_test_server.object(PODS, n)) for n in members),
            what="the tree's pods are ungated",
            timeout=60,
        )

    pods = [kube_test_server.object(PODS, n) for n in members]
    hosts = [p["spec"]["nodeSelector"]["kubernetes.io/hostname"] for p in pods]
    racks = {kube_test_server.object(NODES, h)["metadata"]["labels"]["example.com/rack"] for h in hosts}
    assert len(racks) == 1  # the root CompositePodGroup's constraint: one rack
    undeclared = [c for c in kube_test_server.calls if not permitted(granted(Mode.UNGATER), c)]
    assert undeclared == []


def test_a_cluster_without_the_upstream_scheduling_api_is_watched_without_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    upstream = (KUBE_PODGROUPS, KUBE_PODGROUPS_V1ALPHA3, KUBE_WORKLOADS, KUBE_COMPOSITE_PODGROUPS)
    served = tuple(r for r in RESOURCES if r not in upstream)
    server = KubeTestServer(served).start()
    api = RestKubeApi(Configuration(host=server.url), request_timeout=10)
    try:
        server.add(KUEUE_TOPOLOGIES, topology_object(TOPOLOGY))
        for i in range(6):
            server.add(NODES, node(i))
        for name in ("p0", "p1"):
            server.add(PODS, kueue_pod(name))
        caplog.set_level(logging.INFO, logger="toposched.controller.ungating")
        clock = ManualClock(1000.0)
        ctl = UngaterController(api, Scheduler(MemoryStore(), clock), clock, watch_seconds=0)
        for _ in range(3):
            ctl.step()
        assert ctl.missing_kinds == set(upstream)
        assert not any(is_gated(server.object(PODS, n)) for n in ("p0", "p1"))  # the other gangs go on
        said = [r.getMessage() for r in caplog.records if "not served" in r.getMessage()]
        assert sorted(said) == [  # once each, then not asked again
            "scheduling.k8s.io/v1alpha3/compositepodgroups is not served by this cluster; not watched",
            "scheduling.k8s.io/v1alpha3/podgroups is not served by this cluster; not watched",
            "scheduling.k8s.io/v1beta1/podgroups is not served by this cluster; not watched",
            "scheduling.k8s.io/v1beta1/workloads is not served by this cluster; not watched",
        ]
    finally:
        api.close()
        server.stop()


def test_the_sync_mode_writes_the_services_objects_over_http_within_its_rbac(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    scheduler = service()
    options = Options(mode=Mode.SYNC, identity="replica-a", metrics_port=0, interval=0.05)

    with running(kube_api, options, store=scheduler.store):
        wait_until(
            lambda: all(
                kube_test_server.store.list(resource, None, lambda _: True)[0]
                for resource in (KAI_TOPOLOGIES, KAI_PODGROUPS, GROVE_CLUSTER_TOPOLOGIES)
            ),
            what="the KAI Topology, the PodGroups and the Grove ClusterTopology exist",
            timeout=60,
        )

    undeclared = [c for c in kube_test_server.calls if not permitted(granted(Mode.SYNC), c)]
    assert undeclared == []
