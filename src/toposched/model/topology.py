"""Topology definitions: an ordered list of node-label keys, coarsest level first. A level is a
Kubernetes label key (``is_label_key``: an optional DNS-subdomain prefix of at most 253 bytes,
'/', a name of at most 63), the rule the API server holds node labels to."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from toposched.model.errors import Problem, SpecError, TopologySpecError
from toposched.model.k8s_content import is_label_key
from toposched.model.node import NODE_LEVEL

HOSTNAME = "kubernetes.io/hostname"  # model.node spells it too (it cannot import this module)
MAX_LEVELS = 16  # the Topology CRDs' maxItems: Kueue v0.19 (v1beta1, v1beta2) and KAI (v1alpha1)

# An object name (DNS-1123 subdomain); toposched.model.names checks names of every other kind.
MAX_NAME = 253
OBJECT_NAME = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


@dataclass(frozen=True, slots=True)
class Topology:
    """A named hierarchy of node labels. ``levels[0]`` is the coarsest (zone), the last the finest.

    ``aliases`` maps a short name (``rack``) to a level's label key, as KAI level aliases and
    Grove domain names do.

    ``every_node``: kube-scheduler's view, for the topologies of upstream PodGroup constraints:
    every node with the labels belongs, NotReady and cordoned ones too (they count in a
    placement's fullness and its candidates), and only taints keep pods off them: such a node
    counts as tainted ``node.kubernetes.io/not-ready:NoSchedule`` or
    ``node.kubernetes.io/unschedulable:NoSchedule``, as kube-controller-manager taints it.
    Otherwise only Ready, uncordoned nodes belong.
    """

    name: str
    levels: tuple[str, ...]
    aliases: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    every_node: bool = False

    @classmethod
    def create(
        cls,
        name: str,
        levels: Sequence[str],
        aliases: Mapping[str, str] | None = None,
        *,
        path: str = "spec.levels",
        every_node: bool = False,
    ) -> Topology:
        """Validate and build: 1..16 unique label keys, hostname only as the last level."""
        problems = validate_levels(levels, path=path)
        alias_map = dict(aliases or {})
        for alias, key in alias_map.items():
            if key not in levels:
                problems.append(
                    Problem(f"{path}", f"alias {alias!r} points at {key!r}, which is not a level", "")
                )
        if not name:
            problems.append(Problem("metadata.name", "topology name is empty", "give the topology a name"))
        elif len(name) > MAX_NAME or not OBJECT_NAME.fullmatch(name):
            problems.append(
                Problem(
                    "metadata.name",
                    f"{name[:80]!r} is not a valid topology name",
                    "use a DNS-1123 name such as racks",
                )
            )
        if problems:
            raise TopologySpecError(problems)
        return cls(name, tuple(levels), MappingProxyType(alias_map), every_node)

    @property
    def lowest(self) -> str:
        return self.levels[-1]

    @property
    def hostname_is_lowest(self) -> bool:
        """Whether the lowest level is the hostname (or ``NODE_LEVEL``, valued by it)."""
        return self.levels[-1] in (HOSTNAME, NODE_LEVEL)

    def resolve(self, level: str) -> str | None:
        """A level given by label key or alias → its label key; None when unknown."""
        if level in self.levels:
            return level
        return self.aliases.get(level)

    def short_name(self, key: str) -> str:
        """A short name for a level: its alias, else the label key without prefix (``rack`` for
        ``cloud.provider.com/topology-rack``); ``node`` for the hostname level."""
        for alias, target in sorted(self.aliases.items()):
            if target == key:
                return alias
        if key == HOSTNAME:
            return "node"
        short = key.rsplit("/", 1)[-1]
        return short.removeprefix("topology-") or short

    def level_named(self, value: str, *, path: str) -> str:
        """The label key of a level given by label key, alias or short name (``rack``);
        ``SpecError`` at ``path`` listing the levels when there is none."""
        found = self.resolve(value) or next((k for k in self.levels if self.short_name(k) == value), None)
        if found is None:
            known = ", ".join(f"{self.short_name(k)} ({k})" for k in self.levels)
            raise SpecError(
                [Problem(path, f"topology {self.name!r} has no level {value!r}", f"use one of {known}")]
            )
        return found

    def index(self, level: str) -> int:
        """Depth of a level (0 = coarsest). Raises KeyError for an unknown level."""
        resolved = self.resolve(level)
        if resolved is None:
            raise KeyError(level)
        return self.levels.index(resolved)


def validate_levels(levels: Sequence[str], *, path: str = "spec.levels") -> list[Problem]:
    """The level list's rules, each where the API server reports it for a Topology object: the
    count and the list-wide rules (unique labels, hostname last: the CRDs' CEL rules) at the list,
    a label that is no label key at its item."""
    problems: list[Problem] = []
    if not 1 <= len(levels) <= MAX_LEVELS:
        problems.append(
            Problem(
                path,
                f"a topology has 1 to {MAX_LEVELS} levels, got {len(levels)}",
                "list the node labels coarsest first",
            )
        )
    seen: set[str] = set()
    for i, level in enumerate(levels):
        if not isinstance(level, str) or not is_label_key(level):
            problems.append(
                Problem(
                    f"{path}[{i}]",
                    f"{level!r} is not a valid node label key",
                    "use e.g. cloud.provider.com/topology-rack",
                )
            )
            continue
        if level in seen:
            problems.append(
                Problem(path, f"nodeLabel must be unique: {level!r} is listed twice", "list every level once")
            )
        seen.add(level)
    labels = [level for level in levels if isinstance(level, str)]
    if HOSTNAME in labels and labels[-1] != HOSTNAME:
        problems.append(
            Problem(
                path,
                f"the {HOSTNAME} label can only be used at the lowest level of topology",
                "move it to the end of the list (the finest level)",
            )
        )
    return problems
