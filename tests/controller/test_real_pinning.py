"""Every pod mutation the ungater makes is one the real API server accepts for a pod that still has
scheduling gates, and pins the pod to exactly its node.

The API server lets a gated pod gain node selector keys (not change or drop one) and node
affinity: anything when it has no required terms, otherwise only requirements added to each
existing term (no term added or removed); an ungated pod may change none of it. The ungater pins a
pod by a hostname node selector, or, on a node without the ``kubernetes.io/hostname`` label (an
upstream PodGroup without a constraint may use any node), by node affinity on ``metadata.name``,
added to each of the pod's own required terms.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.controller.cluster import kube_pod, kube_podgroup
from tests.controller.real_audit import pod_writes
from tests.controller.real_cluster import HOST, RUN, ControllerAccounts, RealCluster, allows
from tests.controller.real_scheduler import running_scheduler
from tests.controller.real_steps import settle, ungater

from polling import wait_until
from toposched.controller.keys import GATE
from toposched.controller.kubeapi import KUBE_PODGROUPS, PODS, KubeApiError, Object, PatchType
from toposched.controller.modes import Mode
from toposched.controller.records import record_of
from toposched.controller.rest import RestKubeApi, connect
from toposched.wire.core import pinned_affinity


def own_affinity(run: str) -> dict[str, Any]:
    """Two required terms of the pod's own (either admits the test's nodes)."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": RUN, "operator": "In", "values": [run]}]},
                    {"matchExpressions": [{"key": RUN, "operator": "Exists"}]},
                ]
            }
        }
    }


def test_pods_on_nodes_without_a_hostname_label_are_pinned_by_node_name_and_bound_there(
    real_cluster: RealCluster, controller_accounts: ControllerAccounts, tmp_path: Path
) -> None:
    """kube-scheduler itself binds them: a hostname selector on such a node would leave them
    Pending ("didn't match Pod's node affinity/selector")."""
    for i in range(2):
        real_cluster.add_node(i, hostname=False)
    scheduler = f"{real_cluster.run}-scheduler"
    pods = [kube_pod(f"w{i}", gpus=8) for i in range(2)]
    for pod in pods:  # the test's own nodes (an unconstrained PodGroup may use any node)
        pod["spec"].update(nodeSelector={RUN: real_cluster.run}, schedulerName=scheduler)
    pods[1]["spec"]["affinity"] = own_affinity(real_cluster.run)
    for pod in pods:
        real_cluster.create(PODS, pod)
    real_cluster.create(KUBE_PODGROUPS, kube_podgroup(min_count=2, key=None))
    names = ["w0", "w1"]
    with running_scheduler(real_cluster.plane, scheduler, tmp_path):
        with ungater(real_cluster, controller_accounts) as ctl:
            settle(ctl, lambda: real_cluster.ungated(names), what="the PodGroup's pods are ungated")
        recorded = {n: record_of(real_cluster.pod(n)) for n in names}
        wait_until(
            lambda: all(real_cluster.pod(n)["spec"].get("nodeName") for n in names),
            what="kube-scheduler binds both pods",
            timeout=60,
        )
    with ungater(real_cluster, controller_accounts) as again:  # a restarted controller
        report = again.step()
        again.step()

    ungated = {n: real_cluster.pod(n) for n in names}
    terms = ungated["w1"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]
    assert all(HOST not in p["spec"]["nodeSelector"] for p in ungated.values())
    assert len(terms["nodeSelectorTerms"]) == 2  # the pin is added to each of the pod's own terms
    bound = {n: p["spec"]["nodeName"] for n, p in ungated.items()}
    assert bound == {n: r.node for n, r in recorded.items() if r is not None}
    assert len(set(bound.values())) == 2
    assert report.restored == (f"kube:{real_cluster.namespace}/workers",)
    assert {n: record_of(real_cluster.pod(n)) for n in names} == recorded
    writes = pod_writes(real_cluster.plane, controller_accounts[Mode.UNGATER], real_cluster.namespace)
    assert writes == dict.fromkeys(names, 1)  # the pin (affinity) and the gate's removal in one request


