"""The cycle gives the exact search a share of its own: a gang that cannot be placed costs each
cycle at most that share (``SchedulerConfig.round_seconds``, on the search clock: here the steps
searched), is searched on where it stopped in the next cycle without backing off, and once its
search ends its refusal stands, unsearched, until the cluster changes.

The gang is ``tests/engine/test_session_rounds.py``'s, as a KAI PodGroup with three subgroups;
the cluster one block of four racks of four 4-GPU nodes."""

from __future__ import annotations

import re
from typing import Any

from tests.engine.test_session_rounds import LEVELS, SHARE, STEPS
from tests.scheduler.conftest import Env, job

from builders import GPU, RACK, node
from toposched.engine.core.budget import EXPIRY_EVERY, STEP_SECONDS
from toposched.scheduler import SchedulerConfig


def pod(name: str, subgroup: str, gpu: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "annotations": {"pod-group-name": "hard"},
            "labels": {"kai.scheduler/subgroup-name": subgroup},
        },
        "spec": {"containers": [{"name": "main", "image": "x", "resources": {"requests": {GPU: str(gpu)}}}]},
    }


def hard_podgroup() -> list[Any]:
    rack = {"topology": LEVELS.name, "requiredTopologyLevel": RACK}
    subgroups = [{"name": f"easy{k}", "minMember": 7, "topologyConstraint": rack} for k in range(2)]
    subgroups.append({"name": "puzzle", "minMember": 6, "topologyConstraint": rack})
    group = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "hard", "namespace": "default"},
        "spec": {
            "minMember": 20,
            "queue": "q",
            "topologyConstraint": {"topology": LEVELS.name, "requiredTopologyLevel": LEVELS.levels[0]},
            "subGroups": subgroups,
        },
    }
    pods = [pod(f"e{k}-{i}", f"easy{k}", 1) for k in range(2) for i in range(7)]
    pods += [pod(f"three-{i}", "puzzle", 3) for i in range(3)] + [
        pod(f"two-{i}", "puzzle", 2) for i in range(3)
    ]
    return [group, *pods]


def steps_of(env: Env, workload: int) -> int:
    """The steps the workload's search took so far, as its explanation says."""
    found = re.search(r"after (\d+) steps", str(env.sched.get(workload).explanation.get("note")))
    assert found is not None, env.sched.get(workload).explanation
    return int(found.group(1))


def make_env() -> Env:
    env = Env(config=SchedulerConfig(search_steps=STEPS, round_seconds=SHARE * STEP_SECONDS), seed=False)
    env.store.put_nodes(
        [
            node(f"r{r}h{h}").at(block="b0", rack=f"r{r}").alloc(gpu=4).build()
            for r in range(4)
            for h in range(4)
        ]
    )
    env.store.put_topology(LEVELS)
    return env


def test_a_gang_that_cannot_be_placed_takes_a_share_of_each_cycle_then_waits_for_a_change() -> None:
    env = make_env()
    small = env.submit(job("small", 2, gpu=1))
    hard = env.submit(hard_podgroup())
    first = env.sched.cycle()
    assert first.admitted == (small,) and first.searching == (hard,)
    taken = [steps_of(env, hard)]
    for _ in range(20):
        report = env.sched.cycle()  # no time passes: it was not backed off
        explanation = env.sched.get(hard).explanation
        if not explanation.get("budgetExhausted"):
            assert report.searching == (hard,)
            taken.append(steps_of(env, hard))
            continue
        break
    assert explanation["budgetExhausted"] is True  # its whole budget, over several cycles
    per_cycle = [b - a for a, b in zip([0, *taken], taken, strict=False)]
    assert len(per_cycle) >= 3 and max(per_cycle) <= SHARE + EXPIRY_EVERY
    for _ in range(3):  # nothing changed: once its backoff ends, the refusal stands, unsearched
        env.clock.advance(120)
        report = env.sched.cycle()
        assert hard in report.unschedulable and not report.searching
        assert env.sched.get(hard).explanation == explanation
    env.store.put_nodes([node("r4h0").at(block="b0", rack="r4").alloc(gpu=4).build()])  # a rack of one
    env.clock.advance(120)
    assert env.sched.cycle().searching == (hard,)  # a new node: searched again, from the start
    assert steps_of(env, hard) <= SHARE + EXPIRY_EVERY
