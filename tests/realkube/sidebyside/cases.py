"""One generated case: a cluster and a gang, from a seed and the case's number."""

from __future__ import annotations

import random
from dataclasses import dataclass

from tests.realkube.sidebyside.cluster import ClusterSpec, generate_cluster
from tests.realkube.sidebyside.gangs import GangSpec, generate_gang


@dataclass(frozen=True, slots=True)
class Case:
    seed: int
    index: int
    namespace: str
    prefix: str  # of the case's node names; the value of their case label
    cluster: ClusterSpec
    gang: GangSpec

    @property
    def name(self) -> str:
        return f"seed {self.seed} case {self.index}"

    @property
    def summary(self) -> str:
        nodes = self.cluster.nodes
        used = len({p["spec"]["nodeName"] for p in self.cluster.bound})
        return f"{len(nodes)} nodes ({used} partly used); {self.gang.summary}"


def generate_case(seed: int, index: int) -> Case:
    """The same case for the same seed and number, on any machine."""
    rng = random.Random(f"toposched-sidebyside/{seed}/{index}")
    prefix = f"s{seed}c{index}"
    namespace = f"side-{seed}-{index}"
    cluster = generate_cluster(rng, prefix, namespace)
    return Case(seed, index, namespace, prefix, cluster, generate_gang(rng, cluster, namespace))
