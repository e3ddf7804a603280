"""Scheduling queues: per-resource quotas, a parent (queues form a tree), a fair-share weight and
a preemption setting, and which queue a gang goes to.

One model for both upstreams: a queue is a Kueue ClusterQueue or a KAI Queue; a queue with
children is a Kueue cohort or a KAI parent queue. ``guaranteed`` is Kueue's nominalQuota and
KAI's deserved quota; ``limit`` is the most the queue may use, borrowing included (Kueue's
nominalQuota + borrowingLimit, KAI's limit); ``weight`` is KAI's over-quota weight and Kueue's
fairSharing.weight. A queue lists the Kueue LocalQueues (``namespace/name``) that feed it, as a
ClusterQueue is named by its LocalQueues.

The spec of one queue, as the API, the CLI and the store read and write it::

    name: team-a
    parent: research                  # optional
    guaranteed: {nvidia.com/gpu: 64, cpu: "512", memory: 4Ti}
    limit: {nvidia.com/gpu: 128}      # per resource; a resource left out has no limit
    weight: 1                         # > 0
    preemption: reclaimBorrowed       # never | lowerPriority | reclaimBorrowed
    defaultRunSeconds: 3600           # optional
    localQueues: [team-a/default]
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from toposched.model.errors import Problem, SpecError
from toposched.model.ir import Gang, QueueKind
from toposched.model.k8s_content import is_label_key
from toposched.model.names import MAX_LABEL, name_problems, namespace_problems
from toposched.model.quantity import format_quantity, parse_quantity
from toposched.model.resources import Resources

DEFAULT_QUEUE = "default"
MAX_QUEUE_NAME = 63  # KAI queue names are label values
MAX_QUEUES = 10_000
MAX_DEPTH = 8  # queues from a top-level one down to a leaf
MAX_RESOURCES = 32  # resource names per quota
MAX_LOCAL_QUEUES = 1_000  # LocalQueues one queue lists
MAX_WEIGHT = 1_000_000.0
MAX_RUN_SECONDS = 366 * 24 * 3600.0
_FIELDS = frozenset(
    {"name", "parent", "guaranteed", "limit", "weight", "preemption", "defaultRunSeconds", "localQueues"}
)


class QueuePreemption(StrEnum):
    """What a queue's pending gangs may evict (read by the preemption rules)."""

    NEVER = "never"
    LOWER_PRIORITY = "lowerPriority"  # lower-priority gangs of the same queue
    RECLAIM_BORROWED = "reclaimBorrowed"  # gangs of other queues using borrowed quota, and lowerPriority


@dataclass(frozen=True, slots=True)
class SchedulingQueue:
    """One queue. ``limit`` keeps only the resources it bounds (a 0 there means none may be
    used); a resource missing from ``guaranteed`` is guaranteed 0. Build it with ``parse`` to
    have it checked."""

    name: str
    parent: str | None = None
    guaranteed: Resources = field(default_factory=Resources)
    limit: tuple[tuple[str, int], ...] = ()  # sorted by resource name
    weight: float = 1.0
    preemption: QueuePreemption = QueuePreemption.RECLAIM_BORROWED
    default_run_seconds: float | None = None
    local_queues: tuple[str, ...] = ()  # "namespace/name" of the Kueue LocalQueues that feed it

    def limit_of(self, resource: str) -> int | None:
        """The most of ``resource`` the queue may use; None: no limit."""
        return dict(self.limit).get(resource)

    @property
    def resources(self) -> frozenset[str]:
        """The resources its quotas name."""
        return frozenset(self.guaranteed) | {name for name, _ in self.limit}

    @classmethod
    def parse(cls, raw: object, path: str = "queue") -> SchedulingQueue:
        """A queue from its spec (see the module docstring); a SpecError lists every problem,
        each with its field path and how to fix it."""
        if not isinstance(raw, Mapping):
            raise SpecError(
                [
                    Problem(
                        path,
                        f"must be a mapping, got {type(raw).__name__}",
                        "see `toposched queue put --help`",
                    )
                ]
            )
        problems = [
            Problem(f"{path}.{key}", "is not a queue field", f"use one of {', '.join(sorted(_FIELDS))}")
            for key in itertools.islice(raw, len(_FIELDS) + 1)  # bounded: a huge mapping is not walked
            if key not in _FIELDS
        ]
        name = raw.get("name")
        problems += name_problems(name, f"{path}.name", max_length=MAX_QUEUE_NAME)
        parent = raw.get("parent")
        if parent is not None:
            problems += name_problems(parent, f"{path}.parent", max_length=MAX_QUEUE_NAME)
            if parent == name:
                problems.append(
                    Problem(f"{path}.parent", "names the queue itself", "name another queue or none")
                )
        guaranteed, more = _amounts(raw.get("guaranteed"), f"{path}.guaranteed")
        problems += more
        limit, more = _amounts(raw.get("limit"), f"{path}.limit")
        problems += more
        for resource, most in limit.items():
            if most < guaranteed.get(resource, 0):
                problems.append(
                    Problem(
                        f"{path}.limit.{resource}",
                        f"is below guaranteed.{resource}",
                        "a limit includes the guaranteed quota: raise it or lower the guarantee",
                    )
                )
        weight = _number(raw.get("weight", 1), f"{path}.weight", 0.0, MAX_WEIGHT, problems, exclusive=True)
        run = raw.get("defaultRunSeconds")
        if run is not None:
            run = _number(run, f"{path}.defaultRunSeconds", 0.0, MAX_RUN_SECONDS, problems, exclusive=True)
        preemption = _preemption(
            raw.get("preemption", QueuePreemption.RECLAIM_BORROWED.value), path, problems
        )
        local = _local_queues(raw.get("localQueues", []), f"{path}.localQueues", problems)
        if problems:
            raise SpecError(problems)
        return cls(
            name=str(name),
            parent=None if parent is None else str(parent),
            guaranteed=Resources(guaranteed),
            limit=tuple(sorted(limit.items())),
            weight=weight,
            preemption=preemption,
            default_run_seconds=run,
            local_queues=local,
        )

    def to_json(self) -> dict[str, Any]:
        """The spec ``parse`` reads back (canonical units: cpu in millicores as ``"500m"``)."""
        return {
            "name": self.name,
            "parent": self.parent,
            "guaranteed": {r: format_quantity(a, r) for r, a in sorted(self.guaranteed.items())},
            "limit": {r: format_quantity(a, r) for r, a in self.limit},
            "weight": self.weight,
            "preemption": self.preemption.value,
            "defaultRunSeconds": self.default_run_seconds,
            "localQueues": list(self.local_queues),
        }


