"""What the engine returns: a ``Placement``, or an ``Unschedulable`` value with structured reasons."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Generic, NamedTuple, TypeVar, overload

from toposched.model.ir import Search

T = TypeVar("T")


class LazyRecords(Sequence[T], Generic[T]):
    """A tuple of records built on first use, ``size`` long.

    A placement holds one record per pod and one per domain; most callers (a scheduling cycle,
    the emitters of one PodSet) never read all of them, so the engine hands over how to build them
    instead. Reads, equality and hashing behave as for the built tuple."""

    __slots__ = ("_build", "_items", "_size")

    def __init__(self, build: Callable[[], Iterable[T]], size: int) -> None:
        self._build: Callable[[], Iterable[T]] | None = build
        self._items: tuple[T, ...] | None = None
        self._size = size

    def built(self) -> tuple[T, ...]:
        """The records; built on the first call, which also drops the builder. Two threads
        reading at once may both build them (the same records): no lock is needed."""
        items = self._items
        if items is None:
            build = self._build
            items = self._items if build is None else tuple(build())  # None: another thread built them
            assert items is not None
            self._items = items
            self._build = None
        return items

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...

    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        return self.built()[index]

    def __iter__(self) -> Iterator[T]:
        return iter(self.built())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyRecords):
            return self.built() == other.built()
        if isinstance(other, tuple):
            return self.built() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.built())

    def __repr__(self) -> str:
        return repr(self.built())


class DomainCount(NamedTuple):
    """``count`` pods in the domain whose label values (one per assignment level) are ``values``.

    A named tuple, like ``PodPlacement``: an assignment holds one per node or leaf domain."""

    values: tuple[str, ...]
    count: int  # type: ignore[assignment]  # pods in the domain; hides tuple.count, never used


@dataclass(frozen=True, slots=True)
class TopologyAssignment:
    """Pods per lowest-level domain, as Kueue stores it.

    ``levels`` is ``(kubernetes.io/hostname,)`` when hostname is the lowest topology level,
    otherwise every level with full value paths. Domains are sorted by their full level-value path
    (as Kueue does), even when only the hostname is written.
    """

    levels: tuple[str, ...]
    domains: Sequence[DomainCount]  # a tuple, or ``LazyRecords`` from the engine

    @property
    def count(self) -> int:
        return sum(d.count for d in self.domains)


class PodPlacement(NamedTuple):
    """Where one pod goes. ``node`` is None only when the lowest level is not a node and no single
    node of the leaf domain can be named.

    A named tuple rather than a frozen dataclass: a placement holds one per pod, and building a
    tuple costs a third of a dataclass (``PodPlacement._make`` builds one from any iterable)."""

    pod: str
    group: str
    index: int  # type: ignore[assignment]  # the pod's index; hides tuple.index, which is never used
    node: str | None
    domain: tuple[str, ...]


def _empty_map() -> Mapping[str, int]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class Placement:
    gang: str
    topology: str
    policy: str  # the name of the policy it was placed under
    pods: Sequence[PodPlacement]  # a tuple, or ``LazyRecords`` from the engine
    assignments: Mapping[str, TopologyAssignment]  # keyed by leaf group (Kueue PodSet) name
    placed: bool = True
    found_by: Search = Search.FAITHFUL  # COMPLETE: the faithful solver refused, the exact search placed it
    note: str = ""  # why the complete search was needed ("faithful placement failed: ...")


@dataclass(frozen=True, slots=True)
class LayerFit:
    """How many slices of one slice layer fit in the best domain, out of how many are needed."""

    level: str
    fit: int
    needed: int


@dataclass(frozen=True, slots=True)
class Unschedulable:
    """Why a gang cannot be placed: the constraint, level, best domain, fit vs needed, exclusions."""

    gang: str
    topology: str
    policy: str  # the name of the policy it was refused under
    message: str
    group: str | None = None
    level: str | None = None
    best_domain: tuple[str, ...] | None = None
    fit: int | None = None
    needed: int | None = None
    unit: str = "pod"  # "pod" or "slice"
    total_nodes: int | None = None
    excluded: Mapping[str, int] = field(default_factory=_empty_map)  # 'resource "cpu"' -> 3, ...
    shortfall: Mapping[str, int] = field(default_factory=_empty_map)  # resource -> amount missing
    layers: tuple[LayerFit, ...] = ()
    placed: bool = False
    note: str = ""  # what the complete search found after the faithful refusal (empty: not run)
    budget_exhausted: bool = False  # the complete search stopped at its budget before finishing
    searching: bool = False  # the complete search paused at its share of a round: it goes on later

    def facts(self) -> list[str]:
        """Every structured value as text, for matching and for short displays."""
        out = [self.message, self.gang, self.topology]
        for value in (self.group, self.level, self.fit, self.needed, self.total_nodes):
            if value is not None:
                out.append(str(value))
        out.extend(self.best_domain or ())
        for key, count in self.excluded.items():
            out += [key, str(count)]
        for key, amount in self.shortfall.items():
            out += [key, str(amount)]
        for layer in self.layers:
            out += [layer.level, str(layer.fit), str(layer.needed)]
        return out


Result = Placement | Unschedulable
