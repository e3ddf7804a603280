"""A Go API type as the API server decodes a JSON object into it: its fields (JSON name, Go
type, declarative validation markers) and, for a string type, its enum values. The types
themselves are generated from the k8s.io/api module (``toposched.wire.scheduling_types``)."""

from __future__ import annotations

from dataclasses import dataclass

INTEGERS = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}
SCALARS = frozenset(["string", "bool", *INTEGERS])


@dataclass(frozen=True, slots=True)
class GoField:
    """One field: its JSON name, its Go type (``*int32``, ``[]TopologyConstraint``,
    ``metav1.ObjectMeta``) and its markers (``+k8s:required``, ``+k8s:maxItems=8``, ...)."""

    json: str
    go: str
    markers: tuple[str, ...] = ()

    @property
    def pointer(self) -> bool:
        return self.go.startswith("*")

    @property
    def slice(self) -> bool:
        return self.go.startswith("[]")

    @property
    def external(self) -> bool:
        """A type of a package not described here (``metav1.ObjectMeta``): any value decodes."""
        return "." in self.base and "/" not in self.base

    @property
    def base(self) -> str:
        """The element type: ``TopologyConstraint`` of ``[]TopologyConstraint``, ``int32`` of ``*int32``."""
        return self.go.lstrip("*[]")

    def has(self, marker: str) -> bool:
        return marker in self.markers

    def value(self, prefix: str) -> str | None:
        """The value of the first marker ``prefix=value`` (``+k8s:maxItems`` -> ``8``)."""
        for marker in self.markers:
            if marker.startswith(prefix + "="):
                return marker[len(prefix) + 1 :]
        return None


@dataclass(frozen=True, slots=True)
class GoType:
    """A struct (``fields``) or a string type (``string``; ``enum`` values when it is an enum)."""

    fields: tuple[GoField, ...] = ()
    markers: tuple[str, ...] = ()
    string: bool = False
    enum: tuple[str, ...] = ()

    @property
    def union(self) -> bool:
        return "+union" in self.markers

    def field(self, name: str) -> GoField | None:
        return next((f for f in self.fields if f.json == name), None)
