"""TopologyAssignment v1beta1: the seed's examples, and the decoder's rejections."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from toposched.emit.kueue import from_v1beta1, to_v1beta1
from toposched.model import HOSTNAME, DomainCount, SpecError, TopologyAssignment

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"

# Both examples as the KEP writes them (section "Until v1beta1").
SEED_RACKS = """
topologyAssignment:
  levels:
  - cloud.provider.com/topology-block
  - cloud.provider.com/topology-rack
  domains:
  - values: [block-1, rack-1]
    count: 4
  - values: [block-1, rack-2]
    count: 2
"""
SEED_HOSTS = """
topologyAssignment:
  levels:
  - kubernetes.io/hostname
  domains:
  - values: [hostname-1]
    count: 4
  - values: [hostname-2]
    count: 2
"""

RACKS = TopologyAssignment(
    (BLOCK, RACK), (DomainCount(("block-1", "rack-1"), 4), DomainCount(("block-1", "rack-2"), 2))
)
HOSTS = TopologyAssignment((HOSTNAME,), (DomainCount(("hostname-1",), 4), DomainCount(("hostname-2",), 2)))


@pytest.mark.parametrize(
    ("text", "expected"), [(SEED_RACKS, RACKS), (SEED_HOSTS, HOSTS)], ids=["racks", "hosts"]
)
def test_seed_examples_decode_and_encode_back(text: str, expected: TopologyAssignment) -> None:
    document = yaml.safe_load(text)
    assert from_v1beta1(document) == expected
    assert to_v1beta1(expected) == document["topologyAssignment"]


def test_yaml_numbers_are_read_as_label_values() -> None:
    decoded = from_v1beta1({"levels": [RACK], "domains": [{"values": [7], "count": 1}]})
    assert decoded.domains == (DomainCount(("7",), 1),)


def test_empty_domain_list_is_an_empty_assignment() -> None:
    assert from_v1beta1({"levels": [HOSTNAME], "domains": []}) == TopologyAssignment((HOSTNAME,), ())


def _ok(**override: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"levels": [BLOCK, RACK], "domains": [{"values": ["b1", "r1"], "count": 2}]}
    base.update(override)
    return base


REJECTIONS = [
    ("not-a-mapping", ["levels"], "topologyAssignment", "is a mapping"),
    ("levels-missing", {"domains": []}, "topologyAssignment.levels", "missing"),
    ("levels-empty", _ok(levels=[], domains=[]), "topologyAssignment.levels", "1 to 16 levels, got 0"),
    (
        "levels-seventeen",
        _ok(levels=[f"l{i}" for i in range(17)], domains=[]),
        "topologyAssignment.levels",
        "got 17",
    ),
    (
        "level-bad-key",
        _ok(levels=["Bad Key", RACK]),
        "topologyAssignment.levels[0]",
        "not a valid node label key",
    ),
    ("level-twice", _ok(levels=[RACK, RACK]), "topologyAssignment.levels[1]", "listed twice"),
    ("domains-missing", {"levels": [RACK]}, "topologyAssignment.domains", "missing or not a list"),
    ("domain-not-mapping", _ok(domains=["b1"]), "topologyAssignment.domains[0]", "a domain is a mapping"),
    (
        "values-short",
        _ok(domains=[{"values": ["r1"], "count": 1}]),
        "topologyAssignment.domains[0].values",
        "1 values for 2 levels",
    ),
    (
        "value-not-text",
        _ok(domains=[{"values": ["b1", 1.5], "count": 1}]),
        "topologyAssignment.domains[0].values[1]",
        "not a label value",
    ),
    (
        "count-zero",
        _ok(domains=[{"values": ["b1", "r1"], "count": 0}]),
        "topologyAssignment.domains[0].count",
        ">= 1, got 0",
    ),
    (
        "count-bool",
        _ok(domains=[{"values": ["b1", "r1"], "count": True}]),
        "topologyAssignment.domains[0].count",
        "got True",
    ),
    (
        "count-over-int32",
        _ok(domains=[{"values": ["b1", "r1"], "count": 2**31}]),
        "topologyAssignment.domains[0].count",
        "whole number",
    ),
    (
        "count-missing",
        _ok(domains=[{"values": ["b1", "r1"]}]),
        "topologyAssignment.domains[0].count",
        "got None",
    ),
]


@pytest.mark.parametrize(
    ("obj", "path", "message"), [r[1:] for r in REJECTIONS], ids=[r[0] for r in REJECTIONS]
)
def test_decoder_rejects(obj: object, path: str, message: str) -> None:
    with pytest.raises(SpecError) as info:
        from_v1beta1(obj)
    assert any(p.path == path and message in p.message for p in info.value.problems), info.value.problems


def test_every_problem_is_listed() -> None:
    bad = {
        "levels": [RACK],
        "domains": [{"values": ["r1"], "count": 0}, {"values": ["r1", "r2"], "count": 1}, {"values": ["r3"]}],
    }
    with pytest.raises(SpecError) as info:
        from_v1beta1(bad)
    assert [p.path for p in info.value.problems] == [
        "topologyAssignment.domains[0].count",
        "topologyAssignment.domains[1].values",
        "topologyAssignment.domains[2].count",
    ]


def test_problem_list_is_capped_for_huge_inputs() -> None:
    bad = {"levels": [HOSTNAME], "domains": [{"values": [f"h{i}"], "count": 0} for i in range(200)]}
    with pytest.raises(SpecError) as info:
        from_v1beta1(bad)
    problems = info.value.problems
    assert len(problems) == 51
    assert problems[-1].message == "... and 150 more problems"
