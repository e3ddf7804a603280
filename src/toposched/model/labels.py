"""How nodes carry a topology's level labels: the checks every cluster load runs.

Labels cannot fail to form a tree (a domain is identified by its full path), so these checks
report what silently shrinks or confuses the topology instead: nodes with some but not all level
labels (outside the topology), a topology no node belongs to, two nodes with one hostname value.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from toposched.model.errors import Problem
from toposched.model.node import Node, level_value
from toposched.model.topology import HOSTNAME, Topology


def label_problems(topology: Topology, nodes: Sequence[Node]) -> list[Problem]:
    """Every label problem of ``nodes`` under ``topology``, each with the field path and a fix."""
    problems: list[Problem] = []
    levels = topology.levels
    members = 0
    # Nodes lacking the same labels are one problem: a dump of thousands of nodes with one
    # label scheme gives one line, not one per node.
    partial: dict[tuple[tuple[str, ...], tuple[str, ...]], list[str]] = defaultdict(list)
    for node in nodes:
        missing = tuple(key for key in levels if level_value(node, key) is None)
        if not missing:
            members += 1
        elif len(missing) < len(levels):
            present = tuple(key for key in levels if level_value(node, key) is not None)
            partial[present, missing].append(node.name)
    for (present, missing), names in partial.items():
        who = f"node {names[0]!r} carries" if len(names) == 1 else f"{_some(names)} carry"
        it = "it is" if len(names) == 1 else "they are"
        problems.append(
            Problem(
                f"nodes[{names[0]}].metadata.labels",
                f"{who} {', '.join(present)} but lack{'s' if len(names) == 1 else ''} {', '.join(missing)}, "
                f"so {it} outside topology {topology.name!r}",
                "add the missing labels, or remove the partial ones if the nodes are not meant to be in it",
            )
        )
    if nodes and members == 0:
        problems.append(
            Problem(
                f"topologies[{topology.name}].spec.levels",
                f"no node carries every level label of topology {topology.name!r}",
                "label the nodes with " + ", ".join(levels),
            )
        )
    holders: dict[str, list[str]] = defaultdict(list)
    for node in nodes:
        value = node.labels.get(HOSTNAME)
        if value is not None:
            holders[value].append(node.name)
    for value, names in sorted(holders.items()):
        if len(names) > 1:
            problems.append(
                Problem(
                    f"nodes[{names[1]}].metadata.labels[{HOSTNAME}]",
                    f"hostname label value {value!r} is used by {len(names)} nodes ({', '.join(sorted(names))})",
                    "hostname labels identify nodes; give each node its own",
                )
            )
    return problems


def _some(names: Sequence[str], shown: int = 3) -> str:
    """``4 nodes ('a', 'b', 'c' and 1 more)``."""
    listed = ", ".join(repr(name) for name in names[:shown])
    rest = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"{len(names)} nodes ({listed}{rest})"
