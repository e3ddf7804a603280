"""How a topology tree lays out its members (``tree``): sorted by (level values, node name), each
level's domains numbered in path order, with index arrays from each node to its domain, from each
domain to its parent and to its range of children, and from each leaf to its range of nodes.
Codes come from sorting each level's values once, then one ``lexsort`` orders the members, so
building does a few C-level passes per level and sorts no tuples in Python."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np

from toposched.model import Node, Topology
from toposched.model.node import NODE_LEVEL, level_value
from toposched.topology.paths import IntArray, PathCodes, value_codes


@dataclass(frozen=True, slots=True)
class TreeLayout:
    """The arrays of a laid-out tree (see ``TopologyTree`` for each)."""

    nodes: tuple[Node, ...]
    node_domain: tuple[IntArray, ...]
    parent: tuple[IntArray, ...]
    child_start: tuple[IntArray, ...]
    child_end: tuple[IntArray, ...]
    leaf_start: IntArray
    leaf_end: IntArray
    codes: PathCodes


def member_order(names: list[str], level_codes: list[IntArray]) -> IntArray:
    """The order of members sorted by (level values, node name), stable, from value codes: the
    names are only ranked when two members share a full path (leaves of several nodes)."""
    keys = level_codes[::-1]  # lexsort sorts by its last key first
    order: IntArray = np.lexsort(keys).astype(np.int64)
    paths = np.stack([codes[order] for codes in level_codes])
    if np.any(np.all(paths[:, 1:] == paths[:, :-1], axis=0)):
        order = np.lexsort([value_codes(names)[1], *keys]).astype(np.int64)
    return order


def lay_out(topology: Topology, members: Sequence[Node]) -> TreeLayout:
    """Lay out ``members`` (already filtered) as the tree of ``topology``."""
    depth = len(topology.levels)
    labels = [node.labels for node in members]
    coded = [
        value_codes(
            (level_value(n, key) or n.name for n in members)
            if key == NODE_LEVEL
            else map(itemgetter(key), labels)
        )
        for key in topology.levels
    ]
    order = member_order([node.name for node in members], [codes for _, codes in coded])
    nodes = tuple(map(members.__getitem__, order.tolist()))
    size = len(nodes)
    # changed[i]: node i starts a new domain at the current level (or a shallower one).
    changed = np.ones(size, dtype=np.bool_)
    changed[1:] = False
    starts: list[IntArray] = []
    node_domain: list[IntArray] = []
    domain_codes: list[IntArray] = []
    for _, codes in coded:
        ordered = codes[order]
        changed[1:] |= ordered[1:] != ordered[:-1]
        starts.append(np.flatnonzero(changed).astype(np.int64))
        node_domain.append(np.cumsum(changed, dtype=np.int64) - 1)
        domain_codes.append(ordered[starts[-1]])
    parents = [np.full(len(starts[0]), -1, dtype=np.int64)]
    child_start: list[IntArray] = []
    child_end: list[IntArray] = []
    for level in range(1, depth):
        parents.append(node_domain[level - 1][starts[level]])
        begin = node_domain[level][starts[level - 1]]
        child_start.append(begin)
        child_end.append(np.append(begin[1:], len(starts[level])).astype(np.int64))
    leaf_end = np.append(starts[-1][1:], size).astype(np.int64)
    path_codes = PathCodes(tuple(values for values, _ in coded), tuple(domain_codes), tuple(parents))
    return TreeLayout(
        nodes,
        tuple(node_domain),
        tuple(parents),
        tuple(child_start),
        tuple(child_end),
        starts[-1],
        leaf_end,
        path_codes,
    )
