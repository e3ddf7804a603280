"""TopologyAssignment in the compressed v1beta2 shape: the encoder.

A slice covers consecutive domains. Per level, values equal across the slice become
``universal``; otherwise ``individual`` keeps each value's root between a common prefix and
suffix. Pod counts are ``universal`` when all equal.

For hostname assignments the domains are further cut into runs that share a reusable
``-``-terminated hostname prefix (``pool-a-node-1``, ``pool-a-node-2`` → prefix ``pool-a-node-``),
as Kueue does with its hostname-prefix encoding: order is never changed, runs are chunked at
100 000 domains, and when that would give more than 1000 slices shorter prefixes are tried,
finally a single run.

The default form is the smallest JSON of that, the single slice, and the slices
``smallest_partition`` chooses by merging runs of hostnames that share everything up to their
last ``-`` (see ``v1beta2_slices``). Domain order is kept in every form.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
from itertools import chain
from typing import Any

from toposched.emit.kueue.v1beta2_slices import smallest_partition
from toposched.model import HOSTNAME, DomainCount, TopologyAssignment

MAX_SLICES = 1000
MAX_DOMAINS_PER_SLICE = 100_000
MAX_ROOT_LENGTH = 63  # prefix, suffix and each root: label values are at most 63 characters


class V1Beta2Encoding(StrEnum):
    """Which v1beta2 form ``to_v1beta2`` writes. Every form decodes to the same assignment."""

    SMALLEST = "smallest"  # the smallest JSON of the other two and merged runs (the default)
    HOSTNAME_PREFIX = "hostname-prefix"  # one slice per run of a reusable hostname prefix
    SINGLE_SLICE = "single-slice"  # one slice (chunked at 100 000 domains)


def to_v1beta2(
    assignment: TopologyAssignment, encoding: V1Beta2Encoding = V1Beta2Encoding.SMALLEST
) -> dict[str, Any]:
    """Encode as ``{"levels": [...], "slices": [...]}``; by default the smallest valid form.

    Individual pod counts are written under the key ``individual`` (see ``from_v1beta2``).
    """
    if encoding is V1Beta2Encoding.SINGLE_SLICE:
        return _encode(assignment, None)
    by_prefix = _encode(assignment, _prefix_keys(assignment))
    if encoding is V1Beta2Encoding.HOSTNAME_PREFIX or len(assignment.domains) <= 1:
        return by_prefix
    candidates = [by_prefix, _encode_ranges(assignment, _merged_ranges(assignment))]
    if len(assignment.domains) <= MAX_DOMAINS_PER_SLICE:  # else one slice cannot hold them
        candidates.append(_encode(assignment, None))
    sized = [(_json_size(c), i) for i, c in enumerate(candidates) if len(c["slices"]) <= MAX_SLICES]
    return candidates[min(sized)[1]]


def _merged_ranges(assignment: TopologyAssignment) -> list[tuple[int, int]]:
    """Slices merged from runs of values equal up to their last ``-`` (see ``v1beta2_slices``)."""
    keys = [d.values[-1][: d.values[-1].rfind("-") + 1] for d in assignment.domains]
    runs = _chunked(_runs(len(keys), keys))
    return smallest_partition(assignment.domains, runs, MAX_SLICES, MAX_DOMAINS_PER_SLICE)


def _prefix_keys(assignment: TopologyAssignment) -> list[str] | None:
    """Run keys for hostname assignments; None (one run) for any other level."""
    if len(assignment.domains) > 1 and assignment.levels[-1:] == (HOSTNAME,):
        return _hostname_prefix_keys([d.values[-1] for d in assignment.domains])
    return None


def _encode(assignment: TopologyAssignment, keys: Sequence[str] | None) -> dict[str, Any]:
    """One slice per run of equal keys (one run without keys), chunked at 100 000 domains."""
    return _encode_ranges(assignment, _chunked(_runs(len(assignment.domains), keys)))


def _chunked(runs: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Runs cut into pieces of at most 100 000 domains."""
    return [
        (start, min(end, start + MAX_DOMAINS_PER_SLICE))
        for run_start, end in runs
        for start in range(run_start, end, MAX_DOMAINS_PER_SLICE)
    ]


