"""The ungater's writes to pods, each conditional on the pod as read: a patch carries the pod's
``resourceVersion`` (and names the field manager ``toposched``), a delete the pod's uid and
``resourceVersion`` as preconditions. A pod that changed since it was read, or was recreated by
its owner, is not written: the conflict is counted and logged in one line, and not repeated, as
the same request would meet the same conflict; the next pass decides again from the fresh pod.
Each patch that went through is awaited in ``expectations``."""

from __future__ import annotations

import logging
from dataclasses import dataclass
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

log = logging.getLogger(__name__)


@dataclass(slots=True)
class PodWrites:
    api: KubeApi
    expectations: Expectations
    conflicts: int = 0  # writes refused as the pod had changed (metrics read it)

    def patch(
        self, key: GangKey, pod: Object, patch: dict[str, Any], now: float, kind: PatchType = PatchType.MERGE
    ) -> bool:
        """Patch ``pod`` of gang ``key`` as read; False when it changed or went away."""
        metadata = pod.get("metadata") or {}
        name, namespace = name_of(pod), metadata.get("namespace")
        version = {"resourceVersion": metadata.get("resourceVersion")}
        conditional = {**patch, "metadata": {**patch.get("metadata", {}), **version}}
        try:
            written = self.api.patch(
                PODS, name, conditional, namespace, patch_type=kind, field_manager=FIELD_MANAGER
            )
        except ApiNotFoundError:
            return False
        except ApiConflictError:
            self._conflict(namespace, name, "not patched")
            return False
        self.expectations.expect(key, written, f"{namespace}/{name}" if namespace else name, now)
        return True

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

    def _conflict(self, namespace: str | None, name: str, what: str) -> None:
        self.conflicts += 1
        log.info(
            "pod %s/%s changed since it was read: %s, the next pass decides again", namespace, name, what
        )
