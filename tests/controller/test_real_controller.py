"""``toposched controller`` as it runs in a cluster (``app.run``: leader election, the mode's
reconciler, real time), on the real API server as its own ServiceAccount with exactly deploy/'s
RBAC: a call the rules do not grant is refused (403) and fails the test. In ungater mode it places
and ungates a gang of every front end at once, and two replicas hand the lease over; in sync mode
it writes the service's KAI Topology, PodGroups and Grove ClusterTopology by server-side apply."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
import yaml
from tests.controller.real_audit import refused
from tests.controller.real_cluster import CONTROLLER_NAMESPACE, HOST, ControllerAccounts, RealCluster
from tests.controller.real_gangs import FRONT_ENDS, kueue_gang
from tests.controller.test_sync import service
from tests.realkube.accounts import apply_manifest, manifest_documents, service_account_kubeconfig
from tests.realkube.binaries import REPO
from tests.realkube.control_plane import ControlPlane

from polling import wait_until
from toposched.controller.app import Options, run
from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    LEASES,
    ApiNotFoundError,
    KubeApiError,
    Object,
)
from toposched.controller.modes import Mode
from toposched.controller.records import record_of
from toposched.controller.rest import connect
from toposched.controller.sync import SyncController
from toposched.store import Store
from toposched.wire.lease import parse_lease


class Replica:
    """One controller process (a thread here), through its own client."""

    def __init__(self, kubeconfig: Path, options: Options, store: Store | None = None) -> None:
        self.api = connect(str(kubeconfig))
        self.stopping = threading.Event()
        self.thread = threading.Thread(
            target=run,
            args=(self.api, options, self.stopping),
            kwargs={"store": store},
            name=options.identity,
        )
        self.thread.start()

    def stop(self) -> None:
        """Stop it as SIGTERM does (the lease is released)."""
        self.stopping.set()
        self.thread.join(timeout=60)
        self.api.close()
        assert not self.thread.is_alive()


@contextmanager
def running(kubeconfig: Path, options: Options, store: Store | None = None) -> Iterator[Replica]:
    replica = Replica(kubeconfig, options, store)
    try:
        yield replica
    finally:
        replica.stop()


def options(cluster: RealCluster, identity: str = "replica-a", **more: object) -> Options:
    fields: dict[str, object] = {
        "namespace": cluster.namespace,
        "topology": cluster.topology().name,
        "lease_name": cluster.lease,
        "identity": identity,
        "metrics_port": 0,
        "interval": 0.05,
        **more,
    }
    return Options(**fields)  # type: ignore[arg-type]


def holder(cluster: RealCluster) -> str:
    try:
        return parse_lease(cluster.admin.get(LEASES, cluster.lease, CONTROLLER_NAMESPACE)).holder
    except Exception:  # not created yet
        return ""


def test_the_ungater_places_a_gang_of_every_front_end_as_its_service_account(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts, tmp_path: Path
) -> None:
    account = controller_accounts.fresh(Mode.UNGATER, tmp_path / "kubeconfig")
    real_cluster.add_racks(nodes=3 * len(FRONT_ENDS))  # a rack each
    gangs = {name: make(real_cluster, f"g{i}-") for i, (name, make) in enumerate(FRONT_ENDS.items())}
    names = [n for gang in gangs.values() for n in gang.names]

    with running(account, options(real_cluster)):
        for gang in gangs.values():
            gang.create(real_cluster)
        wait_until(lambda: real_cluster.ungated(names), what="every gang is ungated", timeout=90)
        leader = holder(real_cluster)

    assert refused(real_cluster.plane, account) == []
    for name, gang in gangs.items():
        pods = [real_cluster.pod(n) for n in gang.names]
        assert len(real_cluster.racks_of(pods)) == 1, name
        assert {getattr(record_of(p), "topology", None) for p in pods} == {gang.topology}, name
    assert (leader, holder(real_cluster)) == ("replica-a", "")  # released on stop


def test_a_missing_permission_fails_the_run(
    real_cluster: RealCluster, real_apiserver: ControlPlane, caplog: pytest.LogCaptureFixture, tmp_path: Path
) -> None:
    """The check above can fail: the same controller as an account whose rules lack one verb
    (patching pods) places the gang but records nothing, and says 403."""
    account = f"{real_cluster.run}-no-patch"
    documents = []
    for document in manifest_documents(REPO / "deploy" / "ungater" / "rbac.yaml"):
        text = yaml.safe_dump(document).replace("toposched-ungater", account)
        changed = yaml.safe_load(text)
        for rule in changed.get("rules", ()):
            rule["verbs"] = [v for v in rule["verbs"] if not (rule["resources"] == ["pods"] and v == "patch")]
        documents.append(changed)
    manifest = tmp_path / "rbac.yaml"
    manifest.write_text(yaml.safe_dump_all(documents))
    apply_manifest(real_apiserver, manifest)
    for kind in ("ClusterRole", "ClusterRoleBinding"):
        real_cluster.forget_later(real_apiserver.resource_for("rbac.authorization.k8s.io/v1", kind), account)
    kubeconfig = service_account_kubeconfig(real_apiserver, CONTROLLER_NAMESPACE, account)
    caplog.set_level(logging.INFO, logger="toposched")
    real_cluster.add_racks()
    gang = FRONT_ENDS["kueue-pod-group"](real_cluster, "")

    with running(kubeconfig, options(real_cluster)):
        gang.create(real_cluster)
        wait_until(lambda: any("403" in r.getMessage() for r in caplog.records), what="a refusal", timeout=60)

    said = [r.getMessage() for r in caplog.records if "403" in r.getMessage()]
    logged = refused(real_apiserver, kubeconfig)  # as the server has it
    assert not any(real_cluster.ungated([n]) for n in gang.names)
    assert logged and all(line.startswith("patch /pods ") for line in logged)
    assert all(f'{account}" cannot patch resource "pods"' in message for message in said)


def test_two_replicas_hand_the_lease_over_and_the_new_leader_carries_on(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts, tmp_path: Path
) -> None:
    real_cluster.add_racks()
    first, second = kueue_gang(real_cluster, "a-"), kueue_gang(real_cluster, "b-")
    names = ("replica-a", "replica-b")
    accounts = {n: controller_accounts.fresh(Mode.UNGATER, tmp_path / n) for n in names}
    quick = {"lease_duration": 3, "renew_deadline": 2.0, "retry_period": 0.5}
    replicas = {n: Replica(accounts[n], options(real_cluster, n, **quick)) for n in names}
    try:
        wait_until(lambda: holder(real_cluster) in replicas, what="a replica leads", timeout=30)
        leader = holder(real_cluster)
        first.create(real_cluster)
        wait_until(lambda: real_cluster.ungated(first.names), what="the leader places a gang", timeout=60)
        recorded = {n: record_of(real_cluster.pod(n)) for n in first.names}
        replicas.pop(leader).stop()  # a rolling update stops it: the lease is released
        (follower,) = replicas
        wait_until(lambda: holder(real_cluster) == follower, what="the other replica leads", timeout=30)
        second.create(real_cluster)
        wait_until(lambda: real_cluster.ungated(second.names), what="it places the next gang", timeout=60)
    finally:
        for replica in replicas.values():
            replica.stop()

    assert {n: record_of(real_cluster.pod(n)) for n in first.names} == recorded  # not placed again
    gpus: dict[str, int] = {}  # the new leader booked the first gang's nodes, as restored from its pods
    for name in first.names + second.names:
        node = real_cluster.pod(name)["spec"]["nodeSelector"][HOST]
        gpus[node] = gpus.get(node, 0) + 4
    assert max(gpus.values()) <= 8, gpus
    assert [refused(real_cluster.plane, accounts[n]) for n in names] == [[], []]


def test_the_sync_mode_applies_the_services_objects_and_a_restart_applies_them_unchanged(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts, tmp_path: Path
) -> None:
    scheduler = service(real_cluster.namespace)
    topology = f"osmo-pool-{real_cluster.namespace}-my-pool-topology"
    real_cluster.forget_later(KAI_TOPOLOGIES, topology)
    real_cluster.forget_later(GROVE_CLUSTER_TOPOLOGIES, topology)
    account = controller_accounts.fresh(Mode.SYNC, tmp_path / "kubeconfig")
    with running(account, options(real_cluster, mode=Mode.SYNC), store=scheduler.store):
        wait_until(
            lambda: len(written(real_cluster, topology)) == 3, what="the sync wrote its objects", timeout=60
        )
    before = written(real_cluster, topology)
    other = {"metadata": {"name": topology, "labels": {"example.com/owner": "someone-else"}}}
    real_cluster.admin.apply(KAI_TOPOLOGIES, other, field_manager="someone-else")

    api = connect(str(account))
    again = SyncController(api, scheduler).step()  # a restarted replica applies everything again
    api.close()
    after = written(real_cluster, topology)

    assert refused(real_cluster.plane, account) == []
    # The pool's KAI Topology is current, so OSMO's sync leaves it; everything else is applied.
    assert sorted(again.applied) == sorted(i for i in before if not i.startswith("topologies/"))
    assert (again.deleted, again.skipped) == ((), ())
    for ident, obj in before.items():
        appliers = {(f["manager"], f["operation"]) for f in obj["metadata"]["managedFields"]}
        assert ("toposched", "Apply") in appliers, ident
        if not ident.startswith("topologies/"):
            assert after[ident]["metadata"]["resourceVersion"] == obj["metadata"]["resourceVersion"], ident
    kai = after[f"topologies/{topology}"]
    assert kai["metadata"]["labels"]["example.com/owner"] == "someone-else"  # the other manager's field stays
    assert kai["spec"] == before[f"topologies/{topology}"]["spec"]


def written(cluster: RealCluster, topology: str) -> dict[str, Object]:
    """What the sync mode writes for the service of ``service(cluster.namespace)``, by the ident
    its report uses."""
    found: dict[str, Object] = {}
    for resource in (KAI_TOPOLOGIES, GROVE_CLUSTER_TOPOLOGIES):
        with suppress(ApiNotFoundError):
            found[f"{resource.plural}/{topology}"] = cluster.admin.get(resource, topology)
    for podgroup in cluster.admin.list(KAI_PODGROUPS, cluster.namespace).items:
        found[f"podgroups/{cluster.namespace}/{podgroup['metadata']['name']}"] = podgroup
    return found


def test_a_changed_pool_topology_is_deleted_and_written_again(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts
) -> None:
    """A KAI Topology's levels are immutable (its CRD's validation rule): applying new ones is
    refused, so the sync mode deletes the stale Topology and writes it again."""
    scheduler = service(real_cluster.namespace)
    name = f"osmo-pool-{real_cluster.namespace}-my-pool-topology"
    real_cluster.forget_later(GROVE_CLUSTER_TOPOLOGIES, name)
    stale = {
        "metadata": {"name": name, "labels": {"osmo.namespace": real_cluster.namespace}},
        "spec": {"levels": [{"nodeLabel": "topology.kubernetes.io/zone"}]},
    }
    real_cluster.create(KAI_TOPOLOGIES, stale)
    api = connect(str(controller_accounts[Mode.SYNC]))
    try:
        fresh = {
            **stale,
            "spec": {"levels": [{"nodeLabel": "topology.kubernetes.io/zone"}, {"nodeLabel": "rack"}]},
        }
        with pytest.raises(KubeApiError) as refused_by_the_crd:
            api.apply(KAI_TOPOLOGIES, fresh, field_manager="toposched", force=True)
        report = SyncController(api, scheduler).step()
    finally:
        api.close()

    assert refused_by_the_crd.value.status == 422
    assert "nodeLabel structure is immutable" in str(refused_by_the_crd.value)
    assert report.deleted == (f"topologies/{name}",)
    assert len(real_cluster.admin.get(KAI_TOPOLOGIES, name)["spec"]["levels"]) == 4
