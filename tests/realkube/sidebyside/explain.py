"""Why a case disagrees, when the reason is known: each rule recognises one cause from the case
and kube-scheduler's outcome. A disagreement no rule explains is reported as unexplained."""

from __future__ import annotations

from collections.abc import Callable

from tests.realkube.sidebyside.compare import RACED, Verdict

Rule = Callable[[Verdict], str | None]


def raced(verdict: Verdict) -> str | None:
    if verdict.outcome != RACED:
        return None
    return (
        "upstream race, not compared: kube-scheduler started a group's cycle before all of its pods were"
        " in it (AddPodGroup moves the waiting pods into the group one by one while the scheduling loop"
        f" may already pop it), in each of {verdict.attempts} runs"
    )


RULES: tuple[Rule, ...] = (raced,)


def explain(verdict: Verdict) -> str | None:
    for rule in RULES:
        found = rule(verdict)
        if found:
            return found
    return None
