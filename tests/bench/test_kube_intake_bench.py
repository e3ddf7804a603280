"""``bench/kube_intake.py`` keeps running: its quick mode submits both Jobs in child processes and
prints a line for each, read by its own front end, and the ratio (times are not asserted)."""

from __future__ import annotations

from tests.bench.scripts import run_bench


def test_the_kube_intake_bench_runs_in_quick_mode() -> None:
    run = run_bench("kube_intake.py", "--quick", timeout=240)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("a Job of 10000 pods")
    for name in ("upstream", "kueue"):
        line = next(line for line in lines if line.split()[0] == name)
        assert f"front end {'kube' if name == 'upstream' else 'kueue'}, 10000 pods" in line, line
    assert lines[-1].strip().startswith("upstream / kueue:")