def _encode_ranges(assignment: TopologyAssignment, ranges: Sequence[tuple[int, int]]) -> dict[str, Any]:
    """One slice per ``[start, end)`` range of domains."""
    domains = assignment.domains
    slices = [_encode_slice(assignment.levels, domains[start:end]) for start, end in ranges]
    return {"levels": list(assignment.levels), "slices": slices}


def _runs(n: int, keys: Sequence[str] | None) -> list[tuple[int, int]]:
    """``[start, end)`` ranges of consecutive equal keys; one run when there are no keys."""
    if n == 0:
        return []
    if not keys:
        return [(0, n)]
    runs: list[tuple[int, int]] = []
    start = 0
    for i in range(1, n):
        if keys[i] != keys[start]:
            runs.append((start, i))
            start = i
    runs.append((start, n))
    return runs


def _slice_count(keys: Sequence[str]) -> int:
    return len(_chunked(_runs(len(keys), keys)))


def _hostname_prefix_keys(hostnames: Sequence[str]) -> list[str] | None:
    """Per hostname, its longest reusable prefix (shared by >= 2 hostnames; "" when none),
    at the deepest prefix depth whose runs fit in ``MAX_SLICES`` slices. None: use one run."""
    candidates: list[list[str]] = []
    for name in hostnames:
        prefixes: list[str] = []
        dash = name.find("-")
        while dash != -1 and dash + 1 < len(name):  # a trailing "-" leaves no root
            prefixes.append(name[: dash + 1])
            dash = name.find("-", dash + 1)
        candidates.append(prefixes)
    counts = Counter(chain.from_iterable(candidates))
    max_depth = max((len(p) for p in candidates), default=0)
    for depth in range(max_depth, 0, -1):
        keys = [_longest_reusable(prefixes[:depth], counts) for prefixes in candidates]
        if _slice_count(keys) <= MAX_SLICES:
            return keys
    return None


def _longest_reusable(prefixes: Sequence[str], counts: Counter[str]) -> str:
    for prefix in reversed(prefixes):
        if counts[prefix] >= 2:
            return prefix
    return ""


def _encode_slice(levels: Sequence[str], domains: Sequence[DomainCount]) -> dict[str, Any]:
    counts = [d.count for d in domains]
    pod_counts: dict[str, Any] = (
        {"universal": counts[0]} if counts.count(counts[0]) == len(counts) else {"individual": counts}
    )
    return {
        "domainCount": len(domains),
        "valuesPerLevel": [_level_values([d.values[i] for d in domains]) for i in range(len(levels))],
        "podCounts": pod_counts,
    }


def _level_values(values: list[str]) -> dict[str, Any]:
    low, high = min(values), max(values)
    if low == high:
        return {"universal": low}
    # The common prefix of all strings is the common prefix of the smallest and largest one.
    prefix = _common_prefix(low, high)
    reversed_values = [v[::-1] for v in values]
    suffix = _common_prefix(min(reversed_values), max(reversed_values))[::-1]
    shortest = min(map(len, values))
    if len(prefix) + len(suffix) > shortest:  # "ababa" and "aba": prefix and suffix would overlap
        prefix = prefix[: shortest - len(suffix)]
    individual: dict[str, Any] = {}
    if prefix:
        individual["prefix"] = prefix
    if suffix:
        individual["suffix"] = suffix
    end = len(suffix)
    individual["roots"] = [v[len(prefix) : len(v) - end] for v in values]
    return {"individual": individual}


def _common_prefix(a: str, b: str) -> str:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return a[:i]


def _json_size(obj: dict[str, Any]) -> int:
    """Bytes of the compact JSON, as the API server would store it."""
    return len(json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode())
