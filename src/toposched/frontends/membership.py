"""Gang membership: how a running pod names its gang, and which objects complete that gang. The
controller groups the gated pods it watches with these rules; each front end that has pods of its
own registers its rules beside its compile entry in the registry, so the controller never asks
which front end a pod belongs to.

A ``Membership`` is read against one pass's ``GroupCaches`` (the grouping objects the
controller's informers hold, by kind), which gives the pass's ``PodGrouping``: it names each
pod's gang (``GangKey``) and, once every pod of a gang is known, says what completes it
(``Completion``): the objects compiled before the pods, and why the gang is not whole yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

Object = Mapping[str, Any]


@dataclass(frozen=True, slots=True, order=True)
class GangKey:
    """One gang: the rules its pods follow (a ``Membership``'s key name), their namespace and the
    gang's name. ``str`` is what the controller records on each pod (``kueue:ns/name``)."""

    membership: str
    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.membership}:{self.namespace}/{self.name}"


@dataclass(frozen=True, slots=True)
class GroupCaches:
    """The objects that group pods, as the controller caches them: by ``group/Kind`` (``kind_of``),
    each keyed ``namespace/name``."""

    by_kind: Mapping[str, Mapping[str, Object]] = field(default_factory=lambda: MappingProxyType({}))

    def of(self, kind: str) -> Mapping[str, Object]:
        """Every cached object of ``kind`` (none when the kind is not watched)."""
        return self.by_kind.get(kind, {})

    def get(self, kind: str, namespace: str, name: str) -> Object | None:
        return self.of(kind).get(f"{namespace}/{name}")


def kind_of(group: str, kind: str) -> str:
    """The ``GroupCaches`` name of a kind: its API group and kind (``scheduling.k8s.io/PodGroup``),
    whatever version is served."""
    return f"{group}/{kind}"


@dataclass(frozen=True, slots=True)
class Completion:
    """What completes one gang: the objects that group its pods, in the order its front end reads
    them (compiled before the pods), the other objects read to decide (their versions count too),
    and why the gang is not whole yet (None: it is)."""

    heads: tuple[Object, ...] = ()
    read: tuple[Object, ...] = ()
    missing: str | None = None


class PodGrouping(Protocol):
    """One front end's membership rules over one pass's caches."""

    def gang_of(self, pod: Object) -> GangKey | None:
        """The gang ``pod`` names under these rules; None when it names none of theirs."""
        ...

    def complete(self, key: GangKey, pods: Sequence[Object]) -> Completion:
        """What completes the gang ``key`` whose live pods are ``pods`` (sorted by name)."""
        ...


class Membership(Protocol):
    """A front end's membership rules. ``frontend``: the front end that compiles the gangs they
    form (a front-end name for ``Registry.compile``'s hint); ``keys``: the ``GangKey.membership``
    names the rules give."""

    @property
    def frontend(self) -> str: ...

    @property
    def keys(self) -> frozenset[str]: ...

    def over(self, caches: GroupCaches) -> PodGrouping:
        """The rules read against one pass's caches."""
        ...


def namespace_of(obj: Object) -> str:
    return str((obj.get("metadata") or {}).get("namespace") or "default")


def name_of(obj: Object) -> str:
    return str((obj.get("metadata") or {}).get("name", ""))


def metadata_of(obj: Object, part: str) -> Mapping[str, Any]:
    """``metadata.labels`` or ``metadata.annotations`` (empty when absent or not a mapping)."""
    value = (obj.get("metadata") or {}).get(part)
    return value if isinstance(value, Mapping) else {}
