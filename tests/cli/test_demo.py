"""``toposched demo`` runs offline and shows every example."""

from __future__ import annotations

from toposched.cli.kep import EXAMPLES
from toposched.samples import read_sample, sample_names

from .conftest import Invoke


def test_demo_prints_every_example_and_matches_the_kep(invoke: Invoke) -> None:
    run = invoke("demo")
    assert run.exit_code == 0, run.stdout  # the demo exits 1 when any example differs from the KEP
    out = " ".join(run.stdout.split())  # rich may wrap long titles
    for example in EXAMPLES:
        assert example.title in out
    for name in sample_names("jobs"):
        title = read_sample(name).splitlines()[0].lstrip("# ")
        assert title in out
    assert "differs from the KEP" not in out
    assert out.count("✓ as in the KEP") == sum(1 for e in EXAMPLES if not hasattr(e, "rows"))
    assert "cannot place research/train-rack-20" in out


def test_demo_sections_can_be_skipped(invoke: Invoke) -> None:
    run = invoke("demo", "--no-kep")
    assert run.exit_code == 0
    assert "KEP-2724 example" not in run.stdout
    assert "Sample job 1" in run.stdout
