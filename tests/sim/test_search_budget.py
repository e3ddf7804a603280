"""The simulator bounds searches in time as the service does, although its clock stands still
while a cycle runs: the scheduler's search clock counts the steps searched, so a gang that cannot
be placed costs one cycle its share of the cycle's exact-search time, not its whole budget, and
its search goes on in the next cycles (which the replay runs for it)."""

from __future__ import annotations

import re

from tests.engine.test_session_rounds import LEVELS, cluster
from tests.scheduler.test_exact_share import hard_podgroup

from toposched.engine.core.budget import EXPIRY_EVERY, STEP_SECONDS
from toposched.engine.core.options import DEFAULT_ROUND_SECONDS
from toposched.sim.config import Mode, SimConfig
from toposched.sim.gangs import Request, Shape, SimJob
from toposched.sim.replay import Replay
from toposched.sim.trace import TraceJob


def replay(until: float) -> Replay:
    group, *pods = hard_podgroup()
    job = SimJob(0, TraceJob("hard", 0.0, 60.0, 20), 20, 1, Request(Mode.REQUIRED, None), group, tuple(pods))
    shape = Shape(LEVELS, gpus_per_node=4, nodes_per_rack=4, rules=())
    return Replay(cluster(), shape, [job], SimConfig(), None, until=until)


def steps_searched(run: Replay) -> int:
    note = str(run.scheduler.get(run.records[0].workload).explanation["note"])
    found = re.search(r"after (\d+) steps", note)
    assert found is not None, note
    return int(found.group(1))


def test_the_first_cycle_searches_for_its_share_only() -> None:
    """The simulator's searches once ran to their whole step budget in every cycle (50,000 steps):
    the time bound, on the virtual clock, never fired."""
    first = replay(until=0.0)
    result = first.run()
    assert result.admissions == [] and result.cycles == 1
    assert steps_searched(first) <= DEFAULT_ROUND_SECONDS / STEP_SECONDS + EXPIRY_EVERY


def test_the_search_goes_on_in_the_cycles_after() -> None:
    later = replay(until=2.0)
    result = later.run()
    assert result.admissions == [] and result.cycles >= 4  # a cycle every half second meanwhile
    assert steps_searched(later) > 3 * DEFAULT_ROUND_SECONDS / STEP_SECONDS
