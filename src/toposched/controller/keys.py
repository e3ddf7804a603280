"""The keys the controller reads on pods and writes on them.

A pod is the controller's to ungate when it carries the scheduling gate ``GATE`` and names a gang
by the membership rules of a registered front end (``toposched.frontends.membership``: Kueue's
pod-group label, the ``pod-group-name`` annotation of KAI, OSMO and Grove pods, upstream
Kubernetes' ``spec.schedulingGroup``, ...), which also say which objects complete the gang.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.frontends.membership import GangKey, metadata_of, name_of, namespace_of

GATE = "toposched.io/topology"  # the scheduling gate the controller removes
ASSIGNMENT = "toposched.io/assignment"  # the pod's recorded assignment (JSON, see ``records``)
BATCH = "toposched.io/gang-assignments"  # the assignments of a gang's pods written after this one
FIELD_MANAGER = "toposched"

__all__ = [
    "ASSIGNMENT",
    "BATCH",
    "FIELD_MANAGER",
    "GATE",
    "GangKey",
    "annotations_of",
    "is_gated",
    "is_terminating",
    "name_of",
    "namespace_of",
]


def annotations_of(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    return metadata_of(obj, "annotations")


def is_gated(pod: Mapping[str, Any]) -> bool:
    """Whether the pod still carries the controller's scheduling gate."""
    gates = (pod.get("spec") or {}).get("schedulingGates") or []
    return any(isinstance(g, Mapping) and g.get("name") == GATE for g in gates)


def is_terminating(pod: Mapping[str, Any]) -> bool:
    return bool((pod.get("metadata") or {}).get("deletionTimestamp"))
