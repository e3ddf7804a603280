"""What the simulator needs to tell policies apart: replications that repeat exactly for a
seed, ``--load``, windows carried in from the trace, waits per gang size, the spread baseline,
the generated gang-heavy trace and queues with quotas."""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.model import SpecError
from toposched.sim.arrivals import cut_window, scale_load
from toposched.sim.config import SimConfig
from toposched.sim.generate import BASE_LOAD, generate_trace
from toposched.sim.metrics import by_size, measured, metrics_of, size_bucket
from toposched.sim.queues import quotas
from toposched.sim.study import StudySpec, build_inputs, replay_policy
from toposched.sim.summary import summarise
from toposched.sim.trace import TraceJob

from .conftest import write_trace

LLM = "llm:jobs=60"
NVL72 = "nvl72:racks=4,racks_per_block=2"


def _figures(spec: StudySpec, policy: str, replication: int) -> tuple[object, ...]:
    result = replay_policy(spec, policy, replication=replication)
    jobs = tuple((j.gpus, j.queue, j.submitted, j.admitted, j.finished) for j in result.jobs)
    return jobs, tuple(result.admissions), tuple(result.series.used_gpus), result.seed


def test_the_same_seed_gives_the_same_replay_and_another_seed_another(config: SimConfig) -> None:
    spec = StudySpec(LLM, NVL72, config, seeds=2, seed=7)
    first = _figures(spec, "mixed", 1)
    assert first == _figures(spec, "mixed", 1)
    assert first[3] == 8  # replication 1 of --seed 7
    assert first[0] != _figures(spec, "mixed", 0)[0]


def test_load_two_doubles_the_arrival_rate(tmp_path: Path, config: SimConfig) -> None:
    rows = [(f"j{i}", 10 * i, 5, 1, 8) for i in range(100)]  # one arrival every 10 s
    trace = str(write_trace(tmp_path / "even.csv", rows))
    cluster = "dgx:racks=2,nodes_per_rack=2"
    once = build_inputs(StudySpec(trace, cluster, config)).jobs
    twice = build_inputs(StudySpec(trace, cluster, config, load=2.0)).jobs
    assert sum(j.trace.submit < 500 for j in once) == 50
    assert sum(j.trace.submit < 500 for j in twice) == 100
    assert [j.trace.duration for j in twice] == [j.trace.duration for j in once]  # run times kept
    with pytest.raises(SpecError) as exc:
        scale_load(tuple(j.trace for j in once), 0.0)
    assert exc.value.problems[0].path == "--load"


def test_a_window_starts_from_the_jobs_running_then() -> None:
    jobs = [
        TraceJob("early-done", 0.0, 50.0, 1),
        TraceJob("early-running", 10.0, 1000.0, 8, queue="vc-a"),
        TraceJob("inside", 400.0, 10.0, 2),
        TraceJob("late", 5000.0, 10.0, 1),
    ]
    cut, start = cut_window(jobs, 1000.0, seed=3)
    assert 0.0 <= start <= 5000.0 - 1000.0
    running = [j for j in jobs if j.submit < start < j.submit + j.duration]
    inside = [j for j in jobs if start <= j.submit < start + 1000.0]
    assert [j.job_id for j in cut] == [j.job_id for j in running + inside]
    for job in cut:
        original = next(j for j in jobs if j.job_id == job.job_id)
        if job.carried:  # submitted at the window's start with the run time it has left
            assert (job.submit, job.duration) == (0.0, original.submit + original.duration - start)
        else:
            assert job.submit == original.submit - start and job.duration == original.duration
    assert cut_window(jobs, 1000.0, seed=3) == (cut, start)


def test_carried_jobs_hold_gpus_but_are_not_measured(tmp_path: Path, config: SimConfig) -> None:
    rows = [("long", 0, 10_000, 2, 8), *[(f"j{i}", 100 + 100 * i, 50, 1, 8) for i in range(40)]]
    trace = str(write_trace(tmp_path / "t.csv", rows))
    spec = StudySpec(trace, "dgx:racks=2,nodes_per_rack=2", config, window=1000.0, seeds=2)
    result = replay_policy(spec, "mixed")
    carried = [j for j in result.jobs if j.carried]
    assert carried[0].gpus == 16 and carried[0].admitted == 0.0  # "long" runs through every window
    assert metrics_of(result).jobs == len(result.jobs) - len(carried)


