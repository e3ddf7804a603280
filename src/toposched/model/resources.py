"""Immutable resource vectors keyed by resource name, in canonical integer units."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from toposched.model.errors import Problem, SpecError
from toposched.model.quantity import PODS, format_quantity, parse_quantity


class Resources(Mapping[str, int]):
    """A frozen ``{resource: amount}`` map. Missing resources are zero; zero entries are dropped."""

    __slots__ = ("_amounts", "_hash")

    def __init__(self, amounts: Mapping[str, int] | None = None) -> None:
        self._amounts: dict[str, int] = {k: v for k, v in (amounts or {}).items() if v}
        self._hash: int | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, object] | None, *, path: str = "resources") -> Resources:
        """Parse ``{"cpu": "500m", "memory": "1Gi"}``; every bad quantity is reported at once."""
        if raw is not None and not isinstance(raw, Mapping):
            problem = Problem(
                path,
                f"must be a mapping of resource name to quantity, got {type(raw).__name__}",
                "write e.g. {cpu: 500m, nvidia.com/gpu: 8}",
            )
            raise SpecError([problem])
        amounts: dict[str, int] = {}
        problems: list[Problem] = []
        for name, text in (raw or {}).items():
            if not isinstance(text, str | int | float) or isinstance(text, bool):
                problems.append(
                    Problem(f"{path}.{name}", f"invalid quantity {text!r}", "write e.g. 4, 500m or 16Gi")
                )
                continue
            try:
                amounts[str(name)] = parse_quantity(text, str(name), path=f"{path}.{name}")
            except SpecError as exc:
                problems.extend(exc.problems)
        if problems:
            raise SpecError(problems)
        return cls(amounts)

    def __getitem__(self, name: str) -> int:
        return self._amounts.get(name, 0)

    def __contains__(self, name: object) -> bool:
        return name in self._amounts

    def __iter__(self) -> Iterator[str]:
        return iter(self._amounts)

    def __len__(self) -> int:
        return len(self._amounts)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._amounts.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Resources):
            return self._amounts == other._amounts
        return NotImplemented

    def __repr__(self) -> str:
        return f"Resources({self._amounts!r})"

    def __add__(self, other: Mapping[str, int]) -> Resources:
        merged = dict(self._amounts)
        for name, amount in other.items():
            merged[name] = merged.get(name, 0) + amount
        return Resources(merged)

    def __sub__(self, other: Mapping[str, int]) -> Resources:
        merged = dict(self._amounts)
        for name, amount in other.items():
            merged[name] = merged.get(name, 0) - amount
        return Resources(merged)

    def scaled(self, factor: int) -> Resources:
        return Resources({k: v * factor for k, v in self._amounts.items()})

    def maximum(self, other: Mapping[str, int]) -> Resources:
        """Per-resource maximum (how init containers combine with app containers)."""
        names = set(self._amounts) | set(other)
        return Resources({n: max(self[n], other.get(n, 0)) for n in names})

    def with_pod_slot(self) -> Resources:
        """The requests of one pod as the scheduler charges them: plus one ``pods`` unit."""
        return self + {PODS: 1}

    def pretty(self) -> dict[str, str]:
        return {name: format_quantity(amount, name) for name, amount in sorted(self._amounts.items())}


EMPTY = Resources()
