"""Round-trip properties of both encodings, and the v1beta2 size goal for 40 000 hosts."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toposched.emit.kueue import V1Beta2Encoding, from_v1beta1, from_v1beta2, to_v1beta1, to_v1beta2
from toposched.model import HOSTNAME, DomainCount, TopologyAssignment

LEVEL_SETS = [
    (HOSTNAME,),
    ("cloud.provider.com/topology-rack",),
    ("cloud.provider.com/topology-block", "cloud.provider.com/topology-rack"),
    ("topology.kubernetes.io/zone", "cloud.provider.com/topology-block", "kubernetes.io/hostname"),
]

# Hostname-like values built from a few parts, so prefixes are often shared; plus raw strings
# with dashes in odd places (leading, doubled, trailing) to stress the prefix logic.
hostname_like = st.one_of(
    st.lists(
        st.sampled_from(["gke", "pool", "a", "b", "node", "1", "2", "10", "x9"]), min_size=1, max_size=5
    ).map("-".join),
    st.text(alphabet="ab-1", max_size=8),
)


@st.composite
def assignments(draw: st.DrawFn) -> TopologyAssignment:
    levels = draw(st.sampled_from(LEVEL_SETS))
    domain = st.builds(
        DomainCount,
        st.tuples(*[hostname_like] * len(levels)),
        st.integers(min_value=1, max_value=2**31 - 1) | st.integers(min_value=1, max_value=3),
    )
    return TopologyAssignment(levels, tuple(draw(st.lists(domain, max_size=40))))


def json_size(obj: dict[str, Any]) -> int:
    return len(json.dumps(obj, separators=(",", ":")))


@given(assignments())
def test_v1beta1_round_trip(assignment: TopologyAssignment) -> None:
    assert from_v1beta1(json.loads(json.dumps(to_v1beta1(assignment)))) == assignment


@settings(max_examples=200)
@given(assignments())
def test_v1beta2_round_trip_in_every_encoding(assignment: TopologyAssignment) -> None:
    for encoding in V1Beta2Encoding:
        encoded = to_v1beta2(assignment, encoding)
        assert from_v1beta2(json.loads(json.dumps(encoded))) == assignment, encoding


@given(assignments())
def test_v1beta2_default_is_never_larger_than_one_slice(assignment: TopologyAssignment) -> None:
    chosen = to_v1beta2(assignment)
    assert json_size(chosen) <= json_size(to_v1beta2(assignment, V1Beta2Encoding.SINGLE_SLICE))
    assert sum(s["domainCount"] for s in chosen["slices"]) == len(assignment.domains)


def _hex(rnd: random.Random, length: int) -> str:
    return "".join(rnd.choice("0123456789abcdef") for _ in range(length))


def pool_and_node_names(n: int) -> list[str]:
    """AKS-like: fixed cluster part, one of 1000 pools, a 6-character node id (sorted, as the
    engine emits domains sorted by value)."""
    rnd = random.Random(1)
    pools = [f"aks-{_hex(rnd, 8)}-{_hex(rnd, 8)}-vmss" for _ in range(1000)]
    return sorted({f"cluster-{'a' * 12}-{pools[i % 1000]}-{_hex(rnd, 6)}" for i in range(n)})


def region_and_ip_names(n: int) -> list[str]:
    """EKS-like: one of 100 region names and a consecutive IP address, in generation order."""
    rnd = random.Random(2)
    regions = [_hex(rnd, 14) for _ in range(100)]
    return [
        f"ip-{'a' * 16}-{regions[i % 100]}-100.{100 + i // 65536}.{i % 65536 // 256}.{i % 256}"
        for i in range(n)
    ]


def gke_pool_names(n: int) -> list[str]:
    """GKE-like: gke-<cluster>-<pool>-<pool hash>-<node suffix>, sorted."""
    return sorted(f"gke-cluster-pool-{i % 1000:04d}-{i % 1000:08x}-{i // 1000:04x}" for i in range(n))


def test_forty_thousand_single_pod_hosts_fit_the_etcd_object_limit() -> None:
    for make in (pool_and_node_names, region_and_ip_names, gke_pool_names):
        names = make(40_000)
        assignment = TopologyAssignment((HOSTNAME,), tuple(DomainCount((name,), 1) for name in names))
        encoded = to_v1beta2(assignment)
        assert len(encoded["slices"]) <= 1000, make.__name__
        assert json_size(encoded) < 1_500_000, make.__name__
        assert json_size(encoded) < json_size(to_v1beta1(assignment)), make.__name__
        assert from_v1beta2(encoded) == assignment, make.__name__
