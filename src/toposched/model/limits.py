"""Bounds on what one input may ask for, shared by every front end.

A count is checked where a front end reads it and again when counts multiply (JobSet replicas
x parallelism, Grove replicas x clique replicas), always before any pod is built: a 700-byte
spec asking for 10^23 pods is refused in microseconds instead of exhausting memory.

The size of each kind of input text is defined here too, and only here (README, "Input limits"):
the readers (``toposched.intake.parse``) stop reading at these bounds.
"""

from __future__ import annotations

from toposched.model.errors import Problem

MIB = 1 << 20

# One workload spec, topology, pool, configuration or tokens file, or standard input.
MAX_SPEC_BYTES = 64 * MIB
# A cluster dump: kubectl prints 100k nodes as ~340 MB of YAML or ~600 MB of JSON.
MAX_CLUSTER_DUMP_BYTES = 1024 * MIB
# One HTTP request body: a spec, or one chunk of a cluster dump (the import merges chunks).
MAX_REQUEST_BODY_BYTES = 1 * MIB

MAX_RESERVATION_DEPTH = 64  # reservations one cycle may hold (SchedulerConfig, --reservation-depth)
MAX_PODS_PER_GANG = 100_000  # the default; CompileContext.max_pods, SchedulerConfig.max_pods, --max-pods

RAISE_POD_LIMIT = (
    "use fewer pods, or raise the limit: toposched place --max-pods N, or SchedulerConfig.max_pods"
)


class PodBudget:
    """The pods one gang may still have: pod sets book their pods here before they are built,
    so the total is bounded as well as each count."""

    __slots__ = ("limit", "used")

    def __init__(self, limit: int = MAX_PODS_PER_GANG) -> None:
        self.limit = limit
        self.used = 0

    def check(self, path: str, pods: int) -> Problem | None:
        """A Problem when one count (the field at ``path``) alone passes the limit."""
        if pods <= self.limit:
            return None
        return Problem(
            path, f"asks for {pods} pods; the limit is {self.limit} pods per gang", RAISE_POD_LIMIT
        )

    def take(self, path: str, pods: int) -> Problem | None:
        """Book ``pods`` pods of a pod set at ``path``; a Problem (nothing booked) when the gang's
        total would pass the limit."""
        total = self.used + pods
        if total > self.limit:
            return Problem(
                path,
                f"brings the gang to {total} pods; the limit is {self.limit} pods per gang",
                RAISE_POD_LIMIT,
            )
        self.used = total
        return None
