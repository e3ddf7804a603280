"""Annotation and label keys the Kueue front end reads (KEP-2724, "User-facing API")."""

from __future__ import annotations

# The PodSet annotation keys are spelled once, where the wire module writes them.
from toposched.wire.kueue import (
    GROUP_NAME,
    MAX_SLICE_LAYERS,
    PREFERRED,
    QUEUE_NAME,
    REQUIRED,
    SLICE_CONSTRAINTS,
    SLICE_REQUIRED,
    SLICE_SIZE,
    UNCONSTRAINED,
)

PREFIX = "kueue.x-k8s.io/"
PODSET_PREFIX = "kueue.x-k8s.io/podset-"
POD_INDEX_OFFSET = "kueue.x-k8s.io/pod-index-offset"

# Every podset-* key Kueue defines; any other podset-* key is a typo.
PODSET_ANNOTATIONS = (
    REQUIRED,
    PREFERRED,
    UNCONSTRAINED,
    SLICE_REQUIRED,
    SLICE_SIZE,
    SLICE_CONSTRAINTS,
    GROUP_NAME,
)

# Plain pods are grouped into one workload by this label and this annotation.
POD_GROUP_NAME = "kueue.x-k8s.io/pod-group-name"
POD_GROUP_TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"

# Labels that carry a pod's index, as the owning controllers set them.
JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
JOBSET_JOB_INDEX = "jobset.sigs.k8s.io/job-index"
LWS_WORKER_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"
KUBEFLOW_REPLICA_INDEX = "training.kubeflow.org/replica-index"

__all__ = [
    "GROUP_NAME",
    "JOBSET_JOB_INDEX",
    "JOB_COMPLETION_INDEX",
    "KUBEFLOW_REPLICA_INDEX",
    "LWS_WORKER_INDEX",
    "MAX_SLICE_LAYERS",
    "PODSET_ANNOTATIONS",
    "PODSET_PREFIX",
    "POD_GROUP_NAME",
    "POD_GROUP_TOTAL_COUNT",
    "POD_INDEX_OFFSET",
    "PREFERRED",
    "PREFIX",
    "QUEUE_NAME",
    "REQUIRED",
    "SLICE_CONSTRAINTS",
    "SLICE_REQUIRED",
    "SLICE_SIZE",
    "UNCONSTRAINED",
]