def test_the_size_buckets_hold_every_job_once(config: SimConfig) -> None:
    result = replay_policy(StudySpec(LLM, NVL72, config), "binpack")
    buckets = by_size(result)
    assert sum(g.jobs for g in buckets.values()) == len(measured(result)) == 60
    assert sum(g.admitted for g in buckets.values()) == metrics_of(result).admitted
    assert [size_bucket(g) for g in (1, 2, 7, 8, 63, 64, 255, 256, 1024)] == [
        "1",
        "2-7",
        "2-7",
        "8-63",
        "8-63",
        "64-255",
        "64-255",
        "256+",
        "256+",
    ]
    [summary] = summarise([result])
    assert sum(g.jobs.mean for g in summary.sizes.values()) == 60


def test_spread_leaves_room_on_every_rack_where_binpack_fills_one(tmp_path: Path, config: SimConfig) -> None:
    # Two two-node jobs (each prefers a rack) on two racks of four 8-GPU nodes: binpack puts the
    # second beside the first (one full rack, no fragment), spread on the emptier rack (16 free
    # GPUs on each rack, both partly used).
    trace = str(write_trace(tmp_path / "two.csv", [("a", 0, 100, 2, 8), ("b", 1, 100, 2, 8)]))
    spec = StudySpec(trace, "dgx:racks=2,nodes_per_rack=4,racks_per_spine=2", config)
    packed = replay_policy(spec, "binpack").series.fragmented_gpus
    spread = replay_policy(spec, "spread").series.fragmented_gpus
    assert packed[:2] == [16, 0]
    assert spread[:2] == [16, 32]


def test_the_generated_trace_is_gang_heavy_and_seeded() -> None:
    trace = generate_trace("llm:jobs=3000", 576, 576, seed=5, max_rows=10_000)
    assert trace == generate_trace("llm:jobs=3000", 576, 576, seed=5, max_rows=10_000)
    gpus = [j.gpus for j in trace.jobs]
    assert set(gpus) <= {1, 4, 8, 16, 32, 64, 128, 256, 512}  # 1,024 > the block of 576
    assert sum(g >= 8 for g in gpus) / len(gpus) > 0.6
    assert {j.queue for j in trace.jobs} == {"eval", "sft", "pretrain"}
    work = sum(j.gpus * j.duration for j in trace.jobs)
    span = trace.jobs[-1].submit - trace.jobs[0].submit
    assert work / (576 * span) == pytest.approx(BASE_LOAD, rel=0.05)
    for spec in ("llm", "llm:jobs=0", "llm:size=3"):
        with pytest.raises(SpecError) as exc:
            generate_trace(spec, 576, 576, seed=0, max_rows=10_000)
        assert exc.value.problems[0].path.startswith("--trace llm")


def test_queue_quotas_follow_the_share_of_gpu_time_and_sum_to_the_cluster() -> None:
    jobs = [
        TraceJob("a", 0, 100, 1, queue="vc-a"),
        TraceJob("b", 0, 100, 2, queue="vc-b"),
        TraceJob("c", 0, 50, 2, queue="vc-c"),
    ]
    # GPU-seconds 100, 200, 100 of 400: 10 GPUs split 2.5, 5, 2.5 -> the remainder goes by name.
    assert quotas(jobs, 10) == {"vc-a": 3, "vc-b": 5, "vc-c": 2}
    assert quotas([TraceJob("x", 0, 1, 1)], 10) == {}


def test_philly_virtual_clusters_become_queues(tmp_path: Path, config: SimConfig) -> None:
    path = tmp_path / "philly.csv"
    path.write_text(
        "job_id,submit_time_s,duration_s,num_pods,gpus_per_pod,total_gpus,vc\n"
        "p1,0,100,1,8,8,11cb48\np2,5,100,1,8,8,B436B2\np3,9,10,1,8,8,\n",
        encoding="utf-8",
    )
    inputs = build_inputs(StudySpec(str(path), "dgx:racks=1,nodes_per_rack=4", config))
    labels = [j.document["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] for j in inputs.jobs]
    assert labels == ["vc-11cb48", "vc-b436b2", "sim-queue"]
    assert inputs.quotas == {"vc-11cb48": 16, "vc-b436b2": 16}
    result = replay_policy(StudySpec(str(path), "dgx:racks=1,nodes_per_rack=4", config), "mixed")
    assert [j.queue for j in result.jobs] == ["vc-11cb48", "vc-b436b2", None]


def test_more_seeds_of_a_fixed_trace_need_a_window(small_trace: Path, config: SimConfig) -> None:
    with pytest.raises(SpecError) as exc:
        build_inputs(StudySpec(str(small_trace), "dgx:racks=2,nodes_per_rack=2", config, seeds=3))
    assert exc.value.problems[0].path == "--seeds"
    assert "--window" in exc.value.problems[0].hint
