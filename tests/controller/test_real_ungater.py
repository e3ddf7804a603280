"""``--mode ungater`` on the real API server, as the ungater's ServiceAccount with deploy/'s RBAC:
gated gangs of every front end are recorded, pinned and ungated by one patch per pod, which the
server accepts for gated pods (its audit log counts them); nothing is placed before the gang is
whole; the writes name the field manager ``toposched``. The cluster (six nodes, racks of three)::

               z
           /       \\
         r0         r1
       / | \\      / | \\
     n0 n1 n2   n3 n4 n5
"""

from __future__ import annotations

import pytest
from tests.controller.real_audit import pod_writes
from tests.controller.real_cluster import HOST, ControllerAccounts, RealCluster
from tests.controller.real_gangs import FRONT_ENDS
from tests.controller.real_steps import settle, ungater

from toposched.controller.kubeapi import PODS, Object
from toposched.controller.modes import Mode
from toposched.controller.records import record_of


def managers(pod: Object) -> dict[str, set[str]]:
    """Field manager -> the top-level fields of ``spec`` and ``metadata`` it wrote."""
    out: dict[str, set[str]] = {}
    for entry in pod["metadata"].get("managedFields") or []:
        fields = entry.get("fieldsV1") or {}
        written = {
            k[2:] for part in ("f:spec", "f:metadata") for k in fields.get(part, {}) if k.startswith("f:")
        }
        out.setdefault(entry["manager"], set()).update(written)
    return out


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_gated_gang_of_each_front_end_is_ungated_in_one_rack_once_whole(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts, front_end: str
) -> None:
    real_cluster.add_racks()
    gang = FRONT_ENDS[front_end](real_cluster, "")
    names = gang.names
    with ungater(real_cluster, controller_accounts) as ctl:
        for pod in gang.pods:
            real_cluster.create(PODS, pod)
        ctl.step()
        assert not any(record_of(real_cluster.pod(p["metadata"]["name"])) for p in gang.pods)  # not whole yet
        gang.last(real_cluster)
        settle(ctl, lambda: real_cluster.ungated(names), what=f"the {front_end} gang is ungated")

    pods = [real_cluster.pod(n) for n in names]
    writes = pod_writes(real_cluster.plane, controller_accounts[Mode.UNGATER], real_cluster.namespace)
    assert writes == dict.fromkeys(names, 1)  # record, node selector and gate removal in one request
    assert len(real_cluster.racks_of(pods)) == 1
    assert {getattr(record_of(p), "topology", None) for p in pods} == {gang.topology}
    assert all(managers(p)["toposched"] >= {"nodeSelector", "annotations"} for p in pods)
    assert [real_cluster.bind(n) for n in names] == [p["spec"]["nodeSelector"][HOST] for p in pods]
