"""LazyRecords: records built on first read behave as the tuple they build."""

from __future__ import annotations

from toposched.model import DomainCount, LazyRecords, TopologyAssignment


def counting(items: tuple[int, ...]) -> tuple[LazyRecords[int], list[int]]:
    calls: list[int] = []

    def build() -> tuple[int, ...]:
        calls.append(1)
        return items

    return LazyRecords(build, len(items)), calls


def test_length_needs_no_build_and_the_build_runs_once() -> None:
    records, calls = counting((3, 1, 2))
    assert len(records) == 3 and calls == []
    assert records[0] == 3 and records[1:] == (1, 2) and list(records) == [3, 1, 2]
    assert calls == [1]


def test_equal_and_hash_as_the_built_tuple() -> None:
    records, _ = counting((1, 2))
    other, _ = counting((1, 2))
    assert records == (1, 2) and records == other
    assert (1, 2) == records  # noqa: SIM300  # the tuple on the left: the reflected comparison
    assert records != (2, 1) and records != [1, 2]
    assert hash(records) == hash((1, 2))
    assert repr(records) == repr((1, 2))


def test_an_assignment_with_lazy_domains_equals_the_eager_one() -> None:
    domains = (DomainCount(("r1",), 2), DomainCount(("r2",), 1))
    lazy = TopologyAssignment(("rack",), LazyRecords(lambda: domains, 2))
    assert lazy == TopologyAssignment(("rack",), domains)
    assert lazy.count == 3
