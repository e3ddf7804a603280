"""The static domain tree of a topology over a node set, and the topology lint."""

from toposched.topology.lint import lint
from toposched.topology.paths import IntArray
from toposched.topology.tree import TopologyTree

__all__ = ["IntArray", "TopologyTree", "lint"]
