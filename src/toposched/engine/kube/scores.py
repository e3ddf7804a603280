"""kube-scheduler's resource scores (v1.37.2, default profile), as array arithmetic.

Every score reads two resources, cpu and memory, with weight 1 each: the default
``scoringStrategy.resources`` of NodeResourcesFit and ``resources`` of
NodeResourcesBalancedAllocation. Extended resources (GPUs) are filtered on, never scored. A
resource a node does not have (allocatable 0) is left out of that node's average.

- NodeResourcesFit (``LeastAllocated``, per pod and node, weight 1): per resource
  ``(allocatable - requested) * 100 // allocatable`` (0 when requested exceeds it), where
  requested is what the node's pods ask plus the pod, counted *non-zero*: a pod that requests
  no cpu counts as 100m, one that requests no memory as 200Mi (``NonZeroRequested``).
- NodeResourcesBalancedAllocation (per pod and node, weight 1): the spread of the cpu and
  memory fractions (actual requests, at most 1) as ``(1 - |f_cpu - f_mem| / 2) * 100``, with
  and without the pod; the score ``50 + (50 + with - without) // 2`` rewards the pod that
  evens the node out. Skipped (0 everywhere) for a pod that requests neither.
- TaintToleration (per pod and node, weight 3): the node's PreferNoSchedule taints the pod
  does not tolerate, counted, normalised against the most among the nodes scored
  (``100 - 100 * count // most``; 100 everywhere when no node has one).
- NodeResourcesFit as placement scorer (``MostAllocated``, weight 1): per resource
  ``min(requested, allocatable) * 100 // allocatable`` over all nodes of the placement together,
  requested non-zero as above.
"""

from __future__ import annotations

import numpy as np

from toposched.model import CPU, MEMORY
from toposched.snapshot import BoolArray
from toposched.topology import IntArray

MAX_SCORE = 100  # kube-scheduler's MaxNodeScore
SCORED = (CPU, MEMORY)  # the default resources of both resource plugins, weight 1 each
NON_ZERO = np.asarray(
    [100, 200 * 1024 * 1024], dtype=np.int64
)  # DefaultMilliCPURequest, DefaultMemoryRequest
NON_ZERO.setflags(write=False)  # a shared constant
TAINT_WEIGHT = 3  # TaintToleration's weight in the default profile


def non_zero(requests: IntArray) -> IntArray:
    """Requests of cpu and memory (last axis) as kube-scheduler's scores count them."""
    counted: IntArray = np.where(requests == 0, NON_ZERO, requests)
    return counted


def least_allocated(requested: IntArray, allocatable: IntArray) -> IntArray:
    """``LeastAllocated`` over the last axis (requested non-zero, the pod included)."""
    has = allocatable > 0
    safe = np.maximum(allocatable, 1)
    per = np.where(has & (requested <= allocatable), (allocatable - requested) * MAX_SCORE // safe, 0)
    return _average(per, has)


def most_allocated(requested: IntArray, allocatable: IntArray) -> IntArray:
    """``MostAllocated`` over the last axis, in Python integers: a placement's memory summed
    over many nodes, times 100, can pass int64."""
    requested, allocatable = requested.astype(object), allocatable.astype(object)
    has = allocatable > 0
    safe = np.maximum(allocatable, 1)
    per = np.where(has, np.minimum(requested, allocatable) * MAX_SCORE // safe, 0)
    scores: IntArray = np.asarray(_average(per, has), dtype=np.int64)
    return scores


def balanced(used: IntArray, request: IntArray, allocatable: IntArray) -> IntArray:
    """``NodeResourcesBalancedAllocation`` over the last axis: ``used`` is what the node's pods
    request (actual amounts), ``request`` the pod's; 0 everywhere for a pod asking neither."""
    if not np.any(request):
        return np.zeros(used.shape[:-1], dtype=np.int64)
    with_pod = _balance(used + request, allocatable)
    without = _balance(used, allocatable)
    scores: IntArray = MAX_SCORE // 2 + (MAX_SCORE // 2 + with_pod - without) // 2
    return scores


def _balance(requested: IntArray, allocatable: IntArray) -> IntArray:
    """``(1 - std) * 100`` of the fractions, truncated as Go's int64 conversion does."""
    has = allocatable > 0
    fractions = np.minimum(np.where(has, requested / np.maximum(allocatable, 1), 0.0), 1.0)
    both = has.all(axis=-1)  # two resources: std = |f0 - f1| / 2; one: 0
    std = np.where(both, np.abs((fractions[..., 0] - fractions[..., 1]) / 2), 0.0)
    score: IntArray = ((1 - std) * MAX_SCORE).astype(np.int64)
    return score


def taint_scores(counts: IntArray) -> IntArray:
    """TaintToleration's normalised score of the nodes scored together, weight applied."""
    most = int(counts.max()) if len(counts) else 0
    if most == 0:
        return np.full(len(counts), TAINT_WEIGHT * MAX_SCORE, dtype=np.int64)
    scores: IntArray = TAINT_WEIGHT * (MAX_SCORE - MAX_SCORE * counts // most)
    return scores


def _average(per: IntArray, has: BoolArray) -> IntArray:
    count = has.sum(axis=-1)
    scores: IntArray = np.where(count > 0, per.sum(axis=-1) // np.maximum(count, 1), 0)
    return scores