@dataclass(frozen=True, slots=True)
class QueueTree:
    """Every queue, checked together: parents exist, no cycles, at most ``MAX_DEPTH`` deep, a
    LocalQueue feeds one queue. ``default`` is always there (unlimited unless configured)."""

    queues: Mapping[str, SchedulingQueue]
    children: Mapping[str, tuple[str, ...]]
    by_local_queue: Mapping[str, str]

    @classmethod
    def of(cls, queues: Iterable[SchedulingQueue]) -> QueueTree:
        """The tree of ``queues`` (plus ``default`` when not among them); SpecError naming each
        queue whose parent is unknown, which is in a cycle or too deep, or whose LocalQueue
        another queue lists already."""
        by_name: dict[str, SchedulingQueue] = {}
        for queue in queues:
            by_name[queue.name] = queue
            if len(by_name) > MAX_QUEUES:
                raise SpecError([Problem("queues", f"more than {MAX_QUEUES} queues", "merge queues")])
        by_name.setdefault(DEFAULT_QUEUE, SchedulingQueue(DEFAULT_QUEUE))
        return cls._checked(by_name)

    @classmethod
    def _checked(cls, by_name: dict[str, SchedulingQueue]) -> QueueTree:
        problems: list[Problem] = []
        children: dict[str, list[str]] = {}
        for queue in by_name.values():
            if queue.parent is None:
                continue
            if queue.parent not in by_name:
                problems.append(
                    Problem(
                        f"queues.{queue.name}.parent",
                        f"queue {queue.parent!r} does not exist",
                        "create it first",
                    )
                )
            else:
                children.setdefault(queue.parent, []).append(queue.name)
        for queue in by_name.values():
            depth, seen, current = 1, {queue.name}, queue.parent
            while current is not None and current in by_name:
                depth += 1
                if current in seen or depth > MAX_DEPTH:
                    what = (
                        "is in a cycle of parents"
                        if current in seen
                        else f"is more than {MAX_DEPTH} levels deep"
                    )
                    problems.append(Problem(f"queues.{queue.name}.parent", what, "choose another parent"))
                    break
                seen.add(current)
                current = by_name[current].parent
        local: dict[str, str] = {}
        for queue in sorted(by_name.values(), key=lambda q: q.name):
            for ref in queue.local_queues:
                if ref in local:
                    problems.append(
                        Problem(
                            f"queues.{queue.name}.localQueues",
                            f"LocalQueue {ref} feeds queue {local[ref]!r} already",
                            "list each LocalQueue in one queue",
                        )
                    )
                local.setdefault(ref, queue.name)
        if problems:
            raise SpecError(problems)
        kids = {name: tuple(sorted(names)) for name, names in children.items()}
        return cls(dict(by_name), kids, local)

    def with_queue(self, queue: SchedulingQueue) -> QueueTree:
        """The tree with ``queue`` added or replaced, checked (SpecError: it would break it)."""
        return self._checked({**self.queues, queue.name: queue})

    def without(self, name: str) -> QueueTree:
        """The tree without queue ``name``; SpecError while other queues name it as parent."""
        kept = {n: q for n, q in self.queues.items() if n != name}
        if name == DEFAULT_QUEUE:
            kept[DEFAULT_QUEUE] = SchedulingQueue(DEFAULT_QUEUE)
        return self._checked(kept)

    def queue_of(self, gang: Gang) -> str:
        """The queue a gang goes to: a KAI queue (KAI, OSMO pools, Grove) by its name; a Kueue
        LocalQueue ``namespace/name`` to the queue that lists it, else to the queue of its name;
        no queue, or one not defined, to ``default``."""
        named = gang.queue
        if named is None:
            return DEFAULT_QUEUE
        if named.kind is QueueKind.KUEUE:
            listed = self.by_local_queue.get(f"{gang.namespace}/{named.name}")
            if listed is not None:
                return listed
        return named.name if named.name in self.queues else DEFAULT_QUEUE

    def path(self, name: str) -> list[SchedulingQueue]:
        """The queue ``name`` and its ancestors, nearest first."""
        out = [self.queues[name]]
        while out[-1].parent is not None:
            out.append(self.queues[out[-1].parent])
        return out

    def subtree(self, name: str) -> list[str]:
        """``name`` and every queue below it."""
        out, todo = [], [name]
        while todo:
            current = todo.pop()
            out.append(current)
            todo.extend(self.children.get(current, ()))
        return out

    def top(self, name: str) -> str:
        """The top-level queue above ``name`` (itself when it has no parent)."""
        return self.path(name)[-1].name

    def sorted_queues(self) -> Sequence[SchedulingQueue]:
        return [self.queues[n] for n in sorted(self.queues)]


