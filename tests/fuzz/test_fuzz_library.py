"""Mutated workloads through the CLI's path: ``parse_documents`` and the front-end registry
(2,000 cases), and a sample through ``toposched place`` itself. The only errors allowed are
ToposchedErrors; the command exits 0, 2 or 3 and never prints a traceback; no case takes more
than the time budget."""

from __future__ import annotations

import copy
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from typer.testing import CliRunner

from toposched.cli.main import app
from toposched.frontends.registry import default_registry
from toposched.intake.parse import parse_documents
from toposched.model import ToposchedError

from .mutations import ODD_VALUES, Case, Seed, _change, cases, context_of, default_topology, seeds

BUDGET_SECONDS = 5.0  # per case; a case past it hangs, whatever the machine's speed
FUZZ = settings(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    phases=(Phase.explicit, Phase.generate, Phase.shrink),  # no database to reuse; no explain pass
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
REGISTRY = default_registry()


def within_budget(started: float, case: Case) -> None:
    took = time.monotonic() - started
    assert took < BUDGET_SECONDS, f"{took:.1f} s for {case!r}"


@pytest.mark.parametrize("seed", seeds(), ids=lambda s: s.name)
def test_every_seed_compiles_unchanged(seed: Seed) -> None:
    # the mutations start from valid inputs, so they reach past the first checks
    context = context_of(seed)
    REGISTRY.compile_for(
        list(seed.documents), context, topology=seed.topology, default=default_topology(context)
    )


@settings(FUZZ, max_examples=2000)
@given(case=cases())
def test_parser_and_registry_raise_only_toposched_errors(case: Case) -> None:
    started = time.monotonic()
    try:
        documents = parse_documents(case.text, source="job")
        context = context_of(case.seed)
        REGISTRY.compile_for(
            documents, context, topology=case.seed.topology, default=default_topology(context)
        )
    except ToposchedError:
        pass
    within_budget(started, case)


@settings(FUZZ, max_examples=120)
@given(case=cases())
def test_place_exits_0_2_or_3_without_a_traceback(
    case: Case, tmp_path_factory: pytest.TempPathFactory
) -> None:
    job = Path(tmp_path_factory.mktemp("job")) / "job.yaml"
    job.write_bytes(case.text if isinstance(case.text, bytes) else case.text.encode("utf-8", "surrogatepass"))
    args = [str(job) if a == "JOB" else a for a in case.seed.place_args()]
    started = time.monotonic()
    result = CliRunner().invoke(app, args)
    within_budget(started, case)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 2, 3), result.output
    assert "Traceback" not in result.output


def test_drawing_changes_leaves_the_odd_values_as_they_were() -> None:
    """Hypothesis replays a draw to shrink it: a generator that edits its own constants draws
    differently the second time ("Inconsistent data generation")."""
    before = copy.deepcopy(ODD_VALUES)

    @settings(max_examples=300, database=None, phases=[Phase.generate])
    @given(documents=_change([]).flatmap(_change).flatmap(_change))
    def changed_three_times(documents: list[object]) -> None:
        assert documents is not None

    changed_three_times()
    assert repr(ODD_VALUES) == repr(before)
