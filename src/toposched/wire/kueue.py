"""Kueue objects (``kueue.x-k8s.io``): the Topology, the PodSet topology annotations, the Workload
admission patch and the topology ungater's pod patch. The TopologyAssignment encodings inside the
admission are the Kueue emitter's job; this module only places them."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.model import Problem, SliceLayer, SpecError, Topology

GROUP = "kueue.x-k8s.io"
TOPOLOGY_VERSIONS = ("v1alpha1", "v1beta1", "v1beta2")
WORKLOAD_VERSIONS = ("v1beta1", "v1beta2")
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"

# The PodSet annotations of KEP-2724 ("User-facing API"), on a PodSet's pod template.
REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
SLICE_CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
GROUP_NAME = "kueue.x-k8s.io/podset-group-name"
QUEUE_NAME = "kueue.x-k8s.io/queue-name"  # the LocalQueue a workload is submitted to
MAX_SLICE_LAYERS = 3


@dataclass(frozen=True, slots=True)
class PodSetAssignment:
    """One ``podSetAssignments`` entry: the PodSet, its pod count and its encoded assignment."""

    name: str
    count: int
    topology_assignment: Mapping[str, Any]


def version_of(text: str, allowed: Sequence[str], path: str) -> str:
    """``v1beta2`` for ``v1beta2`` or ``kueue.x-k8s.io/v1beta2``; ``SpecError`` when not allowed."""
    version = text.removeprefix(f"{GROUP}/")
    if version not in allowed:
        known = ", ".join(f"{GROUP}/{v}" for v in allowed)
        raise SpecError([Problem(path, f"unsupported Kueue API version {text!r}", f"use one of {known}")])
    return version


def topology_object(topology: Topology, api_version: str = f"{GROUP}/v1beta2") -> dict[str, Any]:
    """A Kueue ``Topology`` with the levels coarsest first. Aliases have no Kueue field and are dropped."""
    version = version_of(api_version, TOPOLOGY_VERSIONS, "apiVersion")
    return {
        "apiVersion": f"{GROUP}/{version}",
        "kind": "Topology",
        "metadata": {"name": topology.name},
        "spec": {"levels": [{"nodeLabel": level} for level in topology.levels]},
    }


def podset_annotations(
    *,
    required: str | None = None,
    preferred: str | None = None,
    slices: Sequence[SliceLayer] = (),
    group: str | None = None,
) -> dict[str, str]:
    """A PodSet's topology request as its template annotations: the required or preferred level,
    the PodSet group it shares that level with, and its slice layers (one layer as the
    slice-required-topology + slice-size pair, several as the JSON constraints list)."""
    annotations: dict[str, str] = {}
    if required is not None:
        annotations[REQUIRED] = required
    elif preferred is not None:
        annotations[PREFERRED] = preferred
    if group is not None:
        annotations[GROUP_NAME] = group
    if len(slices) == 1:
        annotations[SLICE_REQUIRED] = slices[0].level
        annotations[SLICE_SIZE] = str(slices[0].size)
    elif slices:
        annotations[SLICE_CONSTRAINTS] = json.dumps([{"topology": s.level, "size": s.size} for s in slices])
    return annotations


def workload_admission(
    name: str, version: str, pod_sets: Sequence[PodSetAssignment], *, namespace: str | None = None
) -> dict[str, Any]:
    """The admission part of a Workload's status, one ``podSetAssignments`` entry per PodSet in order;
    ``version`` is a checked Workload version (``v1beta1`` / ``v1beta2``)."""
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {
        "apiVersion": f"{GROUP}/{version}",
        "kind": "Workload",
        "metadata": metadata,
        "status": {
            "admission": {
                "podSetAssignments": [
                    {"name": p.name, "count": p.count, "topologyAssignment": dict(p.topology_assignment)}
                    for p in pod_sets
                ]
            }
        },
    }


def ungate_patch(node_selector: Mapping[str, str], *, gate: str = TOPOLOGY_GATE) -> dict[str, Any]:
    """The strategic merge patch (``kubectl patch --type strategic``) the topology ungater applies
    to a pod: ``nodeSelector`` merges key by key and the gate entry carries ``$patch: delete``,
    which removes just ``gate`` (Kueue's ``kueue.x-k8s.io/topology``, or toposched's own)."""
    return {
        "spec": {
            "nodeSelector": dict(node_selector),
            "schedulingGates": [{"$patch": "delete", "name": gate}],
        }
    }


def apply_pod_patch(pod: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``pod`` with an ``ungate_patch`` applied (merged selector, gate removed, other
    gates kept)."""
    out = copy.deepcopy(dict(pod))
    spec = out.setdefault("spec", {})
    changes = patch.get("spec", {})
    if "nodeSelector" in changes:
        spec["nodeSelector"] = {**(spec.get("nodeSelector") or {}), **changes["nodeSelector"]}
    removed = {g["name"] for g in changes.get("schedulingGates", []) if g.get("$patch") == "delete"}
    if removed and "schedulingGates" in spec:
        gates = [g for g in spec["schedulingGates"] or [] if g.get("name") not in removed]
        if gates:
            spec["schedulingGates"] = gates
        else:
            del spec["schedulingGates"]
    return out
