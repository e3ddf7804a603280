"""The agreement table, the disagreements spelled out, and a disagreement as a conformance case
whose expectation is Kueue's answer (ready for tests/conformance/cases/kueue/ once explained)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from tests.vs_kueue.compare import KUEUE_PREFIX, Answer, Outcome, Verdict
from tests.vs_kueue.objects import node_name

COLUMNS = (
    "cases",
    Verdict.SAME_PLACEMENT.value,
    Verdict.BOTH_REFUSE.value,
    "same refusal text",
    "other refusal text, unexplained",
    "different, explained",
    "different, unexplained",
)


def columns(outcome: Outcome) -> list[str]:
    """The table columns ``outcome`` counts in."""
    out = ["cases"]
    if outcome.verdict is Verdict.DIFFERENT:
        out.append("different, explained" if outcome.explanation else "different, unexplained")
    else:
        out.append(outcome.verdict.value)
    if outcome.same_message:
        out.append("same refusal text")
    elif outcome.verdict is Verdict.BOTH_REFUSE and not outcome.explanation:
        out.append("other refusal text, unexplained")
    return out


def table(outcomes: Iterable[Outcome], by: str) -> str:
    """Markdown table of verdicts per value of ``by`` (a key of the case), with a total row."""
    rows: dict[str, Counter[str]] = {}
    total: Counter[str] = Counter()
    for outcome in outcomes:
        row = rows.setdefault(str(outcome.case[by]), Counter())
        for column in columns(outcome):
            row[column] += 1
            total[column] += 1
    lines = [f"| {by} | " + " | ".join(COLUMNS) + " |", "|---" * (len(COLUMNS) + 1) + "|"]
    for name in sorted(rows):
        lines.append(f"| {name} | " + " | ".join(str(rows[name][c]) for c in COLUMNS) + " |")
    lines.append("| **all** | " + " | ".join(f"**{total[c]}**" for c in COLUMNS) + " |")
    return "\n".join(lines)


def describe(answer: Answer) -> str:
    if isinstance(answer, str):
        return f"refuses: {answer}"
    parts = []
    for podset, (levels, domains) in sorted(answer.items()):
        where = ", ".join(f"{'/'.join(values)}:{count}" for values, count in sorted(domains.items()))
        parts.append(f"{podset} @ {levels[-1].rsplit('/', 1)[-1]} [{where}]")
    return "; ".join(parts)


def regression_case(outcome: Outcome, key: str) -> dict[str, Any]:
    """The case with Kueue's answer as its expectation, node names as the case names them."""
    case = {k: v for k, v in outcome.case.items() if k != "requestKind"}
    expect: dict[str, Any]
    if isinstance(outcome.kueue, str):
        reason = outcome.kueue.split(": ", 1)[1] if outcome.kueue.startswith(KUEUE_PREFIX) else outcome.kueue
        reason = reason.replace(f'topology "{key}"', 'topology "default"').replace(node_name(key, ""), "")
        expect = {"unschedulable": True, "reasonContains": reason, "reasonFacts": []}
    else:
        expect = {
            "assignments": {
                name: _assignment(levels, domains, key) for name, (levels, domains) in outcome.kueue.items()
            }
        }
    return {**case, "expect": expect}


def _assignment(levels: tuple[str, ...], domains: Mapping[tuple[str, ...], int], key: str) -> dict[str, Any]:
    prefix = node_name(key, "")
    return {
        "levels": list(levels),
        "domains": [
            {
                "values": [
                    v.removeprefix(prefix) if level == "kubernetes.io/hostname" else v
                    for level, v in zip(levels, values, strict=True)
                ],
                "count": count,
            }
            for values, count in sorted(domains.items())
        ],
    }


def dumps(case: Mapping[str, Any]) -> str:
    return json.dumps(case, indent=2) + "\n"
