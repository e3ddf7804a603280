"""The coordination ``Lease`` (``coordination.k8s.io/v1``) leader election reads and writes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

API_VERSION = "coordination.k8s.io/v1"


@dataclass(frozen=True, slots=True)
class LeaseRecord:
    """Who holds the lease, for how long, and how often it changed hands."""

    holder: str
    duration_seconds: int
    acquired_at: float
    renewed_at: float
    transitions: int = 0


def micro_time(seconds: float) -> str:
    """A ``MicroTime`` (RFC 3339, microseconds, UTC) for seconds since the epoch."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_micro_time(text: object) -> float | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.strptime(text.replace("Z", "+0000"), "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()
    except ValueError:
        return None


def lease_object(
    name: str, namespace: str, record: LeaseRecord, *, resource_version: str | None = None
) -> dict[str, Any]:
    """A Lease; ``resource_version`` makes a replace conditional on the version read."""
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if resource_version is not None:
        metadata["resourceVersion"] = resource_version
    return {
        "apiVersion": API_VERSION,
        "kind": "Lease",
        "metadata": metadata,
        "spec": {
            "holderIdentity": record.holder,
            "leaseDurationSeconds": record.duration_seconds,
            "acquireTime": micro_time(record.acquired_at),
            "renewTime": micro_time(record.renewed_at),
            "leaseTransitions": record.transitions,
        },
    }


def parse_lease(obj: Mapping[str, Any]) -> LeaseRecord:
    """The record of a Lease as read; missing fields read as an unheld lease."""
    spec = obj.get("spec") or {}
    renewed = parse_micro_time(spec.get("renewTime")) or 0.0
    duration = spec.get("leaseDurationSeconds")
    transitions = spec.get("leaseTransitions")
    return LeaseRecord(
        holder=str(spec.get("holderIdentity") or ""),
        duration_seconds=duration if isinstance(duration, int) else 0,
        acquired_at=parse_micro_time(spec.get("acquireTime")) or renewed,
        renewed_at=renewed,
        transitions=transitions if isinstance(transitions, int) else 0,
    )
