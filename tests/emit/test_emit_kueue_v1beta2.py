"""TopologyAssignment v1beta2: the seed's and the reference's examples, run splitting, limits."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from toposched.emit.kueue import V1Beta2Encoding, from_v1beta1, from_v1beta2, to_v1beta2
from toposched.emit.kueue import v1beta2 as encoder
from toposched.model import HOSTNAME, DomainCount, TopologyAssignment

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"

# The KEP's examples (section "Since v1beta2"), verbatim.
SEED_RACKS_V1BETA2 = """
topologyAssignment:
  levels:
  - cloud.provider.com/topology-block
  - cloud.provider.com/topology-rack
  slices:
  - domainCount: 2
    valuesPerLevel:
    - universal: block-1
    - individual:
        prefix: rack-
        roots: [1, 2]
    podCounts:
      individual: [4, 2]
"""
SEED_RACKS_V1BETA1 = """
levels: [cloud.provider.com/topology-block, cloud.provider.com/topology-rack]
domains:
- values: [block-1, rack-1]
  count: 4
- values: [block-1, rack-2]
  count: 2
"""
SEED_POOLS = """
topologyAssignment:
  levels: [kubernetes.io/hostname]
  slices:
  - domainCount: 5
    valuesPerLevel:
    - individual:
        prefix: pool-1-node-
        roots: [1, 2, 3, 4, 5]
    podCounts:
      universal: 1
  - domainCount: 7
    valuesPerLevel:
    - individual:
        prefix: pool-2-node-
        roots: [1, 2, 3, 4, 5, 6, 7]
    podCounts:
      universal: 1
