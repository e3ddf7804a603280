"""Label checks that do not stop loading but usually point at a mislabelled node."""

from __future__ import annotations

from toposched.model import HOSTNAME, Cluster, Problem, Topology


def check_labels(cluster: Cluster, topology: Topology) -> list[Problem]:
    """Warnings: nodes carrying some but not all level labels of ``topology`` (such nodes are
    outside the topology), and nodes sharing one ``kubernetes.io/hostname`` value."""
    problems: list[Problem] = []
    for node in cluster.nodes:
        present = [level for level in topology.levels if level in node.labels]
        if present and len(present) < len(topology.levels):
            missing = [level for level in topology.levels if level not in node.labels]
            problems.append(
                Problem(
                    f"nodes[{node.name}].metadata.labels",
                    f"node {node.name!r} lacks {', '.join(missing)} of topology {topology.name!r}, "
                    "so it is outside that topology",
                    "add the missing labels, or remove the partial ones if the node is not meant to be in it",
                )
            )
    first_with: dict[str, str] = {}
    for node in cluster.nodes:
        hostname = node.labels.get(HOSTNAME)
        if hostname is None:
            continue
        if hostname in first_with:
            problems.append(
                Problem(
                    f"nodes[{node.name}].metadata.labels[{HOSTNAME}]",
                    f"nodes {first_with[hostname]!r} and {node.name!r} have the same hostname label {hostname!r}",
                    "hostname labels identify nodes; give each node its own",
                )
            )
        else:
            first_with[hostname] = node.name
    return problems
