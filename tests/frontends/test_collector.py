"""The collector pause around compiles: counted across threads and nesting, and it leaves the
collector as it found it."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

from toposched.frontends.collector import collector_paused
from toposched.frontends.registry import CompileContext, Compiled, Documents, default_registry
from toposched.model import Gang, Group


@pytest.fixture(autouse=True)
def collector_running() -> Iterator[None]:
    gc.enable()
    yield
    gc.enable()


def test_nested_pauses_resume_when_the_outer_one_ends() -> None:
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_the_caller_stopped_stays_stopped() -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_overlapping_pauses_in_threads_resume_once_the_last_ends() -> None:
    inside, release = threading.Barrier(9), threading.Event()

    def compile_slowly() -> None:
        with collector_paused():
            inside.wait()
            release.wait()

    threads = [threading.Thread(target=compile_slowly) for _ in range(8)]
    for thread in threads:
        thread.start()
    inside.wait()
    assert not gc.isenabled()
    release.set()
    for thread in threads:
        thread.join()
    assert gc.isenabled()


class Seeing:
    """A front end that records whether the collector ran while it compiled."""

    name = "seeing"
    kinds = frozenset({"Seen"})
    input_names_topology = False
    membership = None
    seen: list[bool]

    def __init__(self) -> None:
        self.seen = []

    def recognises(self, documents: Documents) -> bool:
        return True

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        self.seen.append(gc.isenabled())
        raise_if = documents[0].get("fail")
        if raise_if:
            raise ValueError("compile failed")
        return Compiled(self.name, Gang("g", Group("main")))


def test_the_registry_compiles_with_the_collector_paused_and_resumes_it_after_errors() -> None:
    seeing = Seeing()
    registry = default_registry()
    registry.register(seeing, first=True)
    registry.compile([{"kind": "Seen"}], CompileContext())
    with pytest.raises(ValueError, match="compile failed"):
        registry.compile([{"kind": "Seen", "fail": True}], CompileContext())
    assert seeing.seen == [False, False] and gc.isenabled()
