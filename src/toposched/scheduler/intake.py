"""Which front end reads a submitted spec: a small registry of ``text -> Gang`` loaders.

Each front end registers one ``FrontEnd`` entry: a name, the Kubernetes kinds it reads and a
predicate over the first parsed document. Entries are tried in order, so a front end that reads
the same kinds as another but recognises them by annotations (KAI next to Kueue) registers with
``first=True``. A caller may force the choice with a hint: a front-end name (``kueue``) or a kind
(``JobSet``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from toposched.frontends import kueue
from toposched.frontends.kueue.kinds import READERS as KUEUE_READERS
from toposched.model import Gang, Problem, Topology, WorkloadSpecError

Loader = Callable[[str, Topology | None], Gang]
Matcher = Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True, slots=True)
class FrontEnd:
    """One front end: ``load(text, topology)`` compiles a spec or raises ``WorkloadSpecError``."""

    name: str
    kinds: frozenset[str]
    load: Loader
    matches: Matcher = field(default=lambda doc: True)


class Intake:
    """The registry. ``load`` picks a front end and compiles the spec with it."""

    def __init__(self, front_ends: tuple[FrontEnd, ...] = ()) -> None:
        self._entries: list[FrontEnd] = list(front_ends)

    def register(self, front_end: FrontEnd, *, first: bool = False) -> None:
        """Add a front end (replacing one of the same name); ``first`` tries it before the others."""
        self._entries = [e for e in self._entries if e.name != front_end.name]
        if first:
            self._entries.insert(0, front_end)
        else:
            self._entries.append(front_end)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self._entries)

    def knows(self, hint: str) -> bool:
        """Whether ``hint`` names a registered front end or a kind one of them reads."""
        return any(hint.lower() == e.name.lower() or hint in e.kinds for e in self._entries)

    def choose(self, text: str, kind: str | None = None) -> FrontEnd:
        """The front end for ``text``: by hint when given, else the first whose predicate matches."""
        if not self._entries:
            raise WorkloadSpecError([Problem("", "no workload front end is registered", "")])
        if kind:
            for entry in self._entries:
                if kind.lower() == entry.name.lower():
                    return entry
            by_kind = [e for e in self._entries if kind in e.kinds]
            if not by_kind:
                raise WorkloadSpecError(
                    [Problem("kind", f"unknown kind hint {kind!r}", f"use one of: {self._known()}")]
                )
            text_doc = _first_document(text)
            return next((e for e in by_kind if text_doc is not None and e.matches(text_doc)), by_kind[0])
        doc = _first_document(text)
        if doc is None:
            return self._entries[-1]  # let the default front end report the syntax error or empty input
        for entry in self._entries:
            if entry.matches(doc):
                return entry
        seen = f"{doc.get('apiVersion', '?')} {doc.get('kind', '?')}"
        raise WorkloadSpecError(
            [Problem("kind", f"no front end reads {seen}", f"submit one of: {self._known()}")]
        )

    def load(self, text: str, *, kind: str | None = None, topology: Topology | None = None) -> Gang:
        """Validate and compile ``text``; raises ``WorkloadSpecError`` listing every problem."""
        return self.choose(text, kind).load(text, topology)

    def _known(self) -> str:
        kinds = sorted({k for e in self._entries for k in e.kinds})
        return ", ".join([*self.names, *kinds])


def _first_document(text: str) -> Mapping[str, Any] | None:
    try:
        for doc in yaml.safe_load_all(text):
            if doc is not None:
                return doc if isinstance(doc, Mapping) else None
    except yaml.YAMLError:
        return None
    return None


def _kueue_matches(doc: Mapping[str, Any]) -> bool:
    kind = doc.get("kind")
    if kind in ("Pod", "List"):
        return True
    entry = KUEUE_READERS.get(str(kind))
    return entry is not None and str(doc.get("apiVersion", "")).split("/")[0] == entry[0].split("/")[0]


def _load_kueue(text: str, topology: Topology | None) -> Gang:
    return kueue.load_workload(text, topology, source="spec")


KUEUE = FrontEnd("kueue", frozenset([*KUEUE_READERS, "Pod"]), _load_kueue, _kueue_matches)


def default_intake() -> Intake:
    """A registry with every front end that can compile a spec today (Kueue)."""
    return Intake((KUEUE,))
