"""Topology lint: problems in how nodes carry a topology's level labels.

Labels cannot fail to form a tree (a domain is identified by its full path), so the lint reports
what silently shrinks or confuses the topology instead.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from toposched.model import HOSTNAME, Node, Problem, Topology


def lint(topology: Topology, nodes: Sequence[Node]) -> list[Problem]:
    """Every problem found, each with the node's field path and a hint."""
    problems: list[Problem] = []
    levels = topology.levels
    members = 0
    for node in nodes:
        missing = [key for key in levels if key not in node.labels]
        if not missing:
            members += 1
            continue
        if len(missing) < len(levels):
            present = [key for key in levels if key in node.labels]
            problems.append(
                Problem(
                    f"nodes[{node.name}].metadata.labels",
                    f"node {node.name!r} carries {', '.join(present)} but lacks {', '.join(missing)}",
                    f"add the missing labels; until then the node is outside topology {topology.name!r}",
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
    if HOSTNAME in levels:
        holders: dict[str, list[str]] = defaultdict(list)
        for node in nodes:
            value = node.labels.get(HOSTNAME)
            if value is not None:
                holders[value].append(node.name)
        for value, names in sorted(holders.items()):
            if len(names) > 1:
                problems.append(
                    Problem(
                        f"nodes[{names[1]}].metadata.labels.{HOSTNAME}",
                        f"hostname label value {value!r} is used by {len(names)} nodes ({', '.join(sorted(names))})",
                        "each node needs its own hostname label value",
                    )
                )
    return problems
