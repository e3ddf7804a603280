"""Expectations per gang, as Kubernetes controllers keep them (client-go's
``ControllerExpectations``): after writing to a gang's pods the controller does not act on that
gang again until its informer has shown every write, so a stale cache, a duplicate event or an
event that arrives late never makes it assign a pod twice. Expectations that are not met within
``ttl`` seconds are dropped (a lost event must not block a gang forever; the next relist heals
the cache).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from toposched.controller.keys import GangKey
from toposched.controller.kubeapi import Object


def _version(obj: Mapping[str, object]) -> int:
    metadata = obj.get("metadata")
    raw = metadata.get("resourceVersion") if isinstance(metadata, Mapping) else None
    try:
        return int(str(raw))
    except ValueError:
        return -1


@dataclass(slots=True)
class Expectations:
    """Per gang: the pods written (cache key -> resourceVersion of the write) and when."""

    ttl: float = 300.0
    pending: dict[GangKey, tuple[float, dict[str, int]]] = field(default_factory=dict)

    def expect(self, gang: GangKey, written: Object, key: str, now: float) -> None:
        """Remember one write's answer: the cache must reach its resourceVersion."""
        _, pods = self.pending.get(gang, (now, {}))
        pods[key] = _version(written)
        self.pending[gang] = (now, pods)

    def satisfied(self, gang: GangKey, cache: Mapping[str, Object], now: float) -> bool:
        """Whether the cache shows every write (or the pods are gone); met ones are forgotten."""
        entry = self.pending.get(gang)
        if entry is None:
            return True
        since, pods = entry
        for key, version in list(pods.items()):
            seen = cache.get(key)
            if seen is None or _version(seen) >= version:
                del pods[key]
        if not pods or now - since > self.ttl:
            del self.pending[gang]
            return True
        return False

    def forget(self, gang: GangKey) -> None:
        """The gang is gone: nothing of it is awaited any more."""
        self.pending.pop(gang, None)

    def expire(self, now: float) -> None:
        """Drop what was not met within ``ttl`` (gangs not asked about again, as they went away)."""
        for gang, (since, _) in list(self.pending.items()):
            if now - since > self.ttl:
                del self.pending[gang]
