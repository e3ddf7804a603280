"""The schedulers ``toposched compile --to`` writes for: one table of target name → compiler.
Each compiler turns one gang on one topology into the target's objects and says what of the
gang the target cannot express (``Translation.unexpressed``).
``VERSIONED`` targets also take ``api_version=`` (``toposched compile --api-version``); ``QUEUED``
ones write the gang's queue."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from types import MappingProxyType

from toposched.emit.grove import compile_to_grove
from toposched.emit.kai.intent import compile_to_kai
from toposched.emit.kube.intent import compile_to_kube
from toposched.emit.kueue.intent import compile_to_kueue
from toposched.model import Gang, QueueKind, Topology, Translation

Compiler = Callable[[Gang, Topology], Translation]

TARGETS: Mapping[str, Compiler] = MappingProxyType(
    {"kai": compile_to_kai, "kueue": compile_to_kueue, "grove": compile_to_grove, "kube": compile_to_kube}
)

# Targets that submit a workload to a named queue, and their queues' kind (``toposched compile
# --queue NAME`` names one of that kind).
QUEUED: Mapping[str, QueueKind] = MappingProxyType(
    {"kai": QueueKind.KAI, "kueue": QueueKind.KUEUE, "grove": QueueKind.KAI}
)

# Targets written in one of several API versions: target → the compiler for a version.
VERSIONED: Mapping[str, Callable[[str], Compiler]] = MappingProxyType(
    {"kube": lambda version: partial(compile_to_kube, api_version=version)}  # scheduling.k8s.io
)
