"""KAI Scheduler objects: Topology, PodGroup (with subgroups) and pod metadata patches."""

from toposched.emit.kai.objects import pod_metadata_patch, podgroup_object, subgroup_name, topology_object

__all__ = ["pod_metadata_patch", "podgroup_object", "subgroup_name", "topology_object"]
