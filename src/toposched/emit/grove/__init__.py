"""Grove emitter: a gang as a PodCliqueSet and its ClusterTopology."""

from toposched.emit.grove.intent import compile_to_grove

__all__ = ["compile_to_grove"]
