"""Conflicted writes: an apply is retried with a bounded, jittered backoff (the sleep is
injected); a pod write conditional on what was read is not repeated but decided again. Conflicts at
the test's command, on ``FakeKubeApi``; the server's own conflicts are in ``test_real_writes``."""

from __future__ import annotations

import random

import pytest
from tests.controller.cluster import cluster, controller, kueue_pod, pod

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import PODS, ApiConflictError
from toposched.controller.retry import Retry


def test_conflicts_are_retried_with_growing_bounded_waits() -> None:
    waits: list[float] = []
    calls = iter([ApiConflictError(409, "stale"), ApiConflictError(409, "stale"), "done"])

    def call() -> str:
        outcome = next(calls)
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    retry = Retry(attempts=5, base=1.0, cap=1.5, sleep=waits.append, rng=random.Random(7))
    assert retry(call) == "done"
    assert len(waits) == 2 and retry.conflicts == 2
    assert 0.0 <= waits[0] <= 1.0 and 0.0 <= waits[1] <= 1.5


def test_the_last_conflict_is_raised_after_the_attempts_run_out() -> None:
    waits: list[float] = []

    def call() -> str:
        raise ApiConflictError(409, "stale")

    with pytest.raises(ApiConflictError):
        Retry(attempts=3, sleep=waits.append)(call)
    assert len(waits) == 2


def test_a_conflicting_pod_write_is_not_repeated_but_decided_again_from_the_fresh_pod() -> None:
    api = cluster()
    ctl = controller(api)
    for name in ("p0", "p1"):
        api.put(PODS, kueue_pod(name))
    api.conflicts = 1  # the first pod written (it records the gang) "changed" under the write
    ctl.step()
    assert [c for c in api.calls if c == ("patch", "pods")] == [("patch", "pods")]  # not repeated
    assert ctl.reconciler.writes.conflicts == 1
    assert is_gated(pod(api, "p0")) and is_gated(pod(api, "p1"))  # nobody ungated before the gang is recorded
    for _ in range(3):
        ctl.step()
    assert not is_gated(pod(api, "p0")) and not is_gated(pod(api, "p1"))
