"""KAI ``validate`` conformance cases: the PodGroup webhook, the Topology CRD rules and the
Topology alias webhook (FORMAT.md §8.1), facts per §5, seed conflicts per §4."""

from __future__ import annotations

import pytest

from conformance.loader import Case, missing_facts, params, skip_if_conflicted
from toposched.frontends.kai import ValidationResult, validate_podgroup, validate_topology


def run(case: Case) -> ValidationResult:
    data = case.data["input"]
    operation = str(data.get("operation") or "CREATE")
    if "podGroup" in data:
        return validate_podgroup(data["podGroup"], operation=operation)
    return validate_topology(data["topology"], operation=operation, old=data.get("oldTopology"))


@pytest.mark.parametrize("case", params("kai", ["validate"]))
def test_kai_validate(case: Case) -> None:
    skip_if_conflicted(case)
    expect = case.expect
    result = run(case)
    assert result.accepted is expect["accepted"], result.message
    if "warningContains" in expect:
        assert result.warnings, "expected a warning"
    facts = expect.get("reasonFacts", [])
    reported = result.problems if not expect["accepted"] else result.warnings
    if not expect["accepted"]:
        assert result.problems, "a rejection must say why"
    text = "; ".join(str(p) for p in reported)
    missing = missing_facts(facts, text, [p.path for p in reported])
    assert not missing, f"facts {missing} not in {text!r}"
