"""Reservations for more than the first refused gang (``SchedulerConfig.reservation_depth``):
each of the first ``depth`` refused gangs keeps nodes of its own, and a gang after them may use
a reservation's nodes only when it ends before that reservation starts.

The scheduler tests' cluster (2 GPUs a node):

    b1 ── r1 ── x1  x2  x3
       └─ r2 ── x4
"""

from __future__ import annotations

from typing import Any

import pytest

from builders import GPU
from toposched.model import SpecError
from toposched.scheduler import SchedulerConfig

from .conftest import Env, job


def _timed(spec: list[Any], seconds: int) -> list[Any]:
    spec[0]["metadata"]["annotations"] = {"toposched.io/run-seconds": str(seconds)}
    return spec


@pytest.mark.parametrize("depth", [1, 2])
def test_each_of_the_first_refused_gangs_keeps_its_own_nodes(depth: int) -> None:
    env = Env(config=SchedulerConfig(gpu_resource=GPU, preemption=False, reservation_depth=depth))
    env.submit(_timed(job("a", 1), 1000))  # the tightest rack: r2 (x4) until t=1000
    env.submit(_timed(job("b", 4), 3000))  # r1, 4 of its 6 GPUs, until t=3000
    env.sched.cycle()
    start = env.clock.now()  # times below are from here
    env.clock.advance(10)
    # Free now: 2 GPUs in r1, 1 on x4. W1 needs all of r1 (t=3000); W2 needs 2 GPUs of one
    # rack: r1 is kept for W1, so x4 once a ends (t=1000). S needs 1 GPU anywhere until t=5010.
    w1 = env.submit(_timed(job("w1", 6), 100))
    w2 = env.submit(_timed(job("w2", 2), 5000))  # too long to use W1's nodes before t=3000
    s = env.submit(_timed(job("s", 1, required=None), 5000))
    report = env.sched.cycle()
    first = env.sched.get(w1).explanation["reservation"]
    assert (first["start"] - start, first["nodes"]) == (3000.0, 3)
    second = env.sched.get(w2).explanation.get("reservation")
    if depth == 1:
        # Only W1 is protected: S takes the free GPU on x4, and W2 now waits until t=5010.
        assert second is None and s in report.admitted
    else:
        assert (second["start"] - start, second["nodes"]) == (1000.0, 1)
        assert s not in report.admitted  # it would end after W2's reservation starts


def test_the_depth_is_bounded() -> None:
    for bad in (0, 65):
        with pytest.raises(SpecError) as caught:
            SchedulerConfig(reservation_depth=bad)
        assert caught.value.problems[0].path == "reservation_depth"


def test_a_gang_holding_a_reservation_is_tried_at_its_start_whatever_its_backoff() -> None:
    config = SchedulerConfig(
        gpu_resource=GPU, preemption=False, backoff_base_seconds=600, backoff_max_seconds=600
    )
    env = Env(config=config)
    a = env.submit(_timed(job("a", 6), 30))  # all of r1 until t=30
    env.sched.cycle()
    start = env.clock.now()
    wide = env.submit(_timed(job("wide", 6), 100))  # needs all of r1: reserves it from t=30
    assert wide not in env.sched.cycle().admitted
    assert env.sched.get(wide).explanation["reservation"]["start"] - start == 30.0
    env.clock.advance(30)
    env.sched.finish(a)
    # Its refusal backed it off for 600 s; the nodes kept for it would sit idle until then.
    assert env.sched.cycle().admitted == (wide,)
