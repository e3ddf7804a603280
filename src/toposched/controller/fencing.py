"""The fence every write of the leader passes: a ``KubeApi`` whose writes are refused once this
replica may no longer write, and otherwise carry a deadline for the API server.

``Fence.window`` says how many seconds the server may take to apply a write made now (see
``leader``: until halfway between the renew deadline and the lease's expiry), or raises
``NotLeaderError``. Checked immediately before each request, so a replica that lost the lease
stops writing at its next write, whatever step it is in; the deadline goes to the server as the
write's ``timeout``, so a write the server is slow to apply fails (504) instead of landing after
another replica may have taken over. Reads pass unchanged: a replica that does not lead may read.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from toposched.controller.kubeapi import ForwardingKubeApi, KubeApi, Resource
from toposched.model import ToposchedError


class NotLeaderError(ToposchedError):
    """This replica does not hold the lease (any more): it must not write."""


@dataclass(frozen=True, slots=True)
class Fence:
    window: Callable[[], float]  # seconds a write made now may take; raises NotLeaderError


class FencedKubeApi(ForwardingKubeApi):
    """``api``, with each write checked against ``fence`` and bounded by its window."""

    def __init__(self, api: KubeApi, fence: Fence) -> None:
        super().__init__(api)
        self.fence = fence

    def before_write(self, verb: str, resource: Resource, name: str, timeout: float | None) -> float:
        window = self.fence.window()
        return window if timeout is None else min(window, timeout)
