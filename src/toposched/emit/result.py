"""The JSON contract of a placement attempt: what ``toposched place -o json`` prints and what the
scheduler stores on a workload (its placement and its explanation).

Placement (the CLI's JSON contract, minus the per-attempt keys)::

    {"topology": str, "policy": str,
     "pods": [{"name", "podSet", "index", "node"}],
     "assignments": {"<podSet>": {"levels": [...], "domains": [{"values": [...], "count": int}]}}}

Explanation: ``{"reason": str, ...}`` plus the structured fields of an ``Unschedulable`` in
camelCase (``group``, ``level``, ``bestDomain``, ``fit``, ``needed``..., and ``note`` /
``budgetExhausted`` from the complete search). The API reuses this module.

The full explanation (``explanation_to_json``): the failing group and level, candidate domains
with ``fit`` / ``needed`` / ``shortfall``, ``excludedNodes`` (reason, count, the taint with the
toleration that admits it, or the resource), and checked ``suggestions``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.model import (
    DefragPlan,
    DomainCount,
    Exclusion,
    Explanation,
    Placement,
    PodPlacement,
    Policy,
    Problem,
    Search,
    StoreError,
    TopologyAssignment,
    Unschedulable,
    reported_problems,
)
from toposched.wire.core import toleration_for

Json = Any  # decoded JSON, as the store keeps it


def placement_to_json(placement: Placement) -> dict[str, Any]:
    """A placement as stored on the workload record."""
    return {
        "topology": placement.topology,
        "policy": str(placement.policy),
        "pods": [
            {"name": p.pod, "podSet": p.group, "index": p.index, "node": p.node} for p in placement.pods
        ],
        "assignments": {name: assignment_to_json(a) for name, a in placement.assignments.items()},
        "foundBy": str(placement.found_by),
        "note": placement.note or None,
    }


def assignment_to_json(assignment: TopologyAssignment) -> dict[str, Any]:
    """One PodSet's topology assignment."""
    return {
        "levels": list(assignment.levels),
        "domains": [{"values": list(d.values), "count": d.count} for d in assignment.domains],
    }


def placement_from_json(raw: Json, *, gang: str = "") -> Placement:
    """Decode a stored placement. Pod domains are not stored, so they come back empty."""
    try:
        pods = tuple(
            PodPlacement(
                str(p["name"]),
                str(p["podSet"]),
                int(p["index"]),
                None if p["node"] is None else str(p["node"]),
                (),
            )
            for p in raw["pods"]
        )
        assignments = assignments_from_json(raw["assignments"])
        found_by = Search(raw.get("foundBy") or Search.FAITHFUL)  # absent in older records
        note = str(raw.get("note") or "")
        return Placement(
            gang, str(raw["topology"]), Policy(raw["policy"]), pods, assignments, found_by=found_by, note=note
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"stored placement is damaged: {exc!r}") from exc


def assignments_from_json(raw: Json) -> dict[str, TopologyAssignment]:
    """Decode the ``assignments`` map of a stored placement."""
    if not isinstance(raw, Mapping):
        raise StoreError(f"stored assignments are not a map: {raw!r}")
    try:
        return {
            str(name): TopologyAssignment(
                tuple(str(level) for level in a["levels"]),
                tuple(DomainCount(tuple(str(v) for v in d["values"]), int(d["count"])) for d in a["domains"]),
            )
            for name, a in raw.items()
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"stored assignments are damaged: {exc!r}") from exc


def pod_nodes(placement: Json) -> dict[str, str | None]:
    """Pod name -> node name of a stored placement (empty for none)."""
    if not isinstance(placement, Mapping):
        return {}
    return {str(p["name"]): p.get("node") for p in placement.get("pods", [])}


