"""Annotation and label keys the KAI PodGrouper reads and writes."""

from __future__ import annotations

from toposched.wire import kai as wire

TOPOLOGY = wire.TOPOLOGY_ANNOTATION
REQUIRED = wire.REQUIRED_ANNOTATION
PREFERRED = wire.PREFERRED_ANNOTATION
SEGMENT_SIZE = "kai.scheduler/segment-size"
SEGMENT_REQUIRED = "kai.scheduler/segment-topology-required-placement"
SEGMENT_PREFERRED = "kai.scheduler/segment-topology-preferred-placement"
POD_INDEX_LABEL = "kai.scheduler/pod-index-label"
BATCH_MIN_MEMBER = wire.BATCH_MIN_MEMBER_ANNOTATION
# The keys that tie pods to their PodGroup, or a workload to its PodGroup's constraint, are part
# of the KAI objects' shape.
QUEUE = wire.QUEUE_LABEL
SUBGROUP_NAME = wire.SUBGROUP_LABEL
POD_GROUP_NAME = wire.POD_GROUP_ANNOTATION
DEFAULT_QUEUE = wire.DEFAULT_QUEUE

KUBEFLOW_REPLICA_TYPE = "training.kubeflow.org/replica-type"
KUBEFLOW_REPLICA_INDEX = "training.kubeflow.org/replica-index"
JOB_COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
LWS_WORKER_INDEX = "leaderworkerset.sigs.k8s.io/worker-index"
LWS_GROUP_INDEX = "leaderworkerset.sigs.k8s.io/group-index"
LWS_SIZE = "leaderworkerset.sigs.k8s.io/size"
JOBSET_REPLICATED_JOB = "jobset.sigs.k8s.io/replicatedjob-name"
JOBSET_JOB_INDEX = "jobset.sigs.k8s.io/job-index"
GROVE_PODGANG = "grove.io/podgang"
GROVE_TOPOLOGY_NAME = "grove.io/topology-name"
RAY_NODE_TYPE = "ray.io/node-type"
RAY_GROUP = "ray.io/group"

# KAI caps the number of segment subgroups one replica type may produce.
MAX_SEGMENTS = 10000
