"""One test's share of the real control plane (``real_apiserver``), for the controller's tests.

Each test gets a namespace, nodes, topologies and a Lease name of its own (all named after its
run id), made by the admin and removed afterwards, so tests sharing the session's API server never
see each other's gangs. The nodes carry the test-only level labels below (and ``RUN``), so a
topology of the test never reaches another test's nodes. The controller itself acts as its own
ServiceAccount with exactly the RBAC rules of deploy/ (``controller_accounts``).

There is no kube-scheduler, kubelet or kube-controller-manager: what they would do the test does
as the admin, through the same API (``bind``: bind an ungated pod to the one node its selector and
node affinity allow, and report it Running; ``finish``: the kubelet's last word on a deleted pod;
node status written through the ``status`` subresource, and the ``not-ready`` taint the
TaintNodesByCondition admission puts on every new node taken off, as the node lifecycle
controller would once the node is Ready).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from tests.realkube.accounts import apply_manifest, ensure_namespace, service_account_kubeconfig
from tests.realkube.binaries import REPO
from tests.realkube.control_plane import ControlPlane

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import (
    KUEUE_TOPOLOGIES,
    LEASES,
    NODES,
    PODS,
    ApiNotFoundError,
    Object,
    Resource,
)
from toposched.controller.modes import Mode
from toposched.model import HOSTNAME, Taint, Topology
from toposched.wire.core import node_object
from toposched.wire.kueue import topology_object

ZONE, RACK, HOST = "toposched.test/zone", "toposched.test/rack", HOSTNAME
RUN = "toposched.test/run"  # every node of one test carries its run id
CONTROLLER_NAMESPACE = "toposched-system"
ALLOCATABLE = {"nvidia.com/gpu": "8", "cpu": "64", "memory": "512Gi", "pods": "110"}
RACK_SIZE = 3


@dataclass(frozen=True, slots=True)
class ControllerAccounts:
    """A kubeconfig per mode, acting as that mode's ServiceAccount of deploy/."""

    plane: ControlPlane
    kubeconfigs: Mapping[Mode, Path]

    def __getitem__(self, mode: Mode) -> Path:
        return self.kubeconfigs[mode]

    def fresh(self, mode: Mode, path: Path) -> Path:
        """A kubeconfig at ``path`` with a token of its own for the mode's account, so the audit
        log tells its requests from any other client's of the same account."""
        return service_account_kubeconfig(self.plane, CONTROLLER_NAMESPACE, f"toposched-{mode}", path)


def controller_accounts(plane: ControlPlane) -> ControllerAccounts:
    """deploy/'s ServiceAccounts and RBAC rules applied, and a kubeconfig for each account."""
    kubeconfigs = {}
    for mode in Mode:
        apply_manifest(plane, REPO / "deploy" / str(mode) / "rbac.yaml")
        kubeconfigs[mode] = service_account_kubeconfig(plane, CONTROLLER_NAMESPACE, f"toposched-{mode}")
    return ControllerAccounts(plane, kubeconfigs)


