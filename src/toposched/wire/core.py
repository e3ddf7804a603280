"""Kubernetes core objects (``v1``): Node, Pod, the toleration entry, a pod's node affinity pin and
the ``List`` kubectl prints. Everything toposched writes of the core group is built here, so a
field's spelling lives in one place."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

from toposched.model import PodSpec, Taint, Toleration

API_VERSION = "v1"
# The image of a container written for a pod whose input names none (a gang built without a pod
# spec): the pause image, which runs and does nothing; the API server requires some image.
PLACEHOLDER_IMAGE = "registry.k8s.io/pause:3.10"
# Pod spec fields that tie a pod to the scheduler or node its input was written for.
BOUND_FIELDS = frozenset({"nodeName", "schedulerName", "schedulingGates", "schedulingGroup", "workloadRef"})


def node_object(
    name: str,
    labels: Mapping[str, str],
    allocatable: Mapping[str, str],
    *,
    capacity: Mapping[str, str] | None = None,
    taints: Iterable[Taint] = (),
    unschedulable: bool = False,
    ready: bool = True,
) -> dict[str, Any]:
    """A Node as ``kubectl get nodes -o yaml`` shows it: labels, spec (cordon, taints) and status."""
    spec: dict[str, Any] = {}
    if unschedulable:
        spec["unschedulable"] = True
    listed = [taint_entry(t) for t in taints]
    if listed:
        spec["taints"] = listed
    return {
        "apiVersion": API_VERSION,
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels)},
        "spec": spec,
        "status": {
            "capacity": dict(capacity if capacity is not None else allocatable),
            "allocatable": dict(allocatable),
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def pod_object(
    name: str,
    namespace: str,
    *,
    labels: Mapping[str, str] | None = None,
    annotations: Mapping[str, str] | None = None,
    spec: Mapping[str, Any] | None = None,
    node_name: str | None = None,
    phase: str | None = None,
) -> dict[str, Any]:
    """A Pod; ``node_name`` and ``phase`` make it a running pod as a cluster dump shows it."""
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:  # none is none: no `labels: {}` in what is printed
        metadata["labels"] = dict(labels)
    if annotations:
        metadata["annotations"] = dict(annotations)
    pod: dict[str, Any] = {"apiVersion": API_VERSION, "kind": "Pod", "metadata": metadata}
    if spec is not None or node_name is not None:
        pod["spec"] = {**({"nodeName": node_name} if node_name is not None else {}), **(spec or {})}
    if phase is not None:
        pod["status"] = {"phase": phase}
    return pod


def annotations_patch(annotations: Mapping[str, str | None]) -> dict[str, Any]:
    """The merge patch that sets (or, for None, removes) some of an object's annotations."""
    return {"metadata": {"annotations": dict(annotations)}}


def node_name_requirement(node: str) -> dict[str, Any]:
    """The node selector requirement that matches exactly the node named ``node`` (a
    ``matchFields`` entry on ``metadata.name``, as the DaemonSet controller pins its pods)."""
    return {"key": "metadata.name", "operator": "In", "values": [node]}


def pinned_affinity(affinity: Mapping[str, Any] | None, node: str) -> dict[str, Any]:
    """``affinity`` with its required node affinity narrowed to the node named ``node``.

    Terms are ORed and a term's requirements ANDed, so the node's requirement is appended to each
    term; without terms, there is one term holding it alone. Both are what the API server lets a
    pod that still has scheduling gates change (it may only add to non-empty terms). An empty
    term matches no node and may not be changed, so it is left as it is."""
    out = copy.deepcopy(dict(affinity or {}))
    node_affinity = out.setdefault("nodeAffinity", {})
    required = node_affinity.setdefault("requiredDuringSchedulingIgnoredDuringExecution", {})
    terms = required.get("nodeSelectorTerms") or []
    pin = node_name_requirement(node)
    if not terms:
        required["nodeSelectorTerms"] = [{"matchFields": [pin]}]
        return out
    required["nodeSelectorTerms"] = [
        {**term, "matchFields": [*(term.get("matchFields") or []), pin]}
        if term.get("matchExpressions") or term.get("matchFields")
        else term
        for term in terms
    ]
    return out


