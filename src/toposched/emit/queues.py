"""The queue a target writes for a gang, and what the user is told about it.

A Kueue LocalQueue (in the workload's namespace) and a KAI Queue (cluster-wide; OSMO pools and
Grove use KAI's) are different objects, so a queue name is carried only to a target whose queues
are of its kind; otherwise it is left out and the advice says so."""

from __future__ import annotations

from toposched.model import Gang, QueueKind

_CALLED = {QueueKind.KUEUE: "Kueue LocalQueue", QueueKind.KAI: "KAI queue"}
NAME_ONE = "toposched compile --queue NAME names one"


def target_queue(gang: Gang, kind: QueueKind, instead: str) -> tuple[str | None, tuple[str, ...]]:
    """The name to write on a target whose queues are ``kind`` (None: the gang names none of
    that kind) and the advice when the gang's queue is of another kind (``instead``: what the
    target writes then, e.g. "default-queue written")."""
    queue = gang.queue
    if queue is None:
        return None, ()
    if queue.kind is kind:
        return queue.name, ()
    said = f"the input's {_CALLED[queue.kind]} {queue.name!r} is no {_CALLED[kind]}: {instead} ({NAME_ONE})"
    return None, (said,)


def queue_left_out(gang: Gang, scheduler: str) -> tuple[str, ...]:
    """The advice for a target without queues."""
    if gang.queue is None:
        return ()
    return (
        f"{scheduler} has no queues: the input's {_CALLED[gang.queue.kind]} {gang.queue.name!r} left out",
    )
