"""The agreement report: cases per gang kind and outcome, then every disagreement with its
explanation (``explain``), then what else was noticed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from tests.realkube.sidebyside.compare import BOTH_REFUSE, DIFFER, ERROR, RACED, SAME, TIE, UNSETTLED, Verdict
from tests.realkube.sidebyside.explain import explain

KINDS = ("podgroup", "workload", "composite", "job")
COLUMNS = (SAME, TIE, BOTH_REFUSE, DIFFER, RACED, ERROR, UNSETTLED)
AGREE = {SAME, TIE, BOTH_REFUSE}


def agreed(verdict: Verdict) -> bool:
    return verdict.outcome in AGREE


def table(verdicts: Sequence[Verdict]) -> list[str]:
    """Cases per gang kind and outcome."""
    counts = Counter((v.case.gang.kind, v.outcome) for v in verdicts)
    head = f"{'gang':<10} {'cases':>6}" + "".join(f" {c:>12}" for c in COLUMNS)
    lines = [head, "-" * len(head)]
    for kind in (*KINDS, "all"):
        kinds = KINDS if kind == "all" else (kind,)
        per = [sum(counts[(k, c)] for k in kinds) for c in COLUMNS]
        lines.append(f"{kind:<10} {sum(per):>6}" + "".join(f" {n:>12}" for n in per))
    return lines


def report(verdicts: Sequence[Verdict], command: str) -> str:
    """The whole report as printed at the end of a run."""
    total = len(verdicts)
    agree = sum(agreed(v) for v in verdicts)
    lines = [
        f"kube-scheduler v1.37.2 vs toposched place (faithful search): {total} generated cases",
        f"reproduce: {command}",
        "",
        *table(verdicts),
        "",
        f"agree: {agree} / {total}"
        + (f" ({100 * agree / total:.1f}%)" if total else "")
        + f"  [{SAME}: same pods on the same nodes; {TIE}: kube-scheduler's choice is one of the equal"
        " scores toposched breaks by name; both refuse]",
    ]
    explained: dict[str, list[Verdict]] = {}
    unexplained: list[Verdict] = []
    for verdict in verdicts:
        if agreed(verdict):
            continue
        why = explain(verdict)
        if why is None:
            unexplained.append(verdict)
        else:
            explained.setdefault(why, []).append(verdict)
    if explained:
        lines += ["", "disagreements explained:"]
        for why, found in sorted(explained.items(), key=lambda item: -len(item[1])):
            cases = ", ".join(str(v.case.index) for v in found[:12]) + (" ..." if len(found) > 12 else "")
            lines.append(f"  {len(found):>4}  {why} (cases {cases})")
    lines += ["", f"disagreements not explained: {len(unexplained)}"]
    for verdict in unexplained:
        lines.append(f"  case {verdict.case.index} [{verdict.outcome}] {verdict.case.summary}")
        for text in (verdict.detail, *verdict.notes):
            if text:
                lines.append(f"      {text}")
    lines += ["", *notes(verdicts)]
    return "\n".join(lines)


def verdict_json(verdict: Verdict) -> dict[str, object]:
    """One case's verdict as ``--json`` writes it."""
    return {
        "seed": verdict.case.seed,
        "case": verdict.case.index,
        "kind": verdict.case.gang.kind,
        "summary": verdict.case.summary,
        "outcome": verdict.outcome,
        "runs": verdict.attempts,
        "units": [
            {"unit": u.unit, "outcome": u.outcome, "detail": u.detail, "messagesAgree": u.messages_agree}
            for u in verdict.units
        ],
        "notes": verdict.notes,
        "explained": explain(verdict),
    }


def notes(verdicts: Sequence[Verdict]) -> list[str]:
    whole = [v for v in verdicts if any(n.startswith("whole workload: toposched refuses") for n in v.notes)]
    refusals = [u.messages_agree for v in verdicts for u in v.units if u.outcome == BOTH_REFUSE]
    other = sorted({v.case.index for v in verdicts for u in v.units if u.messages_agree is False})
    repeated = [v for v in verdicts if v.attempts > 1 and not any("answered otherwise" in n for n in v.notes)]
    rerun = [v for v in verdicts if any("answered otherwise" in n for n in v.notes)]
    return [
        f"workloads placed whole by `toposched place`: {len(whole)} refused where kube-scheduler placed some"
        " PodGroups and not others (toposched admits a workload whole: documented)",
        f"refusals: {sum(r is True for r in refusals)} name the same number of placements as kube-scheduler's"
        f" condition, {sum(r is False for r in refusals)} another"
        + (f" (cases {', '.join(map(str, other))})" if other else "")
        + f", {sum(r is None for r in refusals)} no number",
        f"cases run more than once (a first cycle raced, or a disagreement was checked again): {len(repeated)}",
        f"ties across runs: {len(rerun)} cases where kube-scheduler's answer changed from run to run (random"
        " ties inside a candidate's evaluation) and one of its answers was toposched's"
        + (f" (cases {', '.join(str(v.case.index) for v in rerun)})" if rerun else ""),
    ]


__all__ = ["DIFFER", "agreed", "report"]
