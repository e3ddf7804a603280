"""Reasons in Kueue's words, with the structured facts beside them: the one failure value."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toposched.model import LayerFit, Unschedulable
from toposched.snapshot import ExclusionStats


def quote(text: str) -> str:
    """Double-quoted like Go's ``%q`` for the names that occur in practice."""
    return json.dumps(text, ensure_ascii=False)


def _exclusions(stats: ExclusionStats | None) -> str:
    if stats is None or not stats.any:
        return ""
    return f". Total nodes: {stats.total}; excluded: {stats.text()}"


def not_fit_text(topology: str, fit: int, needed: int, slice_size: int, stats: ExclusionStats | None) -> str:
    """``topology "t" doesn't allow to fit any of N pod(s)`` / ``allows to fit only K out of N``."""
    unit = "pod" if slice_size == 1 else "slice"
    if fit == 0:
        head = f"topology {quote(topology)} doesn't allow to fit any of {needed} {unit}(s)"
    else:
        head = f"topology {quote(topology)} allows to fit only {fit} out of {needed} {unit}(s)"
    return head + _exclusions(stats)


def layers_text(topology: str, layers: Sequence[LayerFit], stats: ExclusionStats | None) -> str:
    """The multi-layer variant: ``...; a/b slice(s) fit on level L`` per slice layer."""
    parts = "".join(f"; {layer.fit}/{layer.needed} slice(s) fit on level {layer.level}" for layer in layers)
    return f"topology {quote(topology)} doesn't allow to fit{parts}" + _exclusions(stats)


@dataclass(frozen=True, slots=True)
class Reasons:
    """Refusals of one placement: every solver returns the same ``Unschedulable`` value, built
    here with the gang, its topology and the policy beside the message and structured facts."""

    gang: str
    topology: str
    policy: str  # the name of the policy the placement was made under

    def refuse(
        self,
        message: str,
        *,
        topology: str | None = None,
        group: str | None = None,
        level: str | None = None,
        best_domain: tuple[str, ...] | None = None,
        fit: int | None = None,
        needed: int | None = None,
        unit: str = "pod",
        stats: ExclusionStats | None = None,
        shortfall: Mapping[str, int] | None = None,
        layers: Sequence[LayerFit] = (),
    ) -> Unschedulable:
        """``topology``: the Topology the reason is about, when not the gang's own."""
        return Unschedulable(
            gang=self.gang,
            topology=topology or self.topology,
            policy=self.policy,
            message=message,
            group=group,
            level=level,
            best_domain=best_domain,
            fit=fit,
            needed=needed,
            unit=unit,
            total_nodes=None if stats is None else stats.total,
            excluded=stats.counts() if stats is not None else {},
            shortfall=shortfall or {},
            layers=tuple(layers),
        )
