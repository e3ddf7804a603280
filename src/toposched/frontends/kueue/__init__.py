"""The Kueue front end: Job, JobSet, LeaderWorkerSet, MPIJob, PyTorchJob and pod groups with
KEP-2724 topology annotations → a validated ``Gang``.

Each Kueue PodSet becomes a leaf group (required / preferred level, slice layers, pods in rank
order); a PodSet group (``kueue.x-k8s.io/podset-group-name``) becomes an inner group holding the
shared level with the leader and worker leaves under it.
"""

from toposched.frontends.kueue.info import PodSetInfo, podset_infos, podset_names
from toposched.frontends.kueue.keys import (
    GROUP_NAME,
    POD_GROUP_NAME,
    POD_GROUP_TOTAL_COUNT,
    POD_INDEX_OFFSET,
    PODSET_ANNOTATIONS,
    PREFERRED,
    REQUIRED,
    SLICE_CONSTRAINTS,
    SLICE_REQUIRED,
    SLICE_SIZE,
    UNCONSTRAINED,
)
from toposched.frontends.kueue.loader import SUPPORTED, compile_workload

__all__ = [
    "compile_workload",
    "PodSetInfo",
    "podset_infos",
    "podset_names",
    "SUPPORTED",
    "GROUP_NAME",
    "POD_GROUP_NAME",
    "POD_GROUP_TOTAL_COUNT",
    "POD_INDEX_OFFSET",
    "PODSET_ANNOTATIONS",
    "PREFERRED",
    "REQUIRED",
    "SLICE_CONSTRAINTS",
    "SLICE_REQUIRED",
    "SLICE_SIZE",
    "UNCONSTRAINED",
]
