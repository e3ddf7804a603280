"""Kueue objects toposched writes: Topology, the Workload admission patch, the ungater's pod patches."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from toposched.emit.kueue.v1beta1 import to_v1beta1
from toposched.emit.kueue.v1beta2 import to_v1beta2
from toposched.model import HOSTNAME, Placement, Problem, SpecError, Topology, TopologyAssignment

GROUP = "kueue.x-k8s.io"
TOPOLOGY_VERSIONS = ("v1alpha1", "v1beta1", "v1beta2")
WORKLOAD_VERSIONS = ("v1beta1", "v1beta2")
TOPOLOGY_GATE = "kueue.x-k8s.io/topology"


def topology_object(topology: Topology, api_version: str = f"{GROUP}/v1beta2") -> dict[str, Any]:
    """A Kueue ``Topology`` with the levels coarsest first. Aliases have no Kueue field and are dropped."""
    version = _version(api_version, TOPOLOGY_VERSIONS, "apiVersion")
    return {
        "apiVersion": f"{GROUP}/{version}",
        "kind": "Topology",
        "metadata": {"name": topology.name},
        "spec": {"levels": [{"nodeLabel": level} for level in topology.levels]},
    }


def workload_status_patch(
    gang_name: str,
    assignments: Mapping[str, TopologyAssignment],
    version: str = "v1beta2",
    *,
    namespace: str | None = None,
) -> dict[str, Any]:
    """The admission part of a Workload's status: one ``podSetAssignments`` entry per PodSet,
    in the mapping's order, each with its count and its TopologyAssignment encoded for ``version``
    (``v1beta1`` / ``v1beta2``, with or without the ``kueue.x-k8s.io/`` group)."""
    chosen = _version(version, WORKLOAD_VERSIONS, "version")
    encode = to_v1beta1 if chosen == "v1beta1" else to_v1beta2
    metadata: dict[str, Any] = {"name": gang_name}
    if namespace is not None:
        metadata["namespace"] = namespace
    return {
        "apiVersion": f"{GROUP}/{chosen}",
        "kind": "Workload",
        "metadata": metadata,
        "status": {
            "admission": {
                "podSetAssignments": [
                    {"name": name, "count": assignment.count, "topologyAssignment": encode(assignment)}
                    for name, assignment in assignments.items()
                ]
            }
        },
    }


def node_selector_patches(placement: Placement, topology: Topology) -> dict[str, dict[str, Any]]:
    """Per pod name, the patch the topology ungater applies: ``spec.nodeSelector`` set to the pod's
    domain labels and the ``kueue.x-k8s.io/topology`` scheduling gate removed.

    The selector holds only the hostname when hostname is the lowest level, otherwise every level.
    The patch is a strategic merge patch (``kubectl patch --type strategic``): ``nodeSelector``
    merges key by key and the gate entry carries ``$patch: delete``, which removes just that gate.
    ``apply_pod_patch`` applies it to a pod manifest.
    """
    levels = topology.levels
    problems: list[Problem] = []
    patches: dict[str, dict[str, Any]] = {}
    for pod in placement.pods:
        if len(pod.domain) != len(levels):
            problems.append(
                Problem(
                    f"pods[{pod.pod}].domain",
                    f"domain {list(pod.domain)} has {len(pod.domain)} values, topology {topology.name!r} "
                    f"has {len(levels)} levels",
                    "place the gang on this topology before emitting its patches",
                )
            )
            continue
        selector = (
            {HOSTNAME: pod.domain[-1]}
            if topology.hostname_is_lowest
            else dict(zip(levels, pod.domain, strict=True))
        )
        patches[pod.pod] = {
            "spec": {
                "nodeSelector": selector,
                "schedulingGates": [{"$patch": "delete", "name": TOPOLOGY_GATE}],
            }
        }
    if problems:
        raise SpecError(problems)
    return patches


def apply_pod_patch(pod: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``pod`` with a ``node_selector_patches`` patch applied (merged selector, gate
    removed, other gates kept)."""
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


def _version(text: str, allowed: tuple[str, ...], path: str) -> str:
    version = text.removeprefix(f"{GROUP}/")
    if version not in allowed:
        known = ", ".join(f"{GROUP}/{v}" for v in allowed)
        raise SpecError([Problem(path, f"unsupported Kueue API version {text!r}", f"use one of {known}")])
    return version
