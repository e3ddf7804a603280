"""deploy/'s RBAC against the calls the controller makes, on the real API server: a run of every
kind of call each mode makes (``permissions.PERMISSIONS``), as that mode's ServiceAccount, is
refused nothing, and the server's audit log shows each declared permission used. An apply that
creates its object is authorized as a create too (201 in the log).

The ungater's calls: leader election (get, create, update of its Lease), an informer's list and
watch of every kind it reads, cluster-wide, a pod's assignment (merge patch), its ungating
(strategic patch) and an eviction (delete). The sync mode's: its Lease, the KAI Topologies it lists,
a stale one deleted, and a KAI Topology, a PodGroup and a Grove ClusterTopology applied.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from tests.controller.cluster import kube_pod
from tests.controller.kube_test_requests import Call
from tests.controller.rbac import permitted
from tests.controller.real_audit import requests_with
from tests.controller.real_cluster import CONTROLLER_NAMESPACE, ControllerAccounts, RealCluster
from tests.realkube.audit import AuditEvent

from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    KUBE_WORKLOADS,
    KUEUE_TOPOLOGIES,
    LEASES,
    NODES,
    PODS,
    ApiNotFoundError,
    PatchType,
    Resource,
)
from toposched.controller.modes import Mode
from toposched.controller.permissions import PERMISSIONS
from toposched.controller.rest import RestKubeApi, connect
from toposched.wire.core import annotations_patch

GATE = "toposched.io/topology"


def elect(cluster: RealCluster, api: RestKubeApi) -> None:
    """Leader election as a lease holder does it: read, create when absent, renew by update."""
    try:
        api.get(LEASES, cluster.lease, CONTROLLER_NAMESPACE)
    except ApiNotFoundError:
        api.create(
            LEASES,
            {
                "metadata": {"name": cluster.lease, "namespace": CONTROLLER_NAMESPACE},
                "spec": {"holderIdentity": "a"},
            },
        )
    lease = api.get(LEASES, cluster.lease, CONTROLLER_NAMESPACE)
    api.replace(LEASES, {**lease, "spec": {"holderIdentity": "a", "leaseDurationSeconds": 15}})


def inform(api: RestKubeApi, resource: Resource) -> None:
    """An informer's calls: list, then watch from the listing (a one-second watch)."""
    listing = api.list(resource)
    list(api.watch(resource, listing.resource_version, timeout_seconds=1))


def run_ungater(cluster: RealCluster, api: RestKubeApi) -> None:
    elect(cluster, api)
    informed = (KAI_TOPOLOGIES, KUEUE_TOPOLOGIES, GROVE_CLUSTER_TOPOLOGIES, NODES, PODS, KAI_PODGROUPS)
    upstream = (KUBE_PODGROUPS_V1ALPHA3, KUBE_PODGROUPS, KUBE_WORKLOADS, KUBE_COMPOSITE_PODGROUPS)
    with ThreadPoolExecutor(len(informed) + len(upstream)) as informers:  # side by side, as the controller's
        list(informers.map(lambda r: inform(api, r), (*informed, *upstream)))
    for name in ("worker-0", "worker-1"):
        cluster.create(PODS, kube_pod(name, gpus=1))
    namespace = cluster.namespace
    api.patch(PODS, "worker-0", annotations_patch({"toposched.io/assignment": "{}"}), namespace)
    ungate = {
        "spec": {"nodeSelector": {"rack": "r1"}, "schedulingGates": [{"$patch": "delete", "name": GATE}]}
    }
    api.patch(PODS, "worker-0", ungate, namespace, patch_type=PatchType.STRATEGIC)
    api.delete(PODS, "worker-1", namespace)  # evicted from a failed node


def run_sync(cluster: RealCluster, api: RestKubeApi) -> None:
    elect(cluster, api)
    stale, fresh = f"{cluster.run}-stale", f"{cluster.run}-pool"
    levels = {"levels": [{"nodeLabel": "rack"}, {"nodeLabel": "kubernetes.io/hostname"}]}
    cluster.create(KAI_TOPOLOGIES, {"metadata": {"name": stale}, "spec": levels})
    api.list(KAI_TOPOLOGIES)
    api.delete(KAI_TOPOLOGIES, stale)  # a changed Topology: deleted, then written again
    cluster.forget_later(KAI_TOPOLOGIES, fresh)
    api.apply(
        KAI_TOPOLOGIES, {"metadata": {"name": fresh}, "spec": levels}, field_manager="toposched", force=True
    )
    group = {
        "metadata": {"name": "wf-1", "namespace": cluster.namespace},
        "spec": {"minMember": 2, "queue": "q"},
    }
    api.apply(KAI_PODGROUPS, group, field_manager="toposched")
    grove = {
        "levels": [{"domain": "rack", "key": "rack"}, {"domain": "host", "key": "kubernetes.io/hostname"}]
    }
    cluster.forget_later(GROVE_CLUSTER_TOPOLOGIES, fresh)
    api.apply(
        GROVE_CLUSTER_TOPOLOGIES, {"metadata": {"name": fresh}, "spec": grove}, field_manager="toposched"
    )


RUNS: dict[Mode, Callable[[RealCluster, RestKubeApi], None]] = {
    Mode.UNGATER: run_ungater,
    Mode.SYNC: run_sync,
}


def calls(event: AuditEvent) -> list[Call]:
    """What RBAC checked for the request: an apply that created its object (201) is a patch and
    a create."""
    call = Call(event.verb, event.group, event.resource, event.namespace)
    created = event.verb == "patch" and event.code == 201
    return [call, Call("create", event.group, event.resource, event.namespace)] if created else [call]


@pytest.mark.parametrize("mode", list(Mode))
def test_every_request_of_a_controller_like_run_is_granted_and_every_grant_used(
    mode: Mode, real_cluster: RealCluster, controller_accounts: ControllerAccounts, tmp_path: Path
) -> None:
    kubeconfig = controller_accounts.fresh(mode, tmp_path / "kubeconfig")
    api = connect(str(kubeconfig))
    try:
        RUNS[mode](real_cluster, api)
    finally:
        api.close()
    events = requests_with(real_cluster.plane, kubeconfig)
    made = [call for event in events for call in calls(event)]

    undeclared = [call for call in made if not permitted(PERMISSIONS[mode], call)]
    used = {p for p in PERMISSIONS[mode] if any(permitted(frozenset({p}), call) for call in made)}

    assert events and [e for e in events if e.code == 403] == []
    assert undeclared == []
    assert sorted(PERMISSIONS[mode] - used) == []
