"""The ungater on a cluster that does not serve the upstream scheduling API (Kubernetes before
1.35, or without its feature gates): every such kind answers 404, is logged once and not asked
again, and the other gangs are placed.

On the API server double, serving every kind but those: the session's real API server serves
them, and a second control plane started only to lack them costs more than the case is worth. What
a real server answers for a kind it does not serve (404, ``ApiNotFoundError``) is checked on it by
``test_rest_calls.test_a_kind_the_cluster_does_not_serve_is_not_found``; the end-to-end runs on
the real server are in ``test_real_controller``.
"""

from __future__ import annotations

import logging

import pytest
from kubernetes.client import Configuration
from tests.controller.cluster import (
    TOPOLOGY,
    kueue_pod,
    node,
)
from tests.controller.kube_test_server import RESOURCES, KubeTestServer

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import (
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    KUBE_WORKLOADS,
    KUEUE_TOPOLOGIES,
    NODES,
    PODS,
)
from toposched.controller.rest import RestKubeApi
from toposched.controller.ungater_controller import UngaterController
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore
from toposched.wire.kueue import topology_object


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
        caplog.set_level(logging.INFO, logger="toposched.controller.ungater_controller")
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
