"""``VersionedCache``: answers kept while the store's version (``Store.version``) is unchanged.

A value is read at one version and handed out again only at that same version: any commit (by
this process or another) moves the version on, so nothing kept can be stale, and no time is
involved. The cluster view and the explanations keep their answers here."""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class VersionedCache(Generic[K, V]):
    """At most ``size`` values, each with the version it was read at; the oldest goes first."""

    def __init__(self, size: int = 64) -> None:
        self._size = size
        self._values: dict[K, tuple[int, V]] = {}
        self._lock = threading.Lock()  # values are built on pool threads

    def get(self, key: K, version: int) -> V | None:
        """The value kept for ``key`` when it was read at ``version``."""
        with self._lock:
            kept = self._values.get(key)
        return kept[1] if kept is not None and kept[0] == version else None

    def put(self, key: K, version: int, value: V) -> None:
        """Keep ``value`` for ``key``, read at ``version`` (read the version before the value)."""
        with self._lock:
            self._values.pop(key, None)
            if len(self._values) >= self._size:
                del self._values[next(iter(self._values))]
            self._values[key] = (version, value)