@pytest.fixture
def ungater_api(controller_accounts: ControllerAccounts) -> Iterator[RestKubeApi]:
    api = connect(str(controller_accounts[Mode.UNGATER]))
    yield api
    api.close()


def gated_pod(cluster: RealCluster, **spec: Any) -> Object:
    pod = kube_pod("p", gpus=1)
    pod["spec"].update(spec)
    return cluster.create(PODS, pod)


def strategic(api: RestKubeApi, cluster: RealCluster, spec: dict[str, Any]) -> Object:
    return api.patch(PODS, "p", {"spec": spec}, cluster.namespace, patch_type=PatchType.STRATEGIC)


UNGATE = [{"$patch": "delete", "name": GATE}]

ONE_TERM = {"matchExpressions": [{"key": RUN, "operator": "Exists"}]}
PIN_TERM = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}
    }


def test_a_gated_pod_takes_the_pin_by_hostname_with_its_gate_removed_in_one_patch(
    real_cluster: RealCluster, ungater_api: RestKubeApi
) -> None:
    gated_pod(real_cluster, nodeSelector={RUN: real_cluster.run})

    done = strategic(ungater_api, real_cluster, {"nodeSelector": {HOST: "n1"}, "schedulingGates": UNGATE})

    assert done["spec"]["nodeSelector"] == {RUN: real_cluster.run, HOST: "n1"}
    assert "schedulingGates" not in done["spec"]


@pytest.mark.parametrize("own", ["no affinity", "two terms"])
def test_a_gated_pod_takes_the_pin_by_name_with_its_gate_removed_in_one_patch(
    real_cluster: RealCluster, ungater_api: RestKubeApi, own: str
) -> None:
    affinity = own_affinity(real_cluster.run) if own == "two terms" else None
    gated_pod(real_cluster, **({"affinity": affinity} if affinity else {}))

    pin = {"affinity": pinned_affinity(affinity, "n1"), "schedulingGates": UNGATE}
    done = strategic(ungater_api, real_cluster, pin)

    node = {"metadata": {"name": "n1", "labels": {RUN: real_cluster.run}}}
    other = {"metadata": {"name": "n2", "labels": {RUN: real_cluster.run}}}
    assert (allows(done, node), allows(done, other)) == (True, False)
    assert "schedulingGates" not in done["spec"]


REFUSED: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    # name: (the pod's spec, the patch, the server's refusal)
    "a gated pod's selector key changed": (
        {"nodeSelector": {HOST: "n0"}},
        {"nodeSelector": {HOST: "n1"}},
        "only additions to spec.nodeSelector are allowed",
    ),
    "a term added to a gated pod's required terms": (
        {"affinity": required(ONE_TERM)},
        {"affinity": required(ONE_TERM, PIN_TERM)},
        "no additions/deletions to non-empty NodeSelectorTerms list are allowed",
    ),
    "a gated pod's term replaced": (
        {"affinity": required(ONE_TERM)},
        {"affinity": required(PIN_TERM)},
        "only additions are allowed (no mutations or deletions)",
    ),
    "a selector added to an ungated pod": (
        {"schedulingGates": []},
        {"nodeSelector": {HOST: "n1"}},
        "pod updates may not change fields other than",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_the_server_refuses_every_other_change_of_where_a_pod_may_run(
    real_cluster: RealCluster, ungater_api: RestKubeApi, case: str
) -> None:
    spec, patch, refusal = REFUSED[case]
    gated_pod(real_cluster, **spec)

    with pytest.raises(KubeApiError) as refused:
        strategic(ungater_api, real_cluster, patch)

    assert refused.value.status == 422
    assert refusal in str(refused.value)
