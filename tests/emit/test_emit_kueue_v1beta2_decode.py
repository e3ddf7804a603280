"""The v1beta2 decoder rejects every malformed assignment with the field path of the problem."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from toposched.emit.kueue import from_v1beta2
from toposched.model import HOSTNAME, SpecError

RACK = "cloud.provider.com/topology-rack"


def valid() -> dict[str, Any]:
    return {
        "levels": [RACK, HOSTNAME],
        "slices": [
            {
                "domainCount": 2,
                "valuesPerLevel": [
                    {"universal": "r1"},
                    {"individual": {"prefix": "node-", "roots": ["1", "2"]}},
                ],
                "podCounts": {"individual": [1, 2]},
            }
        ],
    }


def edit(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    obj = valid()
    change(obj)
    return obj


def slice0(obj: dict[str, Any]) -> dict[str, Any]:
    first: dict[str, Any] = obj["slices"][0]
    return first


S = "topologyAssignment.slices[0]"
REJECTIONS: list[tuple[str, object, str, str]] = [
    ("not-a-mapping", "levels: []", "topologyAssignment", "is a mapping"),
    ("levels-missing", edit(lambda o: o.pop("levels")), "topologyAssignment.levels", "missing"),
    (
        "levels-seventeen",
        edit(lambda o: o.update(levels=[f"l{i}" for i in range(17)])),
        "topologyAssignment.levels",
        "got 17",
    ),
    ("slices-not-list", edit(lambda o: o.update(slices={"a": 1})), "topologyAssignment.slices", "not a list"),
    (
        "too-many-slices",
        edit(lambda o: o.update(slices=o["slices"] * 1001)),
        "topologyAssignment.slices",
        "1001 slices, at most 1000",
    ),
    ("slice-not-mapping", edit(lambda o: o.update(slices=[3])), S, "a slice is a mapping"),
    (
        "domain-count-zero",
        edit(lambda o: slice0(o).update(domainCount=0)),
        f"{S}.domainCount",
        "from 1 to 100000",
    ),
    (
        "domain-count-over-limit",
        edit(lambda o: slice0(o).update(domainCount=100_001)),
        f"{S}.domainCount",
        "got 100001",
    ),
    ("domain-count-missing", edit(lambda o: slice0(o).pop("domainCount")), f"{S}.domainCount", "got None"),
    (
        "values-per-level-short",
        edit(lambda o: slice0(o)["valuesPerLevel"].pop()),
        f"{S}.valuesPerLevel",
        "1 entries for 2 levels",
    ),
    (
        "values-per-level-missing",
        edit(lambda o: slice0(o).pop("valuesPerLevel")),
        f"{S}.valuesPerLevel",
        "missing",
    ),
    (
        "both-universal-and-individual",
        edit(lambda o: slice0(o)["valuesPerLevel"][0].update(individual={"roots": ["a", "b"]})),
        f"{S}.valuesPerLevel[0]",
        "exactly one of universal and individual",
    ),
    (
        "neither-universal-nor-individual",
        edit(lambda o: slice0(o)["valuesPerLevel"].__setitem__(0, {})),
        f"{S}.valuesPerLevel[0]",
        "exactly one of universal and individual",
    ),
    (
        "universal-not-text",
        edit(lambda o: slice0(o)["valuesPerLevel"].__setitem__(0, {"universal": ["r1"]})),
        f"{S}.valuesPerLevel[0].universal",
        "not a label value",
    ),
    (
        "roots-length",
        edit(lambda o: slice0(o)["valuesPerLevel"][1]["individual"]["roots"].append("3")),
        f"{S}.valuesPerLevel[1].individual.roots",
        "3 roots for domainCount 2",
    ),
    (
        "roots-missing",
        edit(lambda o: slice0(o)["valuesPerLevel"][1]["individual"].pop("roots")),
        f"{S}.valuesPerLevel[1].individual.roots",
        "missing",
    ),
    (
        "root-too-long",
        edit(lambda o: slice0(o)["valuesPerLevel"][1]["individual"]["roots"].__setitem__(0, "x" * 64)),
        f"{S}.valuesPerLevel[1].individual.roots[0]",
        "at most 63 characters",
    ),
    (
        "prefix-empty",
        edit(lambda o: slice0(o)["valuesPerLevel"][1]["individual"].update(prefix="")),
        f"{S}.valuesPerLevel[1].individual.prefix",
        "non-empty string",
    ),
    (
        "suffix-not-text",
        edit(lambda o: slice0(o)["valuesPerLevel"][1]["individual"].update(suffix=5)),
        f"{S}.valuesPerLevel[1].individual.suffix",
        "non-empty string",
    ),
    ("pod-counts-missing", edit(lambda o: slice0(o).pop("podCounts")), f"{S}.podCounts", "missing"),
    (
        "pod-counts-both",
        edit(lambda o: slice0(o)["podCounts"].update(universal=1)),
        f"{S}.podCounts",
        "exactly one of universal and individual",
    ),
    (
        "pod-counts-under-both-keys",
        edit(lambda o: slice0(o)["podCounts"].update(podCounts=[1, 2])),
        f"{S}.podCounts",
        "both set",
    ),
    (
        "pod-counts-length",
        edit(lambda o: slice0(o)["podCounts"].update(individual=[1])),
        f"{S}.podCounts.individual",
        "1 pod counts for domainCount 2",
    ),
    (
        "pod-count-zero",
        edit(lambda o: slice0(o)["podCounts"].update(individual=[1, 0])),
        f"{S}.podCounts.individual[1]",
        ">= 1, got 0",
    ),
    (
        "universal-pod-count-negative",
        edit(lambda o: slice0(o).update(podCounts={"universal": -1})),
        f"{S}.podCounts.universal",
        ">= 1, got -1",
    ),
]


def test_the_base_object_is_valid() -> None:
    assert from_v1beta2(valid()).count == 3


@pytest.mark.parametrize(
    ("obj", "path", "message"), [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS]
)
def test_decoder_rejects(obj: object, path: str, message: str) -> None:
    with pytest.raises(SpecError) as info:
        from_v1beta2(copy.deepcopy(obj))
    assert any(p.path == path and message in p.message for p in info.value.problems), info.value.problems


def test_problems_of_several_slices_are_all_listed() -> None:
    obj = valid()
    obj["slices"].append(copy.deepcopy(obj["slices"][0]))
    obj["slices"][0]["domainCount"] = 3
    obj["slices"][1]["podCounts"] = {"universal": 0}
    with pytest.raises(SpecError) as info:
        from_v1beta2(obj)
    paths = {p.path for p in info.value.problems}
    assert {
        f"{S}.valuesPerLevel[1].individual.roots",
        "topologyAssignment.slices[1].podCounts.universal",
    } <= paths
