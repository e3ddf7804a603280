"""The OSMO pools of ``MemoryStore``."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

from toposched.model import NotFoundError
from toposched.store import rules
from toposched.store.codecs import copy_json
from toposched.store.records import PoolRecord, WorkloadRecord


class MemoryPools:
    """The pool methods of the ``Store`` protocol, over ``MemoryStore``'s state and lock."""

    _lock: threading.RLock
    _changing: Callable[[], AbstractContextManager[None]]
    _pools: dict[str, PoolRecord]
    _live: Callable[[], list[WorkloadRecord]]

    def put_pool(self, pool: PoolRecord) -> None:
        """Insert or overwrite a pool by name."""
        stored = dataclasses.replace(pool, config=copy_json(pool.config))
        with self._changing():
            self._pools[pool.name] = stored

    def get_pool(self, name: str) -> PoolRecord:
        """One pool by name."""
        with self._lock:
            if name not in self._pools:
                raise NotFoundError("pool", name, f"known pools: {rules.known_names(self._pools)}")
            pool = self._pools[name]
        return dataclasses.replace(pool, config=copy_json(pool.config))

    def list_pools(self) -> list[PoolRecord]:
        """Every pool, sorted by name."""
        with self._lock:
            names = sorted(self._pools)
            return [self.get_pool(name) for name in names]

    def delete_pool(self, name: str) -> None:
        """Delete a pool."""
        with self._changing():
            if name not in self._pools:
                raise NotFoundError("pool", name)
            rules.check_pool_unused(name, [w.id for w in self._live() if w.pool == name])
            del self._pools[name]
