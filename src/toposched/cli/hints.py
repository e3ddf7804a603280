"""Advice shown beside an explanation: when taints alone keep a gang off every node, that is the
one thing to fix, so the output leads with the taints and the tolerations to add.

The engine's messages stay in Kueue's words (conformance checks them); this reads only the
structured ``excluded`` counts, whose taint labels are ``taint "key=value:Effect"``. It works on
a fresh ``Unschedulable`` (``place``) and on one the service stored (``get``) alike.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import yaml

from toposched.model import Taint, TaintEffect
from toposched.wire.core import toleration_for

_TAINT_LABEL = re.compile(r'taint "(?P<key>[^"=:]+)(?:=(?P<value>[^":]*))?:(?P<effect>[A-Za-z]+)"')
# GKE's admission adds this toleration to pods requesting GPUs; a spec as written lacks it.
_GKE_GPU_TAINT = "nvidia.com/gpu"


@dataclass(frozen=True, slots=True)
class TaintHint:
    """Taints that together exclude every node of the topology, most excluding first."""

    taints: tuple[tuple[Taint, int], ...]  # (taint, nodes it excluded)

    def headline(self) -> str:
        if len(self.taints) == 1:
            return f"every node has the taint {self.taints[0][0]}, which the pods do not tolerate"
        listed = ", ".join(f"{taint} ({count})" for taint, count in self.taints)
        return f"every node has a taint the pods do not tolerate: {listed}"

    def advice(self) -> str:
        text = (
            "add this toleration to the pod template's spec"
            if len(self.taints) == 1
            else "add tolerations for the taints the pods may run with to the pod template's spec"
        )
        if any(taint.key == _GKE_GPU_TAINT for taint, _ in self.taints):
            text += f" (GKE adds the {_GKE_GPU_TAINT} one to pods requesting GPUs; toposched reads the spec as written)"
        return text + ":"

    def tolerations_yaml(self) -> str:
        """The ``tolerations:`` block to paste, one entry per taint."""
        return yaml.safe_dump(
            {"tolerations": [toleration_for(taint) for taint, _ in self.taints]},
            sort_keys=False,
            default_flow_style=False,
        ).rstrip("\n")

    def lines(self) -> list[str]:
        """Headline, advice and the YAML block as plain lines (for ``toposched get``)."""
        return [self.headline(), self.advice(), *self.tolerations_yaml().splitlines()]


def taint_hint(excluded: Mapping[str, int], total_nodes: int | None) -> TaintHint | None:
    """A hint when the taint exclusions alone account for every node; None otherwise (then
    capacity, selectors or other reasons matter too, and the full explanation says which)."""
    taints: list[tuple[Taint, int]] = []
    for label, count in excluded.items():
        match = _TAINT_LABEL.fullmatch(label)
        if match is None:
            continue
        try:
            effect = TaintEffect(match["effect"])
        except ValueError:
            continue
        taints.append((Taint(match["key"], match["value"] or "", effect), count))
    if not taints or not total_nodes or sum(count for _, count in taints) < total_nodes:
        return None
    return TaintHint(tuple(sorted(taints, key=lambda pair: (-pair[1], str(pair[0])))))
