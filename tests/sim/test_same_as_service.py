"""The simulator admits what the service would: the same jobs, in the same order, at the same
times. The service side here is the Scheduler as the API drives it (the SQLite store, documents
parsed from YAML text, ``prepare`` then ``commit``), moved by a plain loop that runs one cycle at
every arrival and every end, with none of the replay's batching or book keeping."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from toposched.intake.parse import parse_documents
from toposched.model import Policy
from toposched.scheduler import ManualClock, Scheduler
from toposched.sim.config import parse_config
from toposched.sim.replay import scheduler_config
from toposched.sim.study import Inputs, StudySpec, build_inputs, replay_policy
from toposched.store import SqliteStore

from .test_failures import _busy_trace


def _service_admissions(inputs: Inputs, policy: Policy, db: Path) -> list[tuple[float, str]]:
    config = parse_config(None)
    clock = ManualClock(0.0)
    scheduler = Scheduler(SqliteStore(db), clock, scheduler_config(config, policy))
    scheduler.import_cluster(inputs.cluster)
    arrivals = sorted(inputs.jobs, key=lambda j: j.trace.submit)
    duration = {j.document["metadata"]["name"]: j.trace.duration for j in inputs.jobs}
    ends: dict[int, float] = {}  # workload id -> end time
    admitted: list[tuple[float, str]] = []
    while arrivals or ends:
        now = min([*(j.trace.submit for j in arrivals[:1]), *ends.values()])
        clock.advance(now - clock.now())
        for workload in [w for w, end in ends.items() if end == now]:
            scheduler.finish(workload, actor="trace")
            del ends[workload]
        while arrivals and arrivals[0].trace.submit == now:
            text = yaml.safe_dump(arrivals.pop(0).document)
            documents = parse_documents(text, source="request body")
            scheduler.commit(scheduler.prepare(documents, owner="trace"))
        for workload in scheduler.cycle().admitted:
            name = scheduler.get(workload).name
            admitted.append((now, name))
            ends[workload] = now + duration[name]
    return admitted


@pytest.mark.parametrize("policy", [Policy.MIXED, Policy.BINPACK])
def test_the_replay_admits_what_the_service_admits(tmp_path: Path, policy: Policy) -> None:
    spec = StudySpec(
        str(_busy_trace(tmp_path / "busy.csv")), "nvl72:racks=2", parse_config(None), limit_jobs=60
    )
    inputs = build_inputs(spec)
    result = replay_policy(spec, policy, inputs)
    names = [j.document["metadata"]["name"] for j in inputs.jobs]
    replayed = [(result.jobs[i].admitted, names[i]) for i in result.admissions]
    service = _service_admissions(inputs, policy, tmp_path / "service.db")
    assert len(service) == 60
    assert replayed == service
