"""A cluster dump (YAML or JSON) → ``Cluster``: Nodes, the Pods using their capacity, Topology
objects. Each List item becomes a ``Node`` or ``RunningPod`` as soon as it is parsed and its
mapping is dropped, so a large dump is never held as a whole document tree."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from toposched.intake.cluster.documents import Located, located_objects
from toposched.intake.cluster.nodes import parse_node
from toposched.intake.cluster.pods import parse_pod
from toposched.intake.cluster.topology import topology_located
from toposched.intake.parse import CLUSTER_DUMP_LIMITS, Parsed, parse_stream
from toposched.model import Cluster, ClusterSpecError, Node, Problem, RunningPod, SpecError, Topology
from toposched.model.cluster import duplicate_names
from toposched.model.labels import label_problems


def load_cluster(text: str | bytes, *, source: str = "cluster") -> Cluster:
    """Load a cluster dump; see ``load_cluster_report``, which also returns warnings."""
    return load_cluster_report(text, source=source)[0]


def load_cluster_report(text: str | bytes, *, source: str = "cluster") -> tuple[Cluster, list[str]]:
    """Load a cluster dump and say what was skipped or looks wrong.

    ``text`` is YAML or JSON (told apart by content): a ``v1 List`` as ``kubectl get nodes,pods -A
    -o yaml`` (or ``-o json``) prints it, a multi-document stream, or a mix. Nodes, Pods and
    Topology objects (Kueue ``kueue.x-k8s.io`` v1alpha1 / v1beta1 / v1beta2, KAI
    ``kai.scheduler/v1alpha1``) are read; other kinds are skipped and counted in the warnings, as
    are pods on unknown nodes and label problems (``model.labels``). ``source`` names the text in syntax errors (``<source>:<line>:<col>``).
    A dump may be as large as ``CLUSTER_DUMP_LIMITS`` allows (larger than a spec).

    Raises ``ClusterSpecError`` listing every problem, each with its field path.
    """
    try:
        return _cluster(parse_stream(text, source=source, limits=CLUSTER_DUMP_LIMITS), source)
    except ClusterSpecError:
        raise
    except SpecError as exc:  # the text itself: syntax, bounds
        raise ClusterSpecError(exc.problems) from None


def cluster_from_objects(
    objects: Iterable[Mapping[str, Any]], *, source: str = "cluster"
) -> tuple[Cluster, list[str]]:
    """``load_cluster_report`` for objects already decoded (an API server's list and watch
    answers): Nodes, Pods and Topology objects; other kinds are skipped and counted."""
    problems: list[Problem] = []
    located = (Located(f"items[{i}]", str(obj.get("kind", "")), obj) for i, obj in enumerate(objects))
    return _from_located(located, problems, source)


def _cluster(values: Iterable[Parsed], source: str) -> tuple[Cluster, list[str]]:
    problems: list[Problem] = []
    return _from_located(located_objects(values, problems), problems, source)


def _from_located(
    objects: Iterable[Located], problems: list[Problem], source: str
) -> tuple[Cluster, list[str]]:
    warnings: list[str] = []
    nodes: list[Node] = []
    pods: list[RunningPod] = []
    topologies: list[Topology] = []
    ignored: Counter[str] = Counter()
    count = 0
    for located in objects:
        count += 1
        if located.kind == "Node":
            node = parse_node(located, problems, warnings)
            if node is not None:
                nodes.append(node)
        elif located.kind == "Pod":
            pod = parse_pod(located, problems)
            if pod is not None:
                pods.append(pod)
        elif located.kind in ("Topology", "ClusterTopology"):
            topology = topology_located(located, problems, warnings)
            if topology is not None:
                topologies.append(topology)
        else:
            ignored[_kind_label(located)] += 1
    problems.extend(duplicate_names(nodes, pods, topologies))
    if problems:
        raise ClusterSpecError(problems)
    cluster = Cluster.create(nodes, pods, topologies)
    warnings.extend(f"ignored {count} {kind} object(s)" for kind, count in sorted(ignored.items()))
    known = {n.name for n in nodes}
    for pod in pods:
        if pod.node not in known:
            warnings.append(
                f"pods[{pod.namespace}/{pod.name}]: bound to node {pod.node!r}, which is not in the dump"
            )
    for topology in topologies:
        warnings.extend(str(p) for p in label_problems(topology, cluster.nodes))
    if not count:
        warnings.append(f"{source}: no objects found")
    return cluster, warnings


def _kind_label(located: Located) -> str:
    api_version = located.obj.get("apiVersion")
    return f"{located.kind} ({api_version})" if isinstance(api_version, str) else located.kind
