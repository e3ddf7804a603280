"""``--mode ungater``'s own logic, on the in-memory ``FakeKubeApi``: gangs are placed only when
whole, each pod is recorded then ungated once, a restart rebuilds the state from the pods, a
refused gang is compiled again when what it is read from changes. The same on the real API
server, as the ungater's ServiceAccount: ``test_real_ungater``, ``test_real_repair``."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import pytest
from tests.controller.cluster import (
    HOST,
    RACK,
    TOPOLOGY,
    bind,
    cluster,
    controller,
    kai_pod,
    kai_podgroup,
    kueue_pod,
    pod,
    records_read,
)
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller import gangs as grouping
from toposched.controller.keys import ASSIGNMENT, GATE, GangKey, is_gated
from toposched.controller.kubeapi import KAI_PODGROUPS, KUEUE_TOPOLOGIES, PODS, KubeApiError
from toposched.controller.records import record_of
from toposched.model import Topology
from toposched.store import WorkloadState
from toposched.wire.core import pod_object
from toposched.wire.kueue import topology_object


def patches(api: FakeKubeApi) -> int:
    return sum(1 for verb, plural in api.calls if (verb, plural) == ("patch", "pods"))


def test_nothing_is_placed_until_every_pod_of_the_gang_exists() -> None:
    api = cluster()
    ctl = controller(api)
    api.put(PODS, kueue_pod("p0"))
    for _ in range(3):
        ctl.step()
    assert patches(api) == 0
    assert ctl.scheduler.list() == []
    api.put(PODS, kueue_pod("p1"))
    for _ in range(3):
        ctl.step()
    p0, p1 = pod(api, "p0"), pod(api, "p1")
    assert not is_gated(p0) and not is_gated(p1)
    hosts = {p0["spec"]["nodeSelector"][HOST], p1["spec"]["nodeSelector"][HOST]}
    assert len(hosts) == 2
    racks = {ctl.scheduler.store.get_node(h).labels[RACK] for h in hosts}
    assert len(racks) == 1  # the gang's required rack
    assert patches(api) == 2  # one write per pod: its record, node selector and gate removal together


def test_duplicate_events_change_nothing() -> None:
    api = cluster()
    ctl = controller(api)
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    for _ in range(3):
        ctl.step()
    before = patches(api)
    for name in ("p0", "p1"):
        api.put(PODS, pod(api, name))  # the same objects again
    for _ in range(3):
        ctl.step()
    assert patches(api) == before
    assert len(ctl.scheduler.list()) == 1


class FailingAfter(FakeKubeApi):
    """Fails every pod patch after the first ``allowed`` ones (a controller dying mid-way)."""

    allowed = 1_000

    def patch(self, *args: object, **kwargs: object) -> dict[str, object]:  # type: ignore[override]
        if self.allowed <= 0:
            raise KubeApiError(503, "controller stopped")
        self.allowed -= 1
        return super().patch(*args, **kwargs)  # type: ignore[arg-type]


def test_the_first_pod_written_records_the_whole_gang_before_any_other_is_ungated() -> None:
    api = FailingAfter()
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    api.allowed = 1  # one write lands, then every write fails
    with contextlib.suppress(KubeApiError):
        controller(api).step()
    first, second = pod(api, "p0"), pod(api, "p1")
    assert not is_gated(first) and is_gated(second)  # one write per pod: record and ungate at once
    read = records_read([first, second])
    assert record_of(second) is None and read["p1"] is not None  # p1's record is on p0
    assert read["p1"].uid == second["metadata"]["uid"] and read["p1"].node != read["p0"].node


def test_a_restart_in_the_middle_of_ungating_never_assigns_a_pod_twice() -> None:
    api = FailingAfter()
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    for name in ("p0", "p1", "p2", "p3"):
        api.put(PODS, kueue_pod(name, total=4, level="topology.kubernetes.io/zone"))
    first = controller(api)
    api.allowed = 1  # the first pod's write goes through, then the process dies
    with contextlib.suppress(KubeApiError):
        first.step()
    names = ["p0", "p1", "p2", "p3"]
    recorded = records_read([pod(api, n) for n in names])  # the first pod's write records them all
    assert all(r is not None for r in recorded.values())
    ungated = [n for n in names if not is_gated(pod(api, n))]
    assert len(ungated) == 1
    bind(api, ungated[0])

    api.allowed = 1_000
    second = controller(api)  # a fresh process: empty scheduler, same cluster
    report = second.step()
    assert report.restored == ("kueue:default/g",)
    for _ in range(2):
        second.step()
    after = {n: record_of(pod(api, n)) for n in recorded}
    assert after == recorded  # nobody was assigned again
    assert all(not is_gated(pod(api, n)) for n in recorded)
    for name, record in recorded.items():
        assert record is not None
        assert pod(api, name)["spec"]["nodeSelector"][HOST] == record.node
    (workload,) = second.scheduler.list()
    assert workload.state in (WorkloadState.ADMITTED, WorkloadState.RUNNING)


def test_a_restart_after_ungating_places_nothing_again() -> None:
    api = cluster()
    ctl = controller(api)
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    for _ in range(3):
        ctl.step()
    for name in ("p0", "p1"):
        bind(api, name)
    before = patches(api)
    again = controller(api)
    for _ in range(3):
        again.step()
    assert patches(api) == before
    (workload,) = again.scheduler.list()
    assert workload.state is WorkloadState.RUNNING
    assert ASSIGNMENT in pod(api, "p0")["metadata"]["annotations"]
    assert GATE not in str(pod(api, "p0")["spec"])


def test_a_kai_podgroup_waits_for_its_podgroup_and_min_member_pods() -> None:
    api = cluster()
    ctl = controller(api)
    api.put(PODS, kai_pod("w0", gpus=4))
    api.put(PODS, kai_pod("w1", gpus=4))
    for _ in range(2):
        ctl.step()
    assert patches(api) == 0  # no PodGroup yet
    api.put(KAI_PODGROUPS, kai_podgroup(min_member=3))
    for _ in range(2):
        ctl.step()
    assert patches(api) == 0  # 2 of minMember 3
    api.put(PODS, kai_pod("w2", gpus=4))
    for _ in range(3):
        ctl.step()
    hosts = [pod(api, n)["spec"]["nodeSelector"][HOST] for n in ("w0", "w1", "w2")]
    assert len({ctl.scheduler.store.get_node(h).labels[RACK] for h in hosts}) == 1


def test_pods_other_schedulers_bound_use_capacity() -> None:
    api = cluster()
    ctl = controller(api)
    for i in (0, 1, 2):  # rack r0 is full of someone else's pods
        other = pod_object(
            f"other-{i}",
            "default",
            spec={"containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "8"}}}]},
            node_name=f"n{i}",
            phase="Running",
        )
        api.put(PODS, other)
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    for _ in range(3):
        ctl.step()
    hosts = {pod(api, n)["spec"]["nodeSelector"][HOST] for n in ("p0", "p1")}
    assert {ctl.scheduler.store.get_node(h).labels[RACK] for h in hosts} == {"r1"}


def test_a_gang_that_does_not_compile_is_not_retried_until_its_pods_change() -> None:
    api = cluster()
    ctl = controller(api)
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name, level="example.com/no-such-level"))
    for _ in range(3):
        ctl.step()
    assert ctl.scheduler.list() == []
    assert "kueue:default/g" in {str(k) for k in ctl.reconciler.refused}
    fixed = pod(api, "p0")
    fixed["metadata"]["annotations"]["kueue.x-k8s.io/podset-required-topology"] = RACK
    api.put(PODS, fixed)
    fixed = pod(api, "p1")
    fixed["metadata"]["annotations"]["kueue.x-k8s.io/podset-required-topology"] = RACK
    api.put(PODS, fixed)
    for _ in range(3):
        ctl.step()
    assert not is_gated(pod(api, "p0")) and not is_gated(pod(api, "p1"))


def test_a_gang_naming_its_topology_is_placed_on_it_and_one_naming_none_on_the_default() -> None:
    api = cluster()  # Kueue Topology "default"
    api.put(KUEUE_TOPOLOGIES, topology_object(Topology.create("other", TOPOLOGY.levels)))
    ctl = controller(api, topology="default")  # --topology default
    api.put(KAI_PODGROUPS, kai_podgroup(min_member=2, topology="other"))
    for name in ("w0", "w1"):
        api.put(PODS, kai_pod(name, gpus=4))
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name, gpus=4))
    for _ in range(3):
        ctl.step()
    placed_on = {n: getattr(record_of(pod(api, n)), "topology", None) for n in ("w0", "w1", "p0", "p1")}
    assert placed_on == {"w0": "other", "w1": "other", "p0": "default", "p1": "default"}


def refused_then_placed(topology: str, fix: Callable[[FakeKubeApi], object]) -> None:
    """A KAI gang naming ``topology`` is refused; after ``fix`` changes the cluster it is placed."""
    api = cluster()
    ctl = controller(api)
    api.put(KAI_PODGROUPS, kai_podgroup(min_member=2, topology=topology))
    for name in ("w0", "w1"):
        api.put(PODS, kai_pod(name, gpus=4))
    for _ in range(2):
        ctl.step()
    refused = set(ctl.reconciler.refused)
    fix(api)
    for _ in range(3):
        ctl.step()
    assert {str(k) for k in refused} == {"kai:default/pg"}
    assert not is_gated(pod(api, "w0")) and not is_gated(pod(api, "w1"))


def test_a_gang_naming_a_topology_the_cluster_has_not_yet_is_placed_once_it_appears() -> None:
    refused_then_placed(
        "later",
        lambda api: api.put(KUEUE_TOPOLOGIES, topology_object(Topology.create("later", TOPOLOGY.levels))),
    )


def test_a_gang_refused_for_its_podgroup_is_compiled_again_once_the_podgroup_changes() -> None:
    # fixed; the pods and topologies are as they were
    refused_then_placed("no-such-topology", lambda api: api.put(KAI_PODGROUPS, kai_podgroup(min_member=2)))


def test_a_pod_read_before_is_not_read_again_until_its_resource_version_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    api = cluster()
    ctl = controller(api)
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name, total=3))
    ctl.step()
    reads: list[str] = []
    member_of = grouping._member_of

    def counted(pod: dict[str, Any], groupings: Any) -> tuple[str, GangKey] | None:
        reads.append(str(pod["metadata"]["name"]))
        return member_of(pod, groupings)

    monkeypatch.setattr(grouping, "_member_of", counted)
    ctl.step()
    assert reads == []  # nothing changed: the gangs are as last read
    api.put(PODS, kueue_pod("p2", total=3))
    ctl.step()
    assert reads == ["p2"]
    for _ in range(2):
        ctl.step()
    assert not any(is_gated(pod(api, n)) for n in ("p0", "p1", "p2"))
