"""Frozen JSON: what ``MemoryStore`` hands out reads like plain JSON and cannot be changed."""

from __future__ import annotations

import copy
import json
import pickle
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toposched.store import MemoryStore, WorkloadState
from toposched.store.codecs import copy_json
from toposched.store.frozen import FrozenDict, FrozenList, freeze, frozen_copy, thaw

from .conftest import event, workload

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(JSON)
def test_frozen_value_equals_and_serialises_like_the_plain_one(value: Any) -> None:
    frozen = freeze(value)
    assert frozen == value
    assert json.dumps(frozen, sort_keys=True) == json.dumps(value, sort_keys=True)
    assert thaw(frozen) == value
    assert pickle.loads(pickle.dumps(frozen)) == value


# What a caller may hand the store: JSON, plus what only the JSON text makes JSON (tuples, keys
# that are numbers or booleans, floats, string and int subclasses such as enums).
LOOSE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5)
    | st.sampled_from(list(WorkloadState)),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=5), inner, max_size=4)
        | st.dictionaries(st.integers(-3, 3), inner, max_size=3)
    ),
    max_leaves=20,
)


@given(JSON | LOOSE)
def test_a_frozen_copy_is_what_the_json_round_trip_gives(value: Any) -> None:
    """The one-pass copy of plain JSON (``JSON``), and the round trip for the rest, give the
    same value, keys in the same order."""
    copied, round_trip = frozen_copy(value), freeze(copy_json(value))
    assert copied == round_trip
    assert json.dumps(copied) == json.dumps(round_trip)  # key order too
    assert type(copied) is type(round_trip)


CHANGES: list[Callable[[Any], object]] = [
    lambda p: p.__setitem__("x", 1),
    lambda p: p.pop("pods"),
    lambda p: p.update(x=1),
    lambda p: p.setdefault("x", 1),
    lambda p: p["pods"].append({}),
    lambda p: p["pods"].__setitem__(0, {}),
    lambda p: p["pods"].sort(),
    lambda p: p["pods"][0].__setitem__("node", "n2"),
]


@pytest.mark.parametrize("change", CHANGES)
def test_a_read_placement_cannot_change_the_stored_one(change: Callable[[Any], object]) -> None:
    store = MemoryStore()
    record = store.submit_workload(workload())
    placement = {"pods": [{"name": "p0", "node": "n1"}]}
    store.admit(record.id, placement, {}, event())
    read = store.get_workload(record.id).placement
    with pytest.raises(TypeError, match="read-only"):
        change(read)
    assert store.get_workload(record.id).placement == placement
    assert store.list_workloads()[0].placement == placement


def test_the_callers_value_is_copied_in_and_a_deep_copy_can_be_changed() -> None:
    store = MemoryStore()
    record = store.submit_workload(workload())
    placement: dict[str, Any] = {"pods": [{"name": "p0", "node": "n1"}]}
    store.admit(record.id, placement, {}, event())
    placement["pods"].append({"name": "p1"})
    stored = store.get_workload(record.id).placement
    assert isinstance(stored, FrozenDict) and isinstance(stored["pods"], FrozenList)
    assert len(stored["pods"]) == 1
    mine = copy.deepcopy(stored)
    mine["pods"].append({"name": "p1"})
    assert type(mine) is dict and store.get_workload(record.id).placement == stored
