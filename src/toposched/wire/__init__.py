"""Wire objects: the one place each Kubernetes object shape toposched writes or reads is built and
parsed, one module per API group (``kai``: KAI Topology and PodGroup; ``kueue``: Kueue Topology,
Workload admission and pod patches; ``grove``: Grove ClusterTopology and PodGang;
``scheduling``: upstream Kubernetes Workload, PodGroup and CompositePodGroup).

Builders take model values or plain typed arguments and return plain dicts; the modules import
only ``toposched.model`` and not each other.
"""