def _amounts(raw: object, path: str) -> tuple[dict[str, int], list[Problem]]:
    """Resource name → canonical amount; a zero is kept (a limit of 0 means none)."""
    if raw is None:
        return {}, []
    if not isinstance(raw, Mapping):
        return {}, [
            Problem(
                path,
                f"must be a mapping of resource to quantity, got {type(raw).__name__}",
                "write e.g. {nvidia.com/gpu: 8}",
            )
        ]
    if len(raw) > MAX_RESOURCES:
        return {}, [
            Problem(path, f"names {len(raw)} resources; at most {MAX_RESOURCES}", "drop the ones not limited")
        ]
    amounts: dict[str, int] = {}
    problems: list[Problem] = []
    for name, text in raw.items():
        where = f"{path}.{name}"
        if not isinstance(name, str) or not is_label_key(name):
            problems.append(
                Problem(where, "is not a resource name", "write e.g. nvidia.com/gpu, cpu, memory or pods")
            )
            continue
        if not isinstance(text, str | int | float) or isinstance(text, bool):
            problems.append(Problem(where, f"invalid quantity {text!r}", "write e.g. 4, 500m or 16Gi"))
            continue
        try:
            amounts[name] = parse_quantity(text, name, path=where)
            if amounts[name] < 0:
                problems.append(Problem(where, f"negative quantity {text!r}", "quotas are >= 0"))
        except SpecError as exc:
            problems.extend(exc.problems)
    return amounts, problems


def _number(
    raw: object, path: str, low: float, high: float, problems: list[Problem], *, exclusive: bool
) -> float:
    if isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw):
        value = float(raw)
        if (low < value if exclusive else low <= value) and value <= high:
            return value
    problems.append(
        Problem(
            path, f"{raw!r} is not a number above {low:g} and at most {high:g}", "give a number such as 1"
        )
    )
    return 1.0


def _preemption(raw: object, path: str, problems: list[Problem]) -> QueuePreemption:
    known = {p.value: p for p in QueuePreemption}
    if isinstance(raw, str) and raw in known:
        return known[raw]
    choices = " | ".join(known)
    problems.append(Problem(f"{path}.preemption", f"{raw!r} is not a preemption setting", f"use {choices}"))
    return QueuePreemption.NEVER


def _local_queues(raw: object, path: str, problems: list[Problem]) -> tuple[str, ...]:
    if not isinstance(raw, list | tuple):
        problems.append(
            Problem(path, f"must be a list, got {type(raw).__name__}", "write e.g. [team-a/default]")
        )
        return ()
    if len(raw) > MAX_LOCAL_QUEUES:
        problems.append(
            Problem(path, f"lists {len(raw)} LocalQueues; at most {MAX_LOCAL_QUEUES}", "split the queue")
        )
        return ()
    out: list[str] = []
    for i, ref in enumerate(raw):
        where = f"{path}[{i}]"
        namespace, _, name = ref.partition("/") if isinstance(ref, str) else ("", "", "")
        found = namespace_problems(namespace, where) + name_problems(name, where, max_length=MAX_LABEL)
        if not isinstance(ref, str) or "/" not in ref or found:
            problems.append(
                Problem(where, f"{ref!r} is not namespace/name", "write a LocalQueue as namespace/name")
            )
        elif ref not in out:
            out.append(ref)
    return tuple(out)
