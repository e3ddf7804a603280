"""The machine-readable result of ``toposched place`` (``-o json`` / ``-o yaml``).

One object, the same keys whether the gang was placed or not::

    {"placed": bool, "search": "faithful" | "complete", "foundBy": "faithful" | "complete" | null,
     "note": str | null, "policy": str, "topology": str,
     "pods": [{"name", "podSet", "index", "node"}],
     "assignments": {"<podSet>": {"levels": [...], "domains": [{"values": [...], "count": int}]}},
     "reason": str | null, "explanation": object | null}

``note`` is set when the complete search ran: "faithful placement failed: <reason>; complete
search placed it", or why it found nothing (``explanation.budgetExhausted`` when it ran out).

Other tools parse this; change it only in a backwards-compatible way.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from toposched.model import Placement, Search, Unschedulable
from toposched.scheduler.codec import placement_to_json, unschedulable_to_json

# What the scheduler stores on an explanation but this document already says at its top level.
_TOP_LEVEL = frozenset({"reason", "gang", "topology", "policy", "note"})


def result_document(result: Placement | Unschedulable, search: Search = Search.FAITHFUL) -> dict[str, Any]:
    """The JSON contract for one placement attempt in ``search`` mode, built from the encoding
    the service stores."""
    if isinstance(result, Placement):
        stored = placement_to_json(result)
        return {
            "placed": True,
            "search": str(search),
            "foundBy": str(result.found_by),
            "note": result.note or None,
            "policy": stored["policy"],
            "topology": stored["topology"],
            "pods": stored["pods"],
            "assignments": stored["assignments"],
            "reason": None,
            "explanation": None,
        }
    explanation = {k: v for k, v in unschedulable_to_json(result).items() if k not in _TOP_LEVEL}
    return {
        "placed": False,
        "search": str(search),
        "foundBy": None,
        "note": result.note or None,
        "policy": str(result.policy),
        "topology": result.topology,
        "pods": [],
        "assignments": {},
        "reason": result.message,
        "explanation": explanation,
    }


def to_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2)


def to_yaml(document: dict[str, Any]) -> str:
    return yaml.safe_dump(document, sort_keys=False, default_flow_style=False).rstrip("\n")
