"""The controller acts only on assignment records it can prove it wrote: a record names the uid
of the pod it was written on, which the API server assigns, so a copy on another pod is no record."""

from __future__ import annotations

import copy

from tests.controller.cluster import bind, cluster, controller, kueue_pod, pod

from toposched.controller.kubeapi import PODS
from toposched.controller.records import record_of
from toposched.store import WorkloadState


def test_a_copy_of_a_members_record_on_another_pod_deletes_nobody() -> None:
    api = cluster()
    ctl = controller(api)
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    for _ in range(3):
        ctl.step()
    for name in ("p0", "p1"):
        bind(api, name)
    ctl.step()
    member = pod(api, "p0")
    copied = copy.deepcopy(member)  # the same labels, annotations (recorded assignment included) and spec
    copied["metadata"] = {
        "name": "a-copy",  # sorts before the member it copies
        "namespace": "default",
        "labels": member["metadata"]["labels"],
        "annotations": member["metadata"]["annotations"],
    }
    del copied["spec"]["nodeName"]
    copied["status"] = {"phase": "Pending"}  # its node selector leaves it no room
    api.put(PODS, copied)
    for _ in range(3):
        ctl.step()
    assert {"p0", "p1", "a-copy"} <= {name for (_, _, name) in api.objects}  # nothing was deleted
    assert record_of(pod(api, "a-copy")) is None
    assert pod(api, "p0")["metadata"]["uid"] == member["metadata"]["uid"]
    (workload,) = ctl.scheduler.list()
    assert workload.state is WorkloadState.RUNNING
