"""Kueue results toposched writes: the Workload admission patch and the ungater's pod patches,
shaped by ``toposched.wire.kueue``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.emit.kueue.v1beta1 import to_v1beta1
from toposched.emit.kueue.v1beta2 import to_v1beta2
from toposched.model import HOSTNAME, Placement, Problem, SpecError, Topology, TopologyAssignment
from toposched.wire.kueue import (
    TOPOLOGY_GATE,
    WORKLOAD_VERSIONS,
    PodSetAssignment,
    ungate_patch,
    version_of,
    workload_admission,
)


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
    chosen = version_of(version, WORKLOAD_VERSIONS, "version")
    encode = to_v1beta1 if chosen == "v1beta1" else to_v1beta2
    pod_sets = [PodSetAssignment(name, a.count, encode(a)) for name, a in assignments.items()]
    return workload_admission(gang_name, chosen, pod_sets, namespace=namespace)


def node_selector_patches(
    placement: Placement, topology: Topology, *, gate: str = TOPOLOGY_GATE
) -> dict[str, dict[str, Any]]:
    """Per pod name, the patch the topology ungater applies: ``spec.nodeSelector`` set to the pod's
    domain labels and the scheduling ``gate`` (Kueue's ``kueue.x-k8s.io/topology`` by default) removed.

    The selector holds only the hostname when hostname is the lowest level, otherwise every level;
    ``toposched.wire.kueue.ungate_patch`` shapes the patch and ``toposched.wire.kueue.apply_pod_patch`` applies it.
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
        patches[pod.pod] = ungate_patch(selector, gate=gate)
    if problems:
        raise SpecError(problems)
    return patches
