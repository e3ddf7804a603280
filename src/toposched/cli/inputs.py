"""The command line's edge: read files, parse each once (bounded), turn options into values.

Every problem (unreadable file, bad YAML, unknown policy) is raised as a ``ToposchedError``; the
commands turn those into exit code 2.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toposched.engine import PolicyRegistry, builtin_policies
from toposched.frontends.registry import PoolEntry
from toposched.intake.cluster import load_cluster_report, topologies_from_documents
from toposched.intake.parse import CLUSTER_DUMP_LIMITS, parse_documents, read_file
from toposched.model import (
    Cluster,
    NotFoundError,
    Problem,
    Search,
    SpecError,
    Topology,
    TopologySpecError,
)

POLICIES = builtin_policies().names  # the built-in ones
SEARCHES = tuple(s.value for s in Search)

if TYPE_CHECKING:
    from toposched.frontends import osmo


def read_documents(path: str, *, what: str) -> list[Any]:
    """The parsed documents of a file: the one place the command line parses YAML."""
    return parse_documents(read_file(path, what=what), source=path)


def read_all(files: Mapping[str, str | None], problems: list[Problem]) -> dict[str, list[Any]]:
    """The documents of every file given (what → path), one problem list for all of them."""
    found: dict[str, list[Any]] = {}
    for what, path in files.items():
        if path is None:
            continue
        try:
            found[what] = read_documents(path, what=what)
        except SpecError as exc:
            problems.extend(exc.problems)
    return found


def parse_policy(value: str | None, policies: PolicyRegistry | None = None) -> str | None:
    """``--policy`` as the name of a policy of ``policies`` (the built-in ones by default); None
    leaves the choice to the workload and its front end."""
    if value is None:
        return None
    return (policies or builtin_policies()).get(value, field="--policy").name


def parse_search(value: str) -> Search:
    """``--search`` as a ``Search`` mode."""
    try:
        return Search(value.strip().lower())
    except ValueError:
        raise SpecError(
            [Problem("--search", f"unknown search mode {value!r}", f"use one of {', '.join(SEARCHES)}")]
        ) from None


@dataclass(frozen=True, slots=True)
class ClusterSource:
    """Which cluster a command reads: the dump ``file``, else the live cluster of the kubeconfig
    (``kubeconfig`` and ``context`` as kubectl takes them; see ``cluster_options``)."""

    file: str | None = None
    context: str | None = None
    kubeconfig: str | None = None

    @property
    def field(self) -> str:
        """The option messages about the cluster name."""
        return self.file if self.file is not None else "--context"


def load_cluster(source: ClusterSource) -> tuple[Cluster, list[str]]:
    """The cluster and the loader's warnings, from the dump file or read live (one loader for
    both). A live read that fails is a ``KubeApiError`` (``errors.exit_code_of``: exit 1)."""
    if source.file is not None:
        given = [o for o, v in (("--context", source.context), ("--kubeconfig", source.kubeconfig)) if v]
        if given:
            raise SpecError(
                [
                    Problem(
                        given[0],
                        f"chooses a live cluster, but --cluster {source.file} gives a dump",
                        "leave out one of them",
                    )
                ]
            )
        return read_cluster(source.file)
    # The Kubernetes client loads only for a command that reads a live cluster.
    from toposched.controller.kubeconfig import find_kubeconfig
    from toposched.controller.live_cluster import read_live_cluster

    found = find_kubeconfig(source.kubeconfig)
    if not found.files and source.context is None and not os.environ.get("KUBERNETES_SERVICE_HOST"):
        raise SpecError(
            [
                Problem(
                    "--cluster",
                    "is missing, and there is no live cluster to read instead (no --kubeconfig, "
                    "$KUBECONFIG names no existing file or is unset, no ~/.kube/config)",
                    "give a dump: --cluster FILE, or a kubeconfig: --kubeconfig PATH, $KUBECONFIG "
                    "or ~/.kube/config",
                )
            ]
        )
    live = read_live_cluster(source.kubeconfig, context=source.context)
    return live.cluster, live.warnings


def read_cluster(path: str) -> tuple[Cluster, list[str]]:
    """A cluster file (YAML or JSON: a v1 List or a multi-document stream of Nodes, Pods and
    Topologies) and the loader's warnings (skipped objects, nodes missing some level labels).
    Its List items become nodes and pods as they are parsed, so a large dump is never held whole."""
    return load_cluster_report(read_file(path, what="cluster", limits=CLUSTER_DUMP_LIMITS), source=path)


@dataclass(frozen=True, slots=True)
class TopologyChoice:
    """``--topology`` resolved: the cluster with the file's topologies added, the topology asked
    for by name, and the default a single-topology file gives."""

    cluster: Cluster
    requested: str | None = None
    default: str | None = None
    from_file: bool = False


def topology_option(cluster: Cluster, value: str | None) -> TopologyChoice:
    """An existing file adds its topologies (Topology, ClusterTopology or the shorthand) to the
    cluster, and its only one becomes the default; anything else names a topology."""
    if value is None:
        return TopologyChoice(cluster)
    if Path(value).is_file():
        found = topologies_from_documents(read_documents(value, what="topology"), source=value)
        if not found:
            raise TopologySpecError(
                [
                    Problem(
                        value, "has no Topology or ClusterTopology", "give a Topology file or a Topology name"
                    )
                ]
            )
        for topology in found:
            cluster = cluster.with_topology(topology)
        return TopologyChoice(cluster, default=found[0].name if len(found) == 1 else None, from_file=True)
    if Path(value).suffix in (".yaml", ".yml", ".json") or "/" in value:
        raise SpecError(
            [Problem("--topology", f"{value}: file not found", "give a Topology file or a Topology name")]
        )
    return TopologyChoice(cluster, requested=value)


def cluster_topologies(source: ClusterSource, value: str | None) -> tuple[Cluster, list[Topology]]:
    """The cluster (``load_cluster``) and ``--topology`` for commands about the topologies
    themselves: the one named (or given as a file), else every topology of the cluster."""
    cluster, _ = load_cluster(source)
    choice = topology_option(cluster, value)
    name = choice.requested or choice.default
    if name is not None:
        try:
            return choice.cluster, [choice.cluster.topology(name)]
        except NotFoundError as exc:
            raise SpecError([Problem("--topology", f"topology {name!r} not found", exc.hint)]) from None
    if not choice.cluster.topologies:
        raise SpecError(
            [
                Problem(
                    source.field,
                    "the cluster has no Topology objects",
                    "add one, or give a Topology file: --topology FILE",
                )
            ]
        )
    return choice.cluster, list(choice.cluster.topologies)


def read_pool(path: str) -> osmo.Pool:
    """An OSMO pool file: the pool with its backend inline, or ``{pool, backend}``."""
    from toposched.frontends import osmo  # with pydantic, only for commands given a pool

    documents = read_documents(path, what="pool")
    if len(documents) != 1:
        raise TopologySpecError(
            [Problem(path, f"expected one pool document, found {len(documents)}", "write one pool")]
        )
    return osmo.parse_pool(documents[0])


def pool_option(value: str | None) -> dict[str, PoolEntry]:
    """``--pool FILE``: the OSMO pool workflows are compiled for."""
    if value is None:
        return {}
    pool = read_pool(value)
    return {pool.name: PoolEntry(pool)}
