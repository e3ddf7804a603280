"""Annotation and label keys the Kueue front end reads (KEP-2724, "User-facing API")."""

from __future__ import annotations

PREFIX = "kueue.x-k8s.io/"
PODSET_PREFIX = "kueue.x-k8s.io/podset-"

REQUIRED = "kueue.x-k8s.io/podset-required-topology"
PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
SLICE_CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
GROUP_NAME = "kueue.x-k8s.io/podset-group-name"
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

MAX_SLICE_LAYERS = 3