"""


def hosts(*pairs: tuple[str, int]) -> TopologyAssignment:
    return TopologyAssignment((HOSTNAME,), tuple(DomainCount((name,), count) for name, count in pairs))


def size(obj: dict[str, Any]) -> int:
    return len(json.dumps(obj, separators=(",", ":")))


def test_seed_rack_example_decodes_to_the_v1beta1_example() -> None:
    expected = from_v1beta1(yaml.safe_load(SEED_RACKS_V1BETA1))
    assert from_v1beta2(yaml.safe_load(SEED_RACKS_V1BETA2)) == expected


def test_seed_rack_example_is_what_the_encoder_writes() -> None:
    encoded = to_v1beta2(from_v1beta1(yaml.safe_load(SEED_RACKS_V1BETA1)))
    expected = yaml.safe_load(SEED_RACKS_V1BETA2)["topologyAssignment"]
    expected["slices"][0]["valuesPerLevel"][1]["individual"]["roots"] = ["1", "2"]  # strings in JSON
    assert encoded == expected


def test_seed_pool_example_decodes_to_twelve_single_pod_hosts() -> None:
    expected = hosts(
        *[(f"pool-1-node-{i}", 1) for i in range(1, 6)], *[(f"pool-2-node-{i}", 1) for i in range(1, 8)]
    )
    assert from_v1beta2(yaml.safe_load(SEED_POOLS)) == expected


REFERENCE_EXAMPLE = hosts(
    ("gke-c-pool-a-hash1-aa", 3),
    ("gke-c-pool-a-hash1-bb", 3),
    ("gke-c-pool-b-hash2-cc", 4),
    ("gke-c-pool-b-hash2-dd", 5),
)


def test_reference_example_splits_into_two_slices_by_hostname_prefix() -> None:
    encoded = to_v1beta2(REFERENCE_EXAMPLE, V1Beta2Encoding.HOSTNAME_PREFIX)
    assert encoded == {
        "levels": [HOSTNAME],
        "slices": [
            {
                "domainCount": 2,
                "valuesPerLevel": [{"individual": {"prefix": "gke-c-pool-a-hash1-", "roots": ["aa", "bb"]}}],
                "podCounts": {"universal": 3},
            },
            {
                "domainCount": 2,
                "valuesPerLevel": [{"individual": {"prefix": "gke-c-pool-b-hash2-", "roots": ["cc", "dd"]}}],
                "podCounts": {"individual": [4, 5]},
            },
        ],
    }
    assert from_v1beta2(encoded) == REFERENCE_EXAMPLE


def test_default_keeps_the_smaller_json_of_runs_and_single_slice() -> None:
    # Four hosts: one slice with prefix "gke-c-pool-" is smaller than two slices.
    runs = to_v1beta2(REFERENCE_EXAMPLE, V1Beta2Encoding.HOSTNAME_PREFIX)
    single = to_v1beta2(REFERENCE_EXAMPLE, V1Beta2Encoding.SINGLE_SLICE)
    assert size(single) < size(runs)
    assert to_v1beta2(REFERENCE_EXAMPLE) == single
    # Forty hosts in two pools: the per-pool slices win.
    pools = hosts(*[(f"gke-c-pool-{p}-hash{p}-{i:03d}", 1) for p in "ab" for i in range(20)])
    chosen = to_v1beta2(pools)
    # Each slice's prefix is its own longest common prefix, which extends the run's key.
    assert [s["valuesPerLevel"][0]["individual"]["prefix"] for s in chosen["slices"]] == [
        "gke-c-pool-a-hasha-0",
        "gke-c-pool-b-hashb-0",
    ]
    assert size(chosen) < size(to_v1beta2(pools, V1Beta2Encoding.SINGLE_SLICE))


def test_prefix_and_suffix_never_overlap_in_the_shortest_value() -> None:
    encoded = to_v1beta2(TopologyAssignment((RACK,), (DomainCount(("ababa",), 1), DomainCount(("aba",), 1))))
    assert encoded["slices"][0]["valuesPerLevel"] == [{"individual": {"suffix": "aba", "roots": ["ab", ""]}}]
    assert from_v1beta2(encoded).domains[1].values == ("aba",)


def test_common_prefix_and_suffix_are_both_extracted() -> None:
    assignment = hosts(("node-01.example.com", 2), ("node-02.example.com", 2))
    level = to_v1beta2(assignment)["slices"][0]["valuesPerLevel"][0]
    assert level == {"individual": {"prefix": "node-0", "suffix": ".example.com", "roots": ["1", "2"]}}


def test_non_hostname_assignments_stay_one_slice() -> None:
    domains = tuple(DomainCount((f"pool-{p}-b", f"pool-{p}-r{i}"), 1) for p in "ab" for i in range(30))
    encoded = to_v1beta2(TopologyAssignment((BLOCK, RACK), domains), V1Beta2Encoding.HOSTNAME_PREFIX)
    assert len(encoded["slices"]) == 1


def test_runs_keep_the_domain_order() -> None:
    interleaved = hosts(("pool-a-1", 1), ("pool-b-1", 1), ("pool-a-2", 1), ("pool-a-3", 1), ("pool-b-2", 1))
    encoded = to_v1beta2(interleaved, V1Beta2Encoding.HOSTNAME_PREFIX)
    assert [s["domainCount"] for s in encoded["slices"]] == [1, 1, 2, 1]
    assert from_v1beta2(encoded) == interleaved


def test_hosts_without_a_reusable_prefix_share_a_run() -> None:
    assignment = hosts(("alpha-1", 1), ("beta-1", 1), ("gamma-1", 1), ("gamma-2", 1))
    encoded = to_v1beta2(assignment, V1Beta2Encoding.HOSTNAME_PREFIX)
    assert [s["domainCount"] for s in encoded["slices"]] == [2, 2]


def test_runs_are_chunked_at_the_slice_domain_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder, "MAX_DOMAINS_PER_SLICE", 10)
    assignment = hosts(*[(f"pool-a-{i:02d}", 1) for i in range(25)])
    encoded = to_v1beta2(assignment, V1Beta2Encoding.HOSTNAME_PREFIX)
    assert [s["domainCount"] for s in encoded["slices"]] == [10, 10, 5]
    assert from_v1beta2(encoded) == assignment


def test_too_many_runs_retry_with_shorter_prefixes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder, "MAX_SLICES", 2)
    assignment = hosts(*[(f"x-{p}-{i}", 1) for p in "abc" for i in range(2)])
    encoded = to_v1beta2(assignment, V1Beta2Encoding.HOSTNAME_PREFIX)
    assert len(encoded["slices"]) == 1
    assert encoded["slices"][0]["valuesPerLevel"][0]["individual"]["prefix"] == "x-"


def test_too_many_runs_at_every_depth_fall_back_to_one_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder, "MAX_SLICES", 2)
    assignment = hosts(*[(f"{p}-{i}", 1) for p in "abc" for i in range(2)])
    encoded = to_v1beta2(assignment, V1Beta2Encoding.HOSTNAME_PREFIX)
    assert [s["domainCount"] for s in encoded["slices"]] == [6]


def test_empty_assignment_has_no_slices() -> None:
    empty = TopologyAssignment((HOSTNAME,), ())
    assert to_v1beta2(empty) == {"levels": [HOSTNAME], "slices": []}
    assert from_v1beta2({"levels": [HOSTNAME]}) == empty


def test_individual_counts_are_also_read_under_the_go_tag_name() -> None:
    obj = {
        "levels": [HOSTNAME],
        "slices": [
            {
                "domainCount": 2,
                "valuesPerLevel": [{"individual": {"roots": ["h1", "h2"]}}],
                "podCounts": {"podCounts": [1, 3]},
            }
        ],
    }
    assert from_v1beta2(obj) == hosts(("h1", 1), ("h2", 3))
