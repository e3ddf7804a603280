"""Conformance cases from ``../shared/conformance`` and the project's own sources beside them
(``tests/conformance/cases/<folder>``: ``kube``, translated from Kubernetes' tests; its README
describes the shapes FORMAT.md does not; ``kueue``, cases added to a shared source): discovery, ids, the seed-conflict rules of FORMAT.md
§4, reason-fact matching (§5) and the ``<any>`` wildcard (§3.4). Shared by every runner."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ANY = "<any>"
LOCAL = Path(__file__).resolve().parent / "cases"  # the project's own cases, one folder per source
LOCAL_ONLY = frozenset({"kube"})  # sources the shared set does not have


def conformance_root() -> Path:
    """The conformance folder: ``$TOPOSCHED_CONFORMANCE``, else ``../shared/conformance``."""
    override = os.environ.get("TOPOSCHED_CONFORMANCE")
    if override:
        return Path(override)
    return Path(__file__).resolve().parents[2].parent / "shared" / "conformance"


def root_of(folder: str) -> Path:
    """Where a source's cases must be: the project's own (``cases/``) for a source the shared set
    does not have, else the shared conformance folder (``$TOPOSCHED_CONFORMANCE`` wins). The
    project may add cases of its own to a shared source too (``cases/kueue``); they run beside
    the shared ones."""
    if folder in LOCAL_ONLY and not os.environ.get("TOPOSCHED_CONFORMANCE"):
        return LOCAL
    return conformance_root()


@dataclass(frozen=True)
class Case:
    """One case file. ``data`` is the parsed JSON."""

    folder: str
    path: Path
    data: Mapping[str, Any]

    @property
    def id(self) -> str:
        return str(self.data["id"])

    @property
    def kind(self) -> str:
        return str(self.data["kind"])

    @property
    def seed_conflict(self) -> str | None:
        value = self.data.get("seedConflict")
        return None if value is None else str(value)

    @property
    def skip_reason(self) -> str | None:
        """FORMAT.md §4 rule 3: a seed conflict without ``expectToposched`` is skipped."""
        if self.seed_conflict is not None and "expectToposched" not in self.data:
            return f"seedConflict: {self.seed_conflict}"
        return None

    @property
    def expect(self) -> Mapping[str, Any]:
        """The expectation to check (FORMAT.md §4): ``expectToposched`` on a seed conflict."""
        if self.seed_conflict is not None and "expectToposched" in self.data:
            return dict(self.data["expectToposched"])
        return dict(self.data.get("expect") or {})


def discover(folder: str, kinds: Iterable[str] | None = None, root: Path | None = None) -> list[Case]:
    """Every case of one folder (optionally only some kinds): the source's own and the project's
    additions to it, sorted by id."""
    wanted = set(kinds) if kinds is not None else None
    cases = []
    for base in dict.fromkeys([(root or root_of(folder)) / folder, LOCAL / folder]):
        for path in sorted(base.glob("*.json")):
            data = json.loads(path.read_text(encoding="utf-8"))
            if wanted is None or data.get("kind") in wanted:
                cases.append(Case(folder, path, data))
    return sorted(cases, key=lambda case: case.id)


def params(folder: str, kinds: Iterable[str] | None = None) -> list[Any]:
    """The cases as pytest parameters whose id is the case id.

    Without cases (no folder, or none of these kinds) the run must not pass silently: under CI
    (``CI=true``) collection fails; elsewhere one skipped parameter names the folder looked for."""
    root = root_of(folder)
    base = root / folder
    cases = discover(folder, kinds, root) if base.is_dir() else []
    if cases:
        return [pytest.param(case, id=case.id) for case in cases]
    wanted = "/".join(sorted(kinds)) + " " if kinds is not None else ""
    what = f"{base} has no {wanted}cases" if base.is_dir() else f"{base} does not exist"
    if in_ci():
        pytest.fail(
            f"conformance cases are required under CI: {what} (lay the specification beside the "
            "clone as ../shared, or point TOPOSCHED_CONFORMANCE at its conformance folder)",
            pytrace=False,
        )
    return [pytest.param(None, id=f"{folder}-missing", marks=pytest.mark.skip(reason=what))]


def in_ci() -> bool:
    """``CI`` set to true, as continuous integration services (and ``.ci/run``'s caller) do."""
    return os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}


def skip_if_conflicted(case: Case) -> None:
    """Apply FORMAT.md §4 rule 3."""
    reason = case.skip_reason
    if reason is not None:
        pytest.skip(reason)


def wildcard_match(pattern: str, value: str) -> bool:
    """``<any>`` matches any substring, possibly empty (FORMAT.md §3.4)."""
    if pattern == ANY:
        return True
    parts = [re.escape(p) for p in pattern.split(ANY)]
    return re.fullmatch(".*".join(parts), value, flags=re.DOTALL) is not None


def missing_facts(facts: Iterable[str], message: str, structured: Iterable[object] = ()) -> list[str]:
    """Facts neither found in ``message`` nor equal to a structured value (compared as strings);
    FORMAT.md §5. An empty list means every fact is satisfied."""
    values = {str(v) for v in structured}
    return [fact for fact in facts if not mentions(message, fact) and fact not in values]


def mentions(text: str, fact: str) -> bool:
    """A case-sensitive substring, except that a number must stand as a whole number: FORMAT.md §5
    calls numeric facts a floor, and ``"1"`` would otherwise be found in ``"16"``."""
    if fact.isdecimal():
        return re.search(rf"(?<![0-9]){fact}(?![0-9])", text) is not None
    return fact in text
