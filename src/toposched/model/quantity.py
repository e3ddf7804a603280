"""Kubernetes resource quantities as exact integers.

Canonical units: ``cpu`` in millicores, every other resource in whole units
(bytes for memory, devices for GPUs), rounded up like the API server rounds
fractional quantities. Counts that are not quantities (``count``, ``size``)
never pass through here.
"""

from __future__ import annotations

import re
from decimal import ROUND_CEILING, Decimal, InvalidOperation

from toposched.model.errors import Problem, SpecError

CPU = "cpu"
# The largest canonical amount: stores and the engine keep amounts as 64-bit integers.
MAX_AMOUNT = 2**63 - 1
MEMORY = "memory"
PODS = "pods"

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Decimal("1e-9"),
    "u": Decimal("1e-6"),
    "m": Decimal("1e-3"),
    "": Decimal(1),
    "k": Decimal("1e3"),
    "M": Decimal("1e6"),
    "G": Decimal("1e9"),
    "T": Decimal("1e12"),
    "P": Decimal("1e15"),
    "E": Decimal("1e18"),
}
_PATTERN = re.compile(
    r"^(?P<number>[+-]?(?:\d+\.?\d*|\.\d+))"
    r"(?:(?P<binary>Ki|Mi|Gi|Ti|Pi|Ei)|(?P<exp>[eE][+-]?\d+)|(?P<decimal>[numkMGTPE]?))$"
)


def quantity_value(text: str | int | float, *, path: str = "quantity") -> Decimal:
    """The exact decimal value of a Kubernetes quantity such as ``500m``, ``16Gi`` or ``1e3``."""
    if isinstance(text, bool):
        raise _bad(path, text)
    if isinstance(text, int):
        return Decimal(text)
    if isinstance(text, float):
        if text != text or text in (float("inf"), float("-inf")):
            raise _bad(path, text)
        return Decimal(repr(text))
    match = _PATTERN.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise _bad(path, text)
    try:
        number = Decimal(match["number"])
    except InvalidOperation as exc:  # pragma: no cover - the pattern only admits valid numbers
        raise _bad(path, text) from exc
    if match["binary"]:
        value = number * _BINARY[match["binary"]]
    elif match["exp"]:
        value = number * Decimal(10) ** int(match["exp"][1:])
    else:
        value = number * _DECIMAL[match["decimal"] or ""]
    if value < 0:
        raise SpecError([Problem(path, f"negative quantity {text!r}", "resource amounts are >= 0")])
    return value


def parse_quantity(text: str | int | float, resource: str, *, path: str = "quantity") -> int:
    """A quantity in the canonical integer unit of ``resource`` (millicores for cpu), at most
    ``MAX_AMOUNT``."""
    value = quantity_value(text, path=path)
    if resource == CPU:
        value *= 1000
    amount = int(value.to_integral_value(rounding=ROUND_CEILING))
    if amount > MAX_AMOUNT:
        unit = "millicores" if resource == CPU else "units"
        raise SpecError([Problem(path, f"quantity {text!r} is out of range", f"at most {MAX_AMOUNT} {unit}")])
    return amount


def format_quantity(amount: int, resource: str) -> str:
    """Render a canonical integer back as a short quantity string (``1500m``, ``16Gi``)."""
    if resource == CPU:
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
        unit = _BINARY[suffix]
        if amount >= unit and amount % unit == 0:
            return f"{amount // unit}{suffix}"
    return str(amount)


def _bad(path: str, text: object) -> SpecError:
    return SpecError(
        [
            Problem(
                path,
                f"invalid quantity {text!r}",
                "write a Kubernetes quantity such as 4, 500m, 1.5, 16Gi or 1e3",
            )
        ]
    )
