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
    for node in nodes:
        missing = [key for key in levels if level_value(node, key) is None]
        if not missing:
            members += 1
        elif len(missing) < len(levels):
            present = [key for key in levels if level_value(node, key) is not None]
            problems.append(
                Problem(
                    f"nodes[{node.name}].metadata.labels",
                    f"node {node.name!r} carries {', '.join(present)} but lacks {', '.join(missing)}, "
                    f"so it is outside topology {topology.name!r}",
                    "add the missing labels, or remove the partial ones if the node is not meant to be in it",
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