def unschedulable_to_json(result: Unschedulable) -> dict[str, Any]:
    """Why a gang does not fit: the reason first, then the structured fields."""
    return {
        "reason": result.message,
        "gang": result.gang,
        "topology": result.topology,
        "policy": str(result.policy),
        "group": result.group,
        "level": result.level,
        "bestDomain": list(result.best_domain) if result.best_domain is not None else None,
        "fit": result.fit,
        "needed": result.needed,
        "unit": result.unit,
        "totalNodes": result.total_nodes,
        "excluded": dict(result.excluded),
        "shortfall": dict(result.shortfall),
        "layers": [{"level": x.level, "fit": x.fit, "needed": x.needed} for x in result.layers],
        "note": result.note or None,
        "budgetExhausted": result.budget_exhausted,
    }


def reason_to_json(reason: str, **fields: Json) -> dict[str, Any]:
    """An explanation that is not an engine result (missing topology, failed node, bad spec)."""
    return {"reason": reason, **fields}


def problems_to_json(problems: tuple[Problem, ...]) -> list[dict[str, str]]:
    """Spec problems as ``[{path, message, hint}]``, as many and as long as an error shows."""
    return [{"path": p.path, "message": p.message, "hint": p.hint} for p in reported_problems(problems)]


# What the scheduler stores on an explanation but this document already says at its top level.
_TOP_LEVEL = frozenset({"reason", "gang", "topology", "policy", "note"})


def result_document(result: Placement | Unschedulable, search: Search = Search.FAITHFUL) -> dict[str, Any]:
    """The document ``toposched place -o json`` prints for one placement attempt in ``search``
    mode (README, "Output contract"): the stored encoding plus ``placed``, ``search``,
    ``foundBy``, ``note``, ``reason`` and ``explanation``. ``note`` is set when the complete
    search ran: "faithful placement failed: <reason>; complete search placed it", or why it found
    nothing (``explanation.budgetExhausted`` when it ran out). Other tools parse it; change it
    only in a backwards-compatible way."""
    if isinstance(result, Placement):
        stored = placement_to_json(result)
        return {
            "placed": True,
            "search": str(search),
            "foundBy": stored["foundBy"],
            "note": stored["note"],
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


def explanation_to_json(explanation: Explanation) -> dict[str, Any]:
    """The explanation as the JSON the CLI and the API print."""
    return {
        "group": explanation.group,
        "level": explanation.level,
        "candidates": [
            {
                "domain": list(c.domain),
                "fit": c.fit,
                "needed": c.needed,
                "shortfall": dict(c.shortfall),
                "layers": [{"level": x.level, "fit": x.fit, "needed": x.needed} for x in c.layers],
                "shortSlices": [{"domain": list(x.domain), "held": x.held, "full": x.full} for x in c.short],
                "text": c.text(),
            }
            for c in explanation.candidates
        ],
        "excludedNodes": [_exclusion_document(e) for e in explanation.exclusions],
        "suggestions": [
            {
                "kind": str(s.kind),
                "text": s.text,
                "endedWorkloads": list(s.ended),
                "domains": [list(d) for d in s.domains],
            }
            for s in explanation.suggestions
        ],
        "untried": [str(kind) for kind in explanation.untried],
    }


def _exclusion_document(exclusion: Exclusion) -> dict[str, Any]:
    document: dict[str, Any] = {"reason": str(exclusion.reason), "nodes": exclusion.nodes}
    if exclusion.taint is not None:
        document["taint"] = str(exclusion.taint)
        document["toleration"] = toleration_for(exclusion.taint)
    if exclusion.resource is not None:
        document["resource"] = exclusion.resource
    return document


def defrag_to_json(plan: DefragPlan) -> dict[str, Any]:
    """Defragmentation advice as the CLI and the API print it."""
    return {
        "level": plan.level,
        "wanted": plan.wanted,
        "freed": ["/".join(path) for path in plan.freed],
        "alreadyFree": plan.already_free,
        "complete": plan.complete,
        "reason": plan.reason,
        "workloadsMoved": len(plan.moves),
        "podsMoved": plan.pods_moved,
        "moves": [
            {
                "workload": move.workload,
                "pods": [
                    {"namespace": p.namespace, "name": p.pod, "from": p.source, "to": p.target}
                    for p in move.pods
                ],
            }
            for move in plan.moves
        ],
    }
