"""The ungater writes a pod only as it read it: a patch carries the pod's resourceVersion and a
delete its uid and resourceVersion, so a pod that changed (or was recreated) in between is not
written from the old read; the next pass decides again from the fresh pod."""

from __future__ import annotations

from typing import Any

from tests.controller.cluster import bind, cluster, controller, kueue_pod, pod
from tests.controller.fake_kube import FakeKubeApi
from tests.controller.test_node_health import deleted, placed, settle

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import PODS
from toposched.controller.records import record_of
from toposched.scheduler import ManualClock


class ChangedUnderneath(FakeKubeApi):
    """Just before the first pod patch (or delete) reaches it, another client changes that pod
    (or, for a delete, its owner recreates it)."""

    def __init__(self) -> None:
        super().__init__()
        self.armed = False

    def patch(self, resource: Any, name: str, *args: Any, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        if self.armed and resource == PODS:
            self.armed = False
            changed = pod(self, name)
            changed["metadata"].setdefault("labels", {})["touched-by"] = "someone-else"
            self.put(PODS, changed)
        return super().patch(resource, name, *args, **kwargs)  # type: ignore[no-any-return]

    def delete(self, resource: Any, name: str, *args: Any, **kwargs: Any) -> None:  # type: ignore[override]
        if self.armed and resource == PODS:
            self.armed = False
            self.remove(PODS, name, "default")
            self.put(PODS, kueue_pod(name, total=2))  # its owner's replacement: same name, new uid
        super().delete(resource, name, *args, **kwargs)


def seeded(api: FakeKubeApi) -> FakeKubeApi:
    donor = cluster()
    api.objects, api.events, api.version = donor.objects, donor.events, donor.version
    return api


def test_a_pod_changed_after_it_was_read_is_not_written_from_the_old_read() -> None:
    api = seeded(ChangedUnderneath())
    ctl = controller(api)
    ctl.step()  # everything listed
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    api.armed = True
    ctl.step()  # the first record write meets a pod changed since it was read
    recorded = [n for n in ("p0", "p1") if record_of(pod(api, n)) is not None]
    assert len(recorded) == 1 and ctl.ungater.writes.conflicts == 1
    for _ in range(3):
        ctl.step()
    assert all(not is_gated(pod(api, n)) for n in ("p0", "p1"))
    assert any(pod(api, n)["metadata"].get("labels", {}).get("touched-by") for n in ("p0", "p1"))


def test_a_pod_recreated_by_its_owner_is_not_deleted_for_its_predecessor() -> None:
    api, clock = seeded(ChangedUnderneath()), ManualClock(1000.0)
    ctl = controller(api, clock)
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    settle(ctl)
    for name in ("p0", "p1"):
        bind(api, name)
    settle(ctl)
    where = placed(api, ["p0", "p1"])
    deleted(api, where["p0"])  # p0's node leaves: the ungater deletes p0 for its owner to recreate
    api.armed = True  # ... but the owner recreated it first
    ctl.step()
    replacement = pod(api, "p0")
    assert is_gated(replacement)  # the new pod is still there, waiting for its slot
    assert ctl.ungater.writes.conflicts == 1
