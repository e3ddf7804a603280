"""The simulation's one configuration file (YAML), validated with pydantic.

Every field has a default, so an empty file (or none) is a valid configuration::

    traces:
      directory: /data/traces     # where ``--trace philly`` / ``--trace alibaba`` are found
      max_bytes: 67108864         # a trace file larger than this is refused
      max_rows: 1000000           # ...and so is one with more job rows
    gangs:
      gpus_per_node: null         # pod width; null = the cluster's most common GPUs per node
    requests:                     # first rule whose ``wider_than`` the job exceeds wins;
                                  # a job no rule matches (one node's worth) is unconstrained
      - {wider_than: rack, mode: required, level: block}
      - {wider_than: node, mode: preferred, level: rack}
    scheduler:
      search: complete            # faithful | complete (the service's default)
      backoff_seconds: 0          # retry unschedulable jobs at every event (like a requeue)
      node_grace_seconds: 30
    failures:
      node_failures_per_day: 0    # per node; 0 = no failure injection
      recovery_seconds: 3600      # mean time until a failed node is Ready again
      seed: 0
      max_failures: 100000        # a replay expected to inject more is refused

Levels are named ``host`` (the topology's last level), ``rack`` (the one above), ``block`` (the
one above that) or by a label key of the topology. Bad values raise a ``SpecError`` whose
problems name the field, e.g. ``requests[0].mode``; numbers must be finite (``.nan`` and
``.inf`` are refused), so every value can be written back as strict JSON.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toposched.frontends.osmo.errors import problems_from
from toposched.intake.parse import parse_documents, read_file
from toposched.model import Problem, Search, SpecError
from toposched.model.limits import MAX_SPEC_BYTES


class Width(StrEnum):
    """How wide a job must be for a request rule to apply."""

    NONE = "none"  # every job
    NODE = "node"  # more than one pod
    RACK = "rack"  # more pods than a rack has nodes


class Mode(StrEnum):
    """The kind of topology request a rule puts on the job's PodSet."""

    REQUIRED = "required"
    PREFERRED = "preferred"
    UNCONSTRAINED = "unconstrained"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class TraceLimits(_Strict):
    """Where named traces live and how large a trace may be."""

    directory: Path | None = None
    max_bytes: int = Field(default=MAX_SPEC_BYTES, gt=0)
    max_rows: int = Field(default=1_000_000, gt=0)


class GangShape(_Strict):
    """How a job's GPU count becomes pods: pods of at most ``gpus_per_node`` GPUs each."""

    gpus_per_node: int | None = Field(default=None, gt=0)


class RequestRule(_Strict):
    """A topology request for jobs wider than ``wider_than``."""

    wider_than: Width = Width.NONE
    mode: Mode = Mode.PREFERRED
    level: str = "rack"
    slice_level: str | None = None  # slices of one ``slice_level`` domain's worth of pods


def _default_rules() -> tuple[RequestRule, ...]:
    """As a trace of NVL72 jobs would ask: a gang wider than a rack needs one block (its racks'
    fabric) and is spread over racks as the policy orders them; a narrower multi-node gang
    prefers one rack (NVLink) but may span racks when none has room; a one-node job asks nothing.
    Rack slices or a required rack would leave the policies nothing to choose: whole empty racks,
    or the tightest rack, which every Kueue ordering picks alike."""
    return (
        RequestRule(wider_than=Width.RACK, mode=Mode.REQUIRED, level="block"),
        RequestRule(wider_than=Width.NODE, mode=Mode.PREFERRED, level="rack"),
    )


class SchedulerSettings(_Strict):
    """The parts of the scheduler's configuration a replay may change (the policy is per run)."""

    search: Search = Search.COMPLETE
    backoff_seconds: float = Field(default=0.0, ge=0)
    node_grace_seconds: float = Field(default=30.0, ge=0)
    preemption: bool = True  # higher priority gangs evict lower ones (the fewest GPU-hours lost)
    reservations: bool = True  # the head gang reserves where it fits soonest; others backfill
    reservation_depth: int = Field(default=1, ge=1, le=64)  # refused gangs of a cycle that reserve
    aging_seconds: float | None = Field(default=3600.0, gt=0)  # one priority step per this much waiting


class FailureSettings(_Strict):
    """Node failures injected during the replay (a seeded random schedule, drawn as the replay
    goes); a replay expected to inject more than ``max_failures`` is refused before it starts."""

    node_failures_per_day: float = Field(default=0.0, ge=0)
    recovery_seconds: float = Field(default=3600.0, gt=0)
    seed: int = 0
    max_failures: int = Field(default=100_000, gt=0)


class SimConfig(_Strict):
    """The whole simulation configuration."""

    traces: TraceLimits = TraceLimits()
    gangs: GangShape = GangShape()
    requests: tuple[RequestRule, ...] = Field(default_factory=_default_rules)  # none: all unconstrained
    scheduler: SchedulerSettings = SchedulerSettings()
    failures: FailureSettings = FailureSettings()


def parse_config(raw: Any, *, source: str = "") -> SimConfig:
    """Validate a parsed configuration document; ``SpecError`` naming every bad field."""
    if raw is None:
        return SimConfig()
    try:
        return SimConfig.model_validate(raw)
    except ValidationError as exc:
        raise SpecError(problems_from(exc, raw, prefix=source)) from None


def load_config(path: str | None) -> SimConfig:
    """The configuration in the YAML file ``path``, or the defaults when ``path`` is None."""
    if path is None:
        return SimConfig()
    documents = parse_documents(read_file(path, what="simulation configuration"), source=path)
    if len(documents) > 1:
        raise SpecError([Problem(path, f"has {len(documents)} documents", "keep one configuration per file")])
    return parse_config(documents[0] if documents else None, source="")