def unpinned_affinity(affinity: Mapping[str, Any] | None, node: str) -> dict[str, Any] | None:
    """``affinity`` as it was before ``pinned_affinity(affinity, node)``: the last requirement on
    ``node``'s name taken out of each term, a term left empty by that dropped, and what is left
    empty above it dropped too (None when nothing is left)."""
    if not affinity:
        return None
    out = copy.deepcopy(dict(affinity))
    node_affinity = out.get("nodeAffinity") or {}
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    pin = node_name_requirement(node)
    terms = []
    for term in required.get("nodeSelectorTerms") or []:
        fields = list(term.get("matchFields") or [])
        if pin not in fields:
            terms.append(term)
            continue
        del fields[len(fields) - 1 - fields[::-1].index(pin)]
        kept = {k: v for k, v in term.items() if k != "matchFields"}
        if fields:
            kept["matchFields"] = fields
        if kept.get("matchExpressions") or kept.get("matchFields"):
            terms.append(kept)
    if "requiredDuringSchedulingIgnoredDuringExecution" in node_affinity:
        if terms:
            required["nodeSelectorTerms"] = terms
        else:
            del node_affinity["requiredDuringSchedulingIgnoredDuringExecution"]
    if "nodeAffinity" in out and not node_affinity:
        del out["nodeAffinity"]
    return out or None


def taint_entry(taint: Taint) -> dict[str, str]:
    """One ``spec.taints`` entry of a Node."""
    entry = {"key": taint.key}
    if taint.value:
        entry["value"] = taint.value
    entry["effect"] = str(taint.effect)
    return entry


def toleration_for(taint: Taint) -> dict[str, str]:
    """The pod ``tolerations`` entry that admits exactly this taint."""
    if taint.value:
        return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": str(taint.effect)}
    return {"key": taint.key, "operator": "Exists", "effect": str(taint.effect)}


def toleration_entry(toleration: Toleration) -> dict[str, Any]:
    """One pod ``tolerations`` entry, with only the fields that are set."""
    entry: dict[str, Any] = {"operator": str(toleration.operator)}
    if toleration.key:
        entry = {"key": toleration.key, **entry}
    if toleration.value:
        entry["value"] = toleration.value
    if toleration.effect is not None:
        entry["effect"] = str(toleration.effect)
    if toleration.toleration_seconds is not None:
        entry["tolerationSeconds"] = toleration.toleration_seconds
    return entry


def pod_spec_object(pod: PodSpec, *, container: str = "main") -> dict[str, Any]:
    """A pod ``spec`` for ``pod``, written for another scheduler. The input's own spec
    (``PodSpec.template``: containers, images, volumes, restart policy...) without the fields that
    tie it to the scheduler or node it was written for (``BOUND_FIELDS``: the target's objects
    and controllers set their own); without one, one container named ``container`` requesting
    the pod's resources, with its tolerations and node selector. Then what the API server requires
    and the input left out is filled in: an image (``PLACEHOLDER_IMAGE``) and, for each resource
    that cannot be overcommitted (GPUs and other extended resources, huge pages), a limit equal
    to the request."""
    if pod.template:
        spec = {k: copy.deepcopy(v) for k, v in pod.template.items() if k not in BOUND_FIELDS}
    else:
        spec = {"containers": [{"name": container, "resources": {"requests": pod.requests.pretty()}}]}
        if pod.tolerations:
            spec["tolerations"] = [toleration_entry(t) for t in pod.tolerations]
        if pod.node_selector:
            spec["nodeSelector"] = dict(pod.node_selector)
    for kind in ("initContainers", "containers"):
        entries = spec.get(kind)
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict):
                _fill_required(entry)
    return spec


def _fill_required(container: dict[str, Any]) -> None:
    """The image and the limits the API server requires of a container, where they are missing."""
    if not container.get("image"):
        container["image"] = PLACEHOLDER_IMAGE
    resources = container.get("resources")
    requests = resources.get("requests") if isinstance(resources, Mapping) else None
    if not isinstance(resources, Mapping) or not isinstance(requests, Mapping):
        return
    limits = resources.get("limits")
    limits = dict(limits) if isinstance(limits, Mapping) else {}
    missing = {k: v for k, v in requests.items() if k not in limits and not overcommittable(str(k))}
    if missing:
        container["resources"] = {**resources, "limits": {**limits, **missing}}


def overcommittable(resource: str) -> bool:
    """Whether a container may request ``resource`` below its limit: only Kubernetes' own resources
    (no domain, or ``kubernetes.io/``) other than huge pages (the API server's IsOvercommitAllowed);
    others need a limit equal to the request."""
    native = "/" not in resource or "kubernetes.io/" in resource
    return native and not resource.startswith("hugepages-")


def list_object(items: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """A ``v1 List``, the shape of ``kubectl get ... -o yaml`` output."""
    return {
        "apiVersion": API_VERSION,
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": list(items),
    }