@dataclass
class RealCluster:
    """The objects of one test on the real API server, written as the admin."""

    plane: ControlPlane
    run: str = field(default_factory=lambda: f"t-{uuid.uuid4().hex[:10]}")
    cluster_objects: list[tuple[Resource, str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.admin = self.plane.admin_api()
        ensure_namespace(self.plane, self.namespace)

    @property
    def namespace(self) -> str:
        return self.run

    @property
    def lease(self) -> str:
        return f"{self.run}-lease"

    def topology(self, name: str = "") -> Topology:
        """The test's zone → rack → host topology (named after the run unless ``name`` says)."""
        return Topology.create(name or self.run, [ZONE, RACK, HOST])

    # -- nodes -----------------------------------------------------------------------------------
    def node_name(self, i: int) -> str:
        return f"{self.run}-n{i}"

    def node_labels(self, i: int, *, hostname: bool = True) -> dict[str, str]:
        """Zone z, racks of ``RACK_SIZE`` nodes (r0: n0-n2, r1: n3-n5, ...), the hostname."""
        labels = {RUN: self.run, ZONE: f"{self.run}-z", RACK: f"{self.run}-r{i // RACK_SIZE}"}
        if hostname:
            labels[HOST] = self.node_name(i)
        return labels

    def add_node(
        self,
        i: int,
        *,
        ready: bool = True,
        taints: Iterable[Taint] = (),
        hostname: bool = True,
        labels: Mapping[str, str] | None = None,
    ) -> str:
        """A node as a kubelet registers it, then Ready (or not) with ``taints`` only."""
        name = self.node_name(i)
        chosen = dict(labels) if labels is not None else self.node_labels(i, hostname=hostname)
        self.admin.create(NODES, {"metadata": {"name": name, "labels": chosen}})
        self.set_node(i, ready=ready, taints=taints)
        return name

    def set_node(self, i: int, *, ready: bool = True, taints: Iterable[Taint] = ()) -> None:
        """The node's taints (exactly ``taints``) and its Ready condition and allocatable."""
        name = self.node_name(i)
        wanted = node_object(name, {}, ALLOCATABLE, taints=tuple(taints), ready=ready)
        current = self.admin.get(NODES, name)
        self.admin.replace(NODES, {**current, "spec": wanted["spec"]})
        current = self.admin.get(NODES, name)
        self.plane.request("PUT", f"/api/v1/nodes/{name}/status", {**current, "status": wanted["status"]})

    def add_racks(self, nodes: int = 6) -> None:
        """The test's Kueue Topology and ``nodes`` Ready nodes in racks of ``RACK_SIZE``."""
        self.create(KUEUE_TOPOLOGIES, topology_object(self.topology()))
        for i in range(nodes):
            self.add_node(i)

    def delete_node(self, i: int) -> None:
        self.admin.delete(NODES, self.node_name(i))

    def nodes(self) -> list[Object]:
        return list(self.admin.list(NODES, label_selector=f"{RUN}={self.run}").items)

    # -- objects ---------------------------------------------------------------------------------
    def create(self, resource: Resource, obj: Mapping[str, Any]) -> Object:
        """``obj`` created by the admin: in the test's namespace when namespaced, else kept to
        be deleted when the test ends."""
        metadata = dict(obj.get("metadata") or {})
        if resource.namespaced:
            metadata["namespace"] = self.namespace
        else:
            self.cluster_objects.append((resource, str(metadata["name"])))
        return self.admin.create(resource, {**obj, "metadata": metadata})

    def forget_later(self, resource: Resource, name: str) -> None:
        """Delete the cluster-wide object ``name`` (made by someone else) when the test ends."""
        self.cluster_objects.append((resource, name))

    def pod(self, name: str) -> Object:
        return self.admin.get(PODS, name, self.namespace)

    def pod_exists(self, name: str) -> bool:
        try:
            self.pod(name)
        except ApiNotFoundError:
            return False
        return True

    def ungated(self, names: Iterable[str]) -> bool:
        return not any(is_gated(self.pod(n)) for n in names)

    def racks_of(self, pods: Iterable[Object]) -> set[str]:
        """The racks of the nodes ``pods`` are pinned to by their hostname selector."""
        by_host = {n["metadata"]["name"]: n["metadata"]["labels"] for n in self.nodes()}
        return {by_host[p["spec"]["nodeSelector"][HOST]][RACK] for p in pods}

    # -- what kube-scheduler and the kubelet would do --------------------------------------------
    def bind(self, name: str, *, phase: str = "Running") -> str:
        """Bind the ungated pod to the one node of this test its selector and required node
        affinity allow (``AssertionError`` if not exactly one), then report it in ``phase``."""
        pod = self.pod(name)
        fits = [n["metadata"]["name"] for n in self.nodes() if allows(pod, n)]
        assert len(fits) == 1, f"pod {name} fits nodes {fits}: {pod['spec'].get('nodeSelector')}"
        base = f"/api/v1/namespaces/{self.namespace}/pods/{name}"
        binding = {
            "apiVersion": "v1",
            "kind": "Binding",
            "metadata": {"name": name},
            "target": {"apiVersion": "v1", "kind": "Node", "name": fits[0]},
        }
        self.plane.request("POST", f"{base}/binding", binding)
        bound = self.pod(name)
        self.plane.request("PUT", f"{base}/status", {**bound, "status": {**bound["status"], "phase": phase}})
        return fits[0]

    def finish(self, name: str) -> None:
        """The kubelet confirms a deleted pod has stopped: it is gone."""
        self.plane.request(
            "DELETE",
            f"/api/v1/namespaces/{self.namespace}/pods/{name}",
            {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0},
        )

    # -- the end ---------------------------------------------------------------------------------
    def close(self) -> None:
        """Remove what the test made outside its namespace, and its pods (the namespace stays:
        without kube-controller-manager it would never finish terminating)."""
        try:
            now = {"apiVersion": "v1", "kind": "DeleteOptions", "gracePeriodSeconds": 0}
            self.plane.request("DELETE", f"/api/v1/namespaces/{self.namespace}/pods", now)
            selector = quote(f"{RUN}={self.run}")
            self.plane.request("DELETE", f"/api/v1/nodes?labelSelector={selector}", now)
            for resource, name in self.cluster_objects:
                self._delete(resource, name)
            self._delete(LEASES, self.lease, CONTROLLER_NAMESPACE)
        finally:
            self.admin.close()

    def _delete(self, resource: Resource, name: str, namespace: str | None = None) -> None:
        with contextlib.suppress(ApiNotFoundError):
            self.admin.delete(resource, name, namespace)


def allows(pod: Mapping[str, Any], node: Mapping[str, Any]) -> bool:
    """Whether ``pod``'s node selector and required node affinity admit ``node``, as
    kube-scheduler's NodeAffinity filter reads them (the operators the tests use: ``In`` and
    ``Exists`` on labels, ``In`` on ``metadata.name``)."""
    spec = pod.get("spec") or {}
    labels = (node.get("metadata") or {}).get("labels") or {}
    if any(labels.get(k) != v for k, v in (spec.get("nodeSelector") or {}).items()):
        return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = required.get("nodeSelectorTerms")
    if terms is None:
        return True
    fields = {"metadata.name": node["metadata"]["name"]}
    return any(_term_allows(term, labels, fields) for term in terms)


def _term_allows(term: Mapping[str, Any], labels: Mapping[str, str], fields: Mapping[str, str]) -> bool:
    expressions = term.get("matchExpressions") or []
    matched = term.get("matchFields") or []
    if not expressions and not matched:
        return False  # an empty term matches no node
    return all(_holds(r, labels) for r in expressions) and all(_holds(r, fields) for r in matched)


def _holds(requirement: Mapping[str, Any], values: Mapping[str, str]) -> bool:
    operator, key = requirement["operator"], requirement["key"]
    if operator == "In":
        return values.get(key) in requirement.get("values", ())
    if operator == "Exists":
        return key in values
    raise AssertionError(f"operator {operator} is not read by these tests")
