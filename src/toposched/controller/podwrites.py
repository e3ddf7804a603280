"""The ungater's writes to pods, each conditional on the pod as read: a patch carries the pod's
``resourceVersion`` (and names the field manager ``toposched``), a delete the pod's uid and
``resourceVersion`` as preconditions. A pod that changed since it was read, or was recreated by
its owner, is not written: the conflict is counted and logged in one line, and not repeated, as
the same request would meet the same conflict; the next pass decides again from the fresh pod.
Each patch that went through is awaited in ``expectations``.

``patch_all`` sends several patches at once, at most ``concurrency`` in flight (a pod write is a
round trip of a few milliseconds the API server can overlap with others); the answers are folded
into the counters and expectations on the caller's thread, so only the requests run in the pool.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from toposched.controller.expectations import Expectations
from toposched.controller.keys import FIELD_MANAGER, GangKey, name_of
from toposched.controller.kubeapi import (
    PODS,
    ApiConflictError,
    ApiNotFoundError,
    KubeApi,
    Object,
    PatchType,
    Preconditions,
)
from toposched.controller.records import uid_of
from toposched.model import Problem, SpecError

log = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 16  # pod writes in flight at once
MAX_CONCURRENCY = 256


def check_concurrency(concurrency: int) -> int:
    """``concurrency`` when it is a usable number of writes in flight (``SpecError`` otherwise)."""
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise SpecError(
            [
                Problem(
                    "--write-concurrency",
                    f"{concurrency} writes in flight",
                    f"use 1 to {MAX_CONCURRENCY} (1 writes one pod at a time)",
                )
            ]
        )
    return concurrency


@dataclass(frozen=True, slots=True)
class PodPatch:
    """One conditional patch of a pod as read."""

    pod: Object
    patch: dict[str, Any]
    kind: PatchType = PatchType.MERGE


@dataclass(frozen=True, slots=True)
class Landed:
    """What a set of writes did: per write, whether it went through, and the first failure other
    than a conflict or a vanished pod (the caller decides what it means)."""

    landed: list[bool]
    error: Exception | None = None

    @property
    def count(self) -> int:
        return sum(self.landed)


@dataclass(slots=True)
class PodWrites:
    api: KubeApi
    expectations: Expectations
    concurrency: int = DEFAULT_CONCURRENCY
    conflicts: int = 0  # writes refused as the pod had changed (metrics read it)
    _pool: ThreadPoolExecutor | None = field(default=None, init=False)

    def close(self) -> None:
        """Stop the pool's threads (writes under way finish)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def patch(
        self, key: GangKey, pod: Object, patch: dict[str, Any], now: float, kind: PatchType = PatchType.MERGE
    ) -> bool:
        """Patch ``pod`` of gang ``key`` as read; False when it changed or went away."""
        done = self.patch_all(key, [PodPatch(pod, patch, kind)], now)
        if done.error is not None:
            raise done.error
        return done.landed[0]

    def patch_all(self, key: GangKey, patches: Sequence[PodPatch], now: float) -> Landed:
        """Every patch of ``patches`` (pods of gang ``key``), in flight together. Every answer is
        folded in, the writes that landed awaited, whatever failed beside them."""
        if len(patches) <= 1 or self.concurrency == 1:
            answers = [_outcome(partial(self._send, p)) for p in patches]
        else:
            pool = self._pool_of()
            futures = [pool.submit(self._send, p) for p in patches]
            answers = [_outcome(f.result) for f in futures]
        landed: list[bool] = []
        failure: Exception | None = None
        for patch, (written, error) in zip(patches, answers, strict=True):
            metadata = patch.pod.get("metadata") or {}
            name, namespace = name_of(patch.pod), metadata.get("namespace")
            if isinstance(error, ApiConflictError):
                self._conflict(namespace, name, "not patched")
            elif error is not None and not isinstance(error, ApiNotFoundError):
                failure = failure or error
            elif written is not None:
                self.expectations.expect(key, written, f"{namespace}/{name}" if namespace else name, now)
            landed.append(written is not None)
        return Landed(landed, failure)

    def delete(self, pod: Object) -> None:
        """Delete ``pod`` as read (gone already is as good)."""
        metadata = pod.get("metadata") or {}
        name, namespace = name_of(pod), metadata.get("namespace")
        preconditions = Preconditions(uid_of(pod) or None, metadata.get("resourceVersion"))
        try:
            self.api.delete(PODS, name, namespace, preconditions=preconditions)
        except ApiNotFoundError:
            pass
        except ApiConflictError:
            self._conflict(namespace, name, "not deleted")

    def _pool_of(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.concurrency, "toposched-write")
        return self._pool

    def _send(self, patch: PodPatch) -> Object:
        metadata = patch.pod.get("metadata") or {}
        version = {"resourceVersion": metadata.get("resourceVersion")}
        body = patch.patch
        conditional = {**body, "metadata": {**body.get("metadata", {}), **version}}
        return self.api.patch(
            PODS,
            name_of(patch.pod),
            conditional,
            metadata.get("namespace"),
            patch_type=patch.kind,
            field_manager=FIELD_MANAGER,
        )

    def _conflict(self, namespace: str | None, name: str, what: str) -> None:
        self.conflicts += 1
        log.info(
            "pod %s/%s changed since it was read: %s, the next pass decides again", namespace, name, what
        )


def _outcome(call: Callable[[], Object]) -> tuple[Object | None, Exception | None]:
    """``call()``'s answer, or the exception it raised (a pool's future raises it on ``result``)."""
    try:
        return call(), None
    except Exception as exc:  # folded per write by ``patch_all``, handed to its caller
        return None, exc
