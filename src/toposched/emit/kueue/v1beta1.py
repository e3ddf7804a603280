"""TopologyAssignment in the v1beta1 shape: one ``{values, count}`` entry per domain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.emit.kueue._checks import as_list, check_levels, fail, label_value, positive_int, unwrap
from toposched.model import DomainCount, Problem, TopologyAssignment


def to_v1beta1(assignment: TopologyAssignment) -> dict[str, Any]:
    """``{"levels": [...], "domains": [{"values": [...], "count": n}, ...]}``, domains in order."""
    return {
        "levels": list(assignment.levels),
        "domains": [{"values": list(d.values), "count": d.count} for d in assignment.domains],
    }


def from_v1beta1(obj: object, *, path: str = "topologyAssignment") -> TopologyAssignment:
    """Decode and validate a v1beta1 TopologyAssignment (a mapping, as JSON or YAML gives it).

    Rules: 1..16 levels; every domain has one value per level and a count of at least 1.
    Raises ``WorkloadSpecError`` listing every problem with its field path.
    """
    obj = unwrap(obj)
    problems: list[Problem] = []
    if not isinstance(obj, Mapping):
        raise fail(
            [Problem(path, "a topology assignment is a mapping", "write {levels: [...], domains: [...]}")]
        )
    levels = check_levels(obj.get("levels"), f"{path}.levels", problems)
    raw_domains = as_list(obj.get("domains"))
    if raw_domains is None:
        problems.append(
            Problem(
                f"{path}.domains",
                "domains is missing or not a list",
                "write domains: [{values: [...], count: n}]",
            )
        )
        raw_domains = []
    domains: list[DomainCount] = []
    for i, raw in enumerate(raw_domains):
        where = f"{path}.domains[{i}]"
        if not isinstance(raw, Mapping):
            problems.append(Problem(where, "a domain is a mapping", "write {values: [...], count: n}"))
            continue
        values = _values(raw.get("values"), levels, f"{where}.values", problems)
        count = positive_int(raw.get("count"))
        if count is None:
            problems.append(
                Problem(f"{where}.count", f"count must be a whole number >= 1, got {raw.get('count')!r}", "")
            )
        if values is not None and count is not None:
            domains.append(DomainCount(values, count))
    if problems or levels is None:
        raise fail(problems)
    return TopologyAssignment(levels, tuple(domains))


def _values(
    raw: object, levels: tuple[str, ...] | None, path: str, problems: list[Problem]
) -> tuple[str, ...] | None:
    items = as_list(raw)
    if items is None:
        problems.append(Problem(path, "values is missing or not a list", "give one label value per level"))
        return None
    out: list[str] = []
    for j, item in enumerate(items):
        text = label_value(item)
        if text is None:
            problems.append(Problem(f"{path}[{j}]", f"{item!r} is not a label value", "write a string"))
        else:
            out.append(text)
    if levels is not None and len(items) != len(levels):
        problems.append(
            Problem(
                path,
                f"{len(items)} values for {len(levels)} levels",
                "give exactly one value per level, in level order",
            )
        )
        return None
    return tuple(out) if len(out) == len(items) else None
