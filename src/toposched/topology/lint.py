"""Topology lint: what is wrong or suspicious in how a cluster's nodes form one topology, and
what each level holds.

Errors make the topology smaller or ambiguous than the admin believes (the label checks of
``model.labels``). Warnings are legal but usually a mistake: a level value reused under two
parents (two domains that read as one), domains none of whose nodes can take pods, domains whose
nodes differ in accelerator shape (rack-sized slices then mean different things per rack).

The lint walks the labelled nodes directly, not the topology tree: the tree holds schedulable
nodes only, and empty domains are exactly the ones it leaves out.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from toposched.model import HOSTNAME, Node, Problem, RunningPod, Topology
from toposched.model.labels import label_problems
from toposched.topology.occupancy import DomainUsage, Path, members_of, occupancy, shown_resources


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Finding:
    severity: Severity
    problem: Problem


@dataclass(frozen=True, slots=True)
class LevelStats:
    """One level: its domains, their node counts, and how much of ``resource`` they hold."""

    key: str
    domains: int
    nodes_min: int
    nodes_median: float
    nodes_max: int
    resource: str
    capacity_min: int
    capacity_max: int
    free_total: int
    free_max: int  # the most one domain has free: the largest gang of that level that fits


@dataclass(frozen=True, slots=True)
class LintReport:
    topology: Topology
    members: int
    outside: int
    findings: tuple[Finding, ...]
    levels: tuple[LevelStats, ...]

    @property
    def errors(self) -> list[Problem]:
        return [f.problem for f in self.findings if f.severity is Severity.ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [f.problem for f in self.findings if f.severity is Severity.WARNING]


def lint(topology: Topology, nodes: Sequence[Node], pods: Iterable[RunningPod] = ()) -> LintReport:
    """Lint ``topology`` over ``nodes``; ``pods`` (running) give the free capacity per level."""
    members = members_of(topology, nodes)
    findings = [Finding(Severity.ERROR, p) for p in label_problems(topology, nodes)]
    findings += [Finding(Severity.WARNING, p) for p in _reused_values(topology, members)]
    findings += [Finding(Severity.WARNING, p) for p in _empty_domains(topology, members)]
    findings += [Finding(Severity.WARNING, p) for p in _mixed_shapes(topology, members)]
    resource = shown_resources(members)[0]
    usage = occupancy(topology, members, pods, resource)
    levels = tuple(
        _level_stats(key, resource, domains) for key, domains in zip(topology.levels, usage, strict=True)
    )
    return LintReport(topology, len(members), len(nodes) - len(members), tuple(findings), levels)


def _path(node: Node, topology: Topology, level: int) -> Path:
    return tuple(node.labels[key] for key in topology.levels[: level + 1])


def _domain_label(topology: Topology, path: Path) -> str:
    return f"{topology.levels[len(path) - 1]}={'/'.join(path)}"


def _reused_values(topology: Topology, members: Sequence[Node]) -> list[Problem]:
    """A non-hostname level value under two parents: two domains that carry one name."""
    problems: list[Problem] = []
    for level in range(1, len(topology.levels)):
        key = topology.levels[level]
        if key == HOSTNAME:
            continue  # duplicate hostnames are an error of their own
        parents: dict[str, set[Path]] = defaultdict(set)
        for node in members:
            parents[node.labels[key]].add(_path(node, topology, level - 1))
        for value, under in sorted(parents.items()):
            if len(under) > 1:
                where = ", ".join("/".join(p) for p in sorted(under)[:3]) + (
                    ", ..." if len(under) > 3 else ""
                )
                problems.append(
                    Problem(
                        f"nodes.metadata.labels[{key}]",
                        f"value {value!r} appears under {len(under)} different {topology.levels[level - 1]} "
                        f"domains ({where}); they are {len(under)} separate domains",
                        "give each domain a unique value if they are meant to differ; if they are one "
                        "domain, fix the parent labels",
                    )
                )
    return problems


def _empty_domains(topology: Topology, members: Sequence[Node]) -> list[Problem]:
    """Domains whose nodes are all NotReady or cordoned (they take no pods), each reported at
    the highest level where it is empty."""
    problems: list[Problem] = []
    empty_above: set[Path] = set()
    for level, key in enumerate(topology.levels):
        if key == HOSTNAME:
            break
        by_domain: dict[Path, list[Node]] = defaultdict(list)
        for node in members:
            by_domain[_path(node, topology, level)].append(node)
        empty = {path for path, domain in by_domain.items() if not any(n.schedulable for n in domain)}
        for path in sorted(empty):
            if path[:-1] in empty_above:
                continue
            reasons = Counter("NotReady" if not n.ready else "cordoned" for n in by_domain[path])
            why = ", ".join(f"{count} {reason}" for reason, count in sorted(reasons.items()))
            problems.append(
                Problem(
                    f"domains[{_domain_label(topology, path)}]",
                    f"none of its {len(by_domain[path])} node(s) can take pods ({why})",
                    "uncordon or repair the nodes, or expect no workload to land there",
                )
            )
        empty_above = empty
    return problems


def _mixed_shapes(topology: Topology, members: Sequence[Node]) -> list[Problem]:
    """Lowest non-hostname domains whose nodes offer different accelerator amounts."""
    leaf = len(topology.levels) - 1
    level = leaf - 1 if topology.levels[leaf] == HOSTNAME else leaf
    if level < 0:
        return []
    resources = [r for r in shown_resources(members) if "/" in r]
    if not resources:
        return []
    shapes: dict[Path, Counter[tuple[int, ...]]] = defaultdict(Counter)
    for node in members:
        shapes[_path(node, topology, level)][tuple(node.allocatable[r] for r in resources)] += 1
    problems: list[Problem] = []
    for path, counter in sorted(shapes.items()):
        if len(counter) > 1:
            parts = "; ".join(
                f"{count} x " + ", ".join(f"{r}={amount}" for r, amount in zip(resources, shape, strict=True))
                for shape, count in counter.most_common()
            )
            problems.append(
                Problem(
                    f"domains[{_domain_label(topology, path)}]",
                    f"nodes differ in shape: {parts}",
                    "slices and rack-sized gangs assume alike nodes; group alike nodes per domain",
                )
            )
    return problems


def _level_stats(key: str, resource: str, domains: Mapping[Path, DomainUsage]) -> LevelStats:
    counts = [d.nodes for d in domains.values()] or [0]
    capacities = [d.capacity for d in domains.values()] or [0]
    return LevelStats(
        key=key,
        domains=len(domains),
        nodes_min=min(counts),
        nodes_median=statistics.median(counts),
        nodes_max=max(counts),
        resource=resource,
        capacity_min=min(capacities),
        capacity_max=max(capacities),
        free_total=sum(d.free for d in domains.values()),
        free_max=max((d.free for d in domains.values()), default=0),
    )
