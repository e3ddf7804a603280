"""KAI emitter: the PodGroup (with subgroups) of a compiled gang."""

from toposched.emit.kai.objects import podgroup_object

__all__ = ["podgroup_object"]
