"""``Offload`` runs blocking calls on its threads for the event loop: a call's result or
exception reaches the awaiting request; ``run_then`` chains a call onto another's result, and a
failed first call never starts the second."""

from __future__ import annotations

import asyncio
import threading

import pytest

from toposched.api.offload import Offload
from toposched.model import NotFoundError


def test_run_and_run_then_pass_results_and_errors_to_the_request() -> None:
    first, second = Offload("first", 1), Offload("second", 2)
    calls: list[tuple[int, str]] = []

    def double(value: int) -> int:
        calls.append((value, threading.current_thread().name))
        return 2 * value

    def missing() -> int:
        raise NotFoundError("workload", "7")

    async def requests() -> None:
        assert await first.run(double, 4) == 8
        with pytest.raises(NotFoundError):
            await second.run(missing)
        assert await first.run_then(lambda: 21, second, double) == 42
        with pytest.raises(NotFoundError):
            await first.run_then(missing, second, double)
        with pytest.raises(RuntimeError, match="StopIteration"):  # cannot travel through a future
            await first.run_then(lambda: 1, second, lambda _: next(iter(())))
        assert await asyncio.gather(*(second.run(double, n) for n in range(20))) == [2 * n for n in range(20)]

    second.open()  # started up front, as the app does; ``first`` starts its thread on first use
    try:
        asyncio.run(requests())
        first.close()
        asyncio.run(requests())  # a closed pool starts its threads again when used
    finally:
        first.close()
        second.close()
    assert [name.rsplit("_", 1)[0] for value, name in calls if value == 21] == ["second", "second"]
    assert not [t for t in threading.enumerate() if t.name.startswith(("first_", "second_"))]
