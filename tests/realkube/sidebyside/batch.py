"""Cases one after another on one control plane with kube-scheduler running: each is run,
judged and cleaned up; a failure marks its case and the batch goes on."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from tests.realkube.binaries import Binaries
from tests.realkube.control_plane import ControlPlane, running_control_plane
from tests.realkube.processes import ControlPlaneError
from tests.realkube.scheduler import KubeScheduler, running_kube_scheduler
from tests.realkube.sidebyside.api import AdminApi
from tests.realkube.sidebyside.cases import Case, generate_case
from tests.realkube.sidebyside.compare import (
    BOTH_REFUSE,
    DIFFER,
    ERROR,
    RACED,
    SAME,
    TIE,
    Verdict,
    all_documents,
    judge,
)
from tests.realkube.sidebyside.placing import cluster_text, gang_text
from tests.realkube.sidebyside.run import Observed, clean_up, run_case

RUNS = 4  # runs of a case that raced (``run``) or differed before it is reported as such


@dataclass(frozen=True, slots=True)
class SideBySide:
    plane: ControlPlane
    scheduler: KubeScheduler


@contextmanager
def side_by_side(binaries: Binaries) -> Iterator[SideBySide]:
    """A fresh control plane (no CRDs: kube-scheduler needs none) with kube-scheduler running."""
    with running_control_plane(binaries) as plane, running_kube_scheduler(plane, binaries) as scheduler:
        yield SideBySide(plane, scheduler)


def run_one(api: AdminApi, case: Case, log: Path | None = None, keep: Path | None = None) -> Verdict:
    """The case's verdict; with ``keep``, a case that does not agree leaves its files there.

    A run whose first cycle raced is repeated (``RUNS`` in all). So is a run that differs: inside
    the evaluation of each candidate placement kube-scheduler breaks ties between equal nodes at
    random, and a draw that puts a pod elsewhere can change whether a later sibling fits, so the
    same case may end in another domain on another run. Any run that agrees shows toposched's
    answer to be one kube-scheduler gives (``TIE``, with a note); a disagreement that every run
    repeats is kube-scheduler's one answer."""
    verdict = Verdict(case, ERROR)
    observed: Observed | None = None
    answers: list[str] = []
    for attempt in range(1, RUNS + 1):
        try:
            observed = run_case(api, case, log)
            verdict = judge(case, observed)
        except Exception as exc:  # one case's failure is its verdict; the batch goes on
            observed, verdict = (
                None,
                Verdict(case, ERROR, notes=[f"the run failed: {type(exc).__name__}: {exc}"]),
            )
        try:
            clean_up(api, case)
        except (ControlPlaneError, httpx.HTTPError) as exc:
            verdict.notes.append(f"clean-up failed: {exc}")
        verdict.attempts = attempt
        if verdict.outcome == DIFFER:
            answers.append(verdict.detail)
        elif verdict.outcome != RACED:
            break
    if answers and verdict.outcome in (SAME, TIE):
        verdict.outcome = TIE
        verdict.notes.append(
            f"kube-scheduler answered otherwise in {len(answers)} of {verdict.attempts} runs (random ties"
            " inside a candidate's evaluation): this run agreed"
        )
    if keep is not None and observed is not None and verdict.outcome not in (SAME, TIE, BOTH_REFUSE):
        write_case(keep / f"seed{case.seed}-case{case.index}", case, observed, verdict)
    return verdict


def run_batch(
    side: SideBySide,
    seed: int,
    indexes: Iterable[int],
    *,
    keep: Path | None = None,
    each: Callable[[Verdict], None] | None = None,
) -> list[Verdict]:
    api = AdminApi(side.plane)
    verdicts = []
    try:
        for index in indexes:
            verdict = run_one(api, generate_case(seed, index), side.scheduler.process.log, keep)
            verdicts.append(verdict)
            if each is not None:
                each(verdict)
    finally:
        api.close()
    return verdicts


def write_case(folder: Path, case: Case, observed: Observed, verdict: Verdict) -> None:
    """The inputs of ``toposched place`` and what kube-scheduler did, to look at by hand:
    ``toposched place gang.json --cluster cluster.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cluster.json").write_text(cluster_text(observed.dump))
    (folder / "gang.json").write_text(gang_text(all_documents(observed)))
    kube = {
        "case": case.summary,
        "outcome": verdict.outcome,
        "detail": verdict.detail,
        "notes": verdict.notes,
        "nodes": observed.nodes,
        "conditions": observed.conditions,
    }
    (folder / "kube-scheduler.json").write_text(json.dumps(kube, indent=2) + "\n")
