"""v1beta2 slice choice: exact round trips on GKE, EC2 and rack host names in any order, sizes
predicted exactly, never larger than Kueue's own forms, and the slice limit kept."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toposched.emit.kueue import V1Beta2Encoding, from_v1beta2, to_v1beta2
from toposched.emit.kueue import v1beta2 as encoder
from toposched.emit.kueue.v1beta2_slices import _Slice, smallest_partition
from toposched.model import HOSTNAME, DomainCount, TopologyAssignment

HEX = "0123456789abcdef"
BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"

# GKE pool style: gke-<cluster>-<pool>-<instance group hash>-<node suffix>, a few groups.
gke_names = st.builds(
    lambda pool, group, node: f"gke-cluster-pool-{pool}-{group}-{node}",
    st.integers(1, 3),
    st.sampled_from(["1f2e3d4c", "a1b2c3d4", "0badcafe"]),
    st.text(BASE36, min_size=4, max_size=4),
)
# EC2 private DNS names.
ec2_names = st.builds(
    lambda a, b, c: f"ip-10-{a}-{b}-{c}.ec2.internal",
    st.integers(0, 7),
    st.integers(0, 255),
    st.integers(0, 255),
)
# Rack style.
rack_names = st.builds(lambda rack, node: f"r{rack}-n{node:02d}", st.integers(1, 40), st.integers(1, 16))


def hostname_assignments(names: st.SearchStrategy[str]) -> st.SearchStrategy[TopologyAssignment]:
    """Distinct hosts in any order (aligned or scattered), counts mostly equal."""
    counts = st.integers(1, 2) | st.integers(1, 10_000)
    domains = st.lists(st.tuples(names, counts), max_size=60, unique_by=lambda pair: pair[0])
    return domains.map(
        lambda pairs: TopologyAssignment((HOSTNAME,), tuple(DomainCount((n,), c) for n, c in pairs))
    )


def json_size(obj: dict[str, Any]) -> int:
    return len(json.dumps(obj, separators=(",", ":")))


@pytest.mark.parametrize("names", [gke_names, ec2_names, rack_names], ids=["gke", "ec2", "rack"])
@settings(max_examples=150)
@given(data=st.data())
def test_round_trip_is_exact_and_default_is_smallest(
    data: st.DataObject, names: st.SearchStrategy[str]
) -> None:
    assignment = data.draw(hostname_assignments(names))
    chosen = to_v1beta2(assignment)
    assert from_v1beta2(json.loads(json.dumps(chosen))) == assignment
    for encoding in (V1Beta2Encoding.HOSTNAME_PREFIX, V1Beta2Encoding.SINGLE_SLICE):
        assert json_size(chosen) <= json_size(to_v1beta2(assignment, encoding)), encoding


label_values = st.text("ab-1.", max_size=6)


@given(
    st.lists(
        st.tuples(st.tuples(label_values, label_values), st.sampled_from([1, 1, 2, 10, 12345])),
        min_size=1,
        max_size=12,
    ),
    st.data(),
)
def test_predicted_slice_size_is_the_encoded_size(
    rows: list[tuple[tuple[str, str], int]], data: st.DataObject
) -> None:
    """The summaries the merge works on agree with the encoder, also after merging two of them."""
    domains = [DomainCount(values, count) for values, count in rows]
    cut = data.draw(st.integers(1, len(domains)))
    summary = _Slice.of(domains, 0, cut)
    if cut < len(domains):
        summary = summary.merge(_Slice.of(domains, cut, len(domains)))
    encoded = encoder._encode_slice(("block", "rack"), domains)
    assert summary.size() == json_size(encoded) + 1  # and the comma before the next slice


@given(st.lists(st.integers(1, 5), min_size=1, max_size=30), st.integers(1, 4))
def test_partition_covers_the_runs_in_order_within_the_limits(lengths: list[int], max_slices: int) -> None:
    starts = [sum(lengths[:i]) for i in range(len(lengths) + 1)]
    runs = list(itertools.pairwise(starts))
    domains = [DomainCount((f"pool-{i % 3}-node-{i}",), 1) for i in range(starts[-1])]
    ranges = smallest_partition(domains, runs, max_slices, max_domains=1_000)
    assert ranges[0][0] == 0 and ranges[-1][1] == starts[-1]
    assert all(a[1] == b[0] for a, b in itertools.pairwise(ranges))
    assert len(ranges) <= max_slices


def test_merged_slices_respect_the_slice_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(encoder, "MAX_SLICES", 3)
    names = [f"r{rack}-n{node:02d}" for rack in range(1, 9) for node in range(1, 17)]
    assignment = TopologyAssignment((HOSTNAME,), tuple(DomainCount((n,), 1) for n in names))
    encoded = to_v1beta2(assignment)
    assert len(encoded["slices"]) <= 3
    assert from_v1beta2(encoded) == assignment


def test_rack_names_get_one_slice_per_group_of_racks() -> None:
    """Kueue's own form falls back to one slice here (1000+ racks); merging keeps prefixes like
    ``r12`` for whole groups of racks, so the JSON is smaller than both of Kueue's forms."""
    names = sorted(f"r{rack}-n{node:02d}" for rack in range(1, 1301) for node in range(1, 17))
    assignment = TopologyAssignment((HOSTNAME,), tuple(DomainCount((n,), 1) for n in names))
    chosen = to_v1beta2(assignment)
    assert 1 < len(chosen["slices"]) <= 1000
    assert json_size(chosen) < json_size(to_v1beta2(assignment, V1Beta2Encoding.HOSTNAME_PREFIX))
    assert json_size(chosen) < json_size(to_v1beta2(assignment, V1Beta2Encoding.SINGLE_SLICE))
    assert from_v1beta2(chosen) == assignment
