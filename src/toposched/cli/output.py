"""The machine-readable result of ``toposched place`` (``-o json`` / ``-o yaml``).

One object, the same keys whether the gang was placed or not::

    {"placed": bool, "policy": str, "topology": str,
     "pods": [{"name", "podSet", "index", "node"}],
     "assignments": {"<podSet>": {"levels": [...], "domains": [{"values": [...], "count": int}]}},
     "reason": str | null, "explanation": object | null}

Other tools parse this; change it only in a backwards-compatible way.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from toposched.model import Placement, TopologyAssignment, Unschedulable


def result_document(result: Placement | Unschedulable) -> dict[str, Any]:
    """The JSON contract for one placement attempt."""
    if isinstance(result, Placement):
        return {
            "placed": True,
            "policy": str(result.policy),
            "topology": result.topology,
            "pods": [
                {"name": p.pod, "podSet": p.group, "index": p.index, "node": p.node} for p in result.pods
            ],
            "assignments": {name: assignment_document(a) for name, a in result.assignments.items()},
            "reason": None,
            "explanation": None,
        }
    return {
        "placed": False,
        "policy": str(result.policy),
        "topology": result.topology,
        "pods": [],
        "assignments": {},
        "reason": result.message,
        "explanation": explanation_document(result),
    }


def assignment_document(assignment: TopologyAssignment) -> dict[str, Any]:
    return {
        "levels": list(assignment.levels),
        "domains": [{"values": list(d.values), "count": d.count} for d in assignment.domains],
    }


def explanation_document(result: Unschedulable) -> dict[str, Any]:
    """The structured reasons of an ``Unschedulable``, camelCase like the rest of the document."""
    return {
        "group": result.group,
        "level": result.level,
        "bestDomain": list(result.best_domain) if result.best_domain is not None else None,
        "fit": result.fit,
        "needed": result.needed,
        "unit": result.unit,
        "totalNodes": result.total_nodes,
        "excluded": dict(result.excluded),
        "shortfall": dict(result.shortfall),
        "layers": [
            {"level": layer.level, "fit": layer.fit, "needed": layer.needed} for layer in result.layers
        ],
    }


def to_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2)


def to_yaml(document: dict[str, Any]) -> str:
    return yaml.safe_dump(document, sort_keys=False, default_flow_style=False).rstrip("\n")
