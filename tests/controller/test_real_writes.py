"""The ungater's writes on the real API server are decided on the pod as read, and the server holds
them to it: a pod patched by someone else between the read and the write is not written from the
old read (the resourceVersion the patch carries conflicts), a pod its owner recreated under the
same name is not deleted for its predecessor (the uid precondition fails), and a copy of a
member's assignment record on another pod is no record (the server gave that pod its own uid)."""

from __future__ import annotations

import copy

from tests.controller.cluster import kueue_pod
from tests.controller.real_cluster import RACK, ControllerAccounts, RealCluster
from tests.controller.real_steps import settle, ungater

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import PODS, Resource
from toposched.controller.records import record_of
from toposched.store import WorkloadState


class Meddler:
    """Just before the controller's first ``verb`` of a pod (once armed), another client gets
    there first: it labels the pod, or (for a delete) the pod's owner replaces it."""

    def __init__(self, cluster: RealCluster, verb: str) -> None:
        self.cluster, self.verb, self.armed = cluster, verb, False

    def __call__(self, verb: str, resource: Resource, name: str) -> None:
        if not self.armed or resource != PODS or verb != self.verb:
            return
        self.armed = False
        if verb == "delete":
            self.cluster.finish(name)
            self.cluster.create(PODS, kueue_pod(name, total=2, level=RACK))  # same name, new uid
        else:
            self.cluster.admin.patch(
                PODS, name, {"metadata": {"labels": {"touched-by": "someone-else"}}}, self.cluster.namespace
            )


def test_a_pod_changed_after_it_was_read_is_not_written_from_the_old_read(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts
) -> None:
    real_cluster.add_racks()
    names = ["p0", "p1"]
    meddler = Meddler(real_cluster, "patch")
    with ungater(real_cluster, controller_accounts, hook=meddler) as ctl:
        ctl.step()  # everything listed
        for name in names:
            real_cluster.create(PODS, kueue_pod(name, level=RACK))
        meddler.armed = True
        settle(ctl, lambda: not meddler.armed, what="the first pod's write meets a changed pod")
        conflicts = ctl.reconciler.writes.conflicts
        recorded = [n for n in names if record_of(real_cluster.pod(n)) is not None]
        settle(ctl, lambda: real_cluster.ungated(names), what="the next passes decide from the fresh pod")

    assert (conflicts, len(recorded)) == (1, 0)  # the pod recording the gang was refused: nothing more
    touched = [n for n in names if real_cluster.pod(n)["metadata"].get("labels", {}).get("touched-by")]
    assert len(touched) == 1 and record_of(real_cluster.pod(touched[0])) is not None


def test_a_pod_recreated_by_its_owner_is_not_deleted_for_its_predecessor(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts
) -> None:
    real_cluster.add_racks()
    names = ["p0", "p1"]
    meddler = Meddler(real_cluster, "delete")
    with ungater(real_cluster, controller_accounts, hook=meddler) as ctl:
        for name in names:
            real_cluster.create(PODS, kueue_pod(name, level=RACK))
        settle(ctl, lambda: real_cluster.ungated(names), what="the gang is ungated")
        where = {n: real_cluster.bind(n) for n in names}
        first = real_cluster.pod("p0")["metadata"]["uid"]
        real_cluster.delete_node(next(i for i in range(6) if real_cluster.node_name(i) == where["p0"]))
        meddler.armed = True  # p0's node left: the ungater deletes p0, but its owner replaced it first
        settle(ctl, lambda: not meddler.armed, what="the ungater tries to delete p0")
        conflicts = ctl.reconciler.writes.conflicts

    replacement = real_cluster.pod("p0")
    assert conflicts == 1
    assert replacement["metadata"]["uid"] != first and "deletionTimestamp" not in replacement["metadata"]
    assert is_gated(replacement)  # waiting for its slot


def test_a_copy_of_a_members_record_on_another_pod_deletes_nobody(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts
) -> None:
    real_cluster.add_racks()
    names = ["p0", "p1"]
    with ungater(real_cluster, controller_accounts) as ctl:
        for name in names:
            real_cluster.create(PODS, kueue_pod(name, level=RACK))
        settle(ctl, lambda: real_cluster.ungated(names), what="the gang is ungated")
        for name in names:
            real_cluster.bind(name)
        member = real_cluster.pod("p0")
        copied = copy.deepcopy(member)  # its labels, annotations (the record included) and spec
        copied["metadata"] = {
            "name": "a-copy",  # sorts before the member it copies
            "labels": member["metadata"]["labels"],
            "annotations": member["metadata"]["annotations"],
        }
        del copied["spec"]["nodeName"]
        copied.pop("status")
        real_cluster.create(PODS, copied)
        for _ in range(3):
            ctl.step()
        (workload,) = ctl.scheduler.list()

    assert all("deletionTimestamp" not in real_cluster.pod(n)["metadata"] for n in [*names, "a-copy"])
    assert record_of(real_cluster.pod("a-copy")) is None
    assert real_cluster.pod("p0")["metadata"]["uid"] == member["metadata"]["uid"]
    assert workload.state is WorkloadState.RUNNING
