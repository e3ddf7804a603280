"""The schedulers ``toposched compile --to`` writes for: one table of target name → compiler.
Each compiler turns one gang on one topology into the target's objects and says what of the
gang the target cannot express (``Translation.unexpressed``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from toposched.emit.grove import compile_to_grove
from toposched.emit.kai.intent import compile_to_kai
from toposched.emit.kueue.intent import compile_to_kueue
from toposched.model import Gang, Topology, Translation

Compiler = Callable[[Gang, Topology], Translation]

TARGETS: Mapping[str, Compiler] = MappingProxyType(
    {"kai": compile_to_kai, "kueue": compile_to_kueue, "grove": compile_to_grove}
)
