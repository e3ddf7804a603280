"""Read the inputs of ``toposched place`` and place the job: the path both ``place`` and ``demo`` use.

Every problem with the inputs (unreadable file, bad YAML, unknown topology or policy) is raised as
a ``ToposchedError``; the commands turn those into exit code 2.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from toposched.engine import place
from toposched.frontends.cluster import check_labels, load_cluster_report, load_topology
from toposched.frontends.kueue import load_workload
from toposched.model import (
    Cluster,
    Gang,
    NotFoundError,
    Placement,
    Policy,
    Problem,
    Search,
    SpecError,
    Topology,
    Unschedulable,
)

POLICIES = tuple(p.value for p in Policy)
SEARCHES = tuple(s.value for s in Search)


@dataclass(frozen=True, slots=True)
class Outcome:
    """One placement attempt with everything needed to show it."""

    cluster: Cluster
    topology: Topology
    gang: Gang
    result: Placement | Unschedulable
    warnings: tuple[str, ...] = ()  # label problems of a topology given as a file

    @property
    def placed(self) -> bool:
        return isinstance(self.result, Placement)


def read_text(path: str, *, what: str) -> str:
    """A file's text (``-`` = standard input); a missing or unreadable file is a ``SpecError``."""
    if path == "-":
        return sys.stdin.read()
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        reason, hint = "file not found", f"check the path of the {what}"
    except IsADirectoryError:
        reason, hint = "is a directory", f"give the path of the {what} file"
    except PermissionError:
        reason, hint = "permission denied", "make the file readable"
    except UnicodeDecodeError:
        reason, hint = "is not UTF-8 text", f"give a YAML {what} file"
    except OSError as exc:
        reason, hint = f"cannot be read ({exc.strerror or exc})", f"check the path of the {what}"
    raise SpecError([Problem(path, reason, hint)])


def parse_policy(value: str | None) -> Policy | None:
    """``--policy`` as a ``Policy``; None leaves the choice to the job's front end and the engine."""
    if value is None:
        return None
    try:
        return Policy(value.strip().lower())
    except ValueError:
        raise SpecError(
            [Problem("--policy", f"unknown policy {value!r}", f"use one of {', '.join(POLICIES)}")]
        ) from None


def parse_search(value: str) -> Search:
    """``--search`` as a ``Search`` mode."""
    try:
        return Search(value.strip().lower())
    except ValueError:
        raise SpecError(
            [Problem("--search", f"unknown search mode {value!r}", f"use one of {', '.join(SEARCHES)}")]
        ) from None


def read_texts(files: dict[str, str | None], problems: list[Problem]) -> dict[str, str]:
    """The text of every file (what → path), adding one problem per file that cannot be read."""
    texts: dict[str, str] = {}
    for what, path in files.items():
        if path is None:
            continue
        try:
            texts[what] = read_text(path, what=what)
        except SpecError as exc:
            problems.extend(exc.problems)
    return texts


def parse_cluster(text: str, *, source: str) -> tuple[Cluster, list[str]]:
    """A cluster file (a v1 List or a multi-document stream of Nodes, Pods and Topologies) and the
    loader's warnings (skipped objects, nodes missing some level labels)."""
    return load_cluster_report(text, source=source)


def choose_topology(cluster: Cluster, value: str | None) -> tuple[Cluster, Topology, bool]:
    """Resolve ``--topology``: an existing file is loaded and added to the cluster, anything else
    names a Topology of the cluster; without it the cluster's only one. The flag says "from a file"."""
    if value is not None and Path(value).is_file():
        topology = load_topology(read_text(value, what="topology"), source=value)
        return cluster.with_topology(topology), topology, True
    if value is not None and (Path(value).suffix in (".yaml", ".yml", ".json") or "/" in value):
        raise SpecError(
            [Problem("--topology", f"{value}: file not found", "give a Topology file or a Topology name")]
        )
    try:
        return cluster, cluster.topology(value), False
    except NotFoundError as exc:
        if value is not None:
            problem = Problem("--topology", f"{exc.kind} {exc.name!r} not found", exc.hint)
        elif cluster.topologies:
            names = ", ".join(t.name for t in cluster.topologies)
            problem = Problem(
                "--topology", f"is needed: the cluster defines {names}", "name one with --topology"
            )
        else:
            problem = Problem(
                "--topology",
                "is needed: the cluster file has no Topology",
                "add a Topology object to the cluster file or pass --topology FILE",
            )
        raise SpecError([problem]) from None


def place_job(
    job_text: str,
    cluster: Cluster,
    *,
    topology: str | None = None,
    policy: Policy | None = None,
    source: str = "job",
    search: Search = Search.FAITHFUL,
) -> Outcome:
    """Compile the Kueue job text against the chosen topology and place it on the cluster."""
    cluster, chosen, from_file = choose_topology(cluster, topology)
    gang = load_workload(job_text, chosen, source=source)
    result = place(gang, cluster, topology=chosen, policy=policy, search=search)
    warnings = tuple(str(p) for p in check_labels(cluster, chosen)) if from_file else ()
    return Outcome(cluster, chosen, gang, result, warnings)
