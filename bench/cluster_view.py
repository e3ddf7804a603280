"""The cluster view a page polls (``GET /v1/cluster/view``): built, encoded and hashed, against
the same poll answered from the ``ViewCache`` while the store's version is unchanged.

On ``bench/place.py``'s cluster (4 GPUs a node, about half in use by running pods), for each
size the view of an anonymous viewer is built (``build_view``), encoded (``json_bytes``) and
hashed for its ETag (``CachedView.of``), as a poll after a change does; then the cached poll
(``ViewCache.get`` at the same version). CPU-time medians in milliseconds.

Run: python bench/cluster_view.py [--sizes 1000,10000] [--runs 5] [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toposched.api.clusterview import build_view
from toposched.api.offload import json_bytes
from toposched.api.viewcache import CachedView, ViewCache
from toposched.model import Topology

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the placement benchmark's cluster
from place import LEVELS, cluster, median_ms


def report(size: int, runs: int) -> None:
    nodes, pods = cluster(size)
    topologies = [Topology.create("bench", LEVELS)]
    cache = ViewCache()

    def rebuilt() -> CachedView:
        view = build_view(nodes, topologies, None, [], {}, pods, None)
        built = CachedView.of(json_bytes(view))
        cache.put((None, None), 1, built)
        return built

    miss = median_ms(rebuilt, runs)
    hit = median_ms(lambda: cache.get((None, None), 1), runs)
    print(f"  {size:>7} {miss:12.1f} ms {hit:12.4f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="1,000 nodes, one run: a smoke check")
    args = parser.parse_args()
    sizes, runs = ([1000], 1) if args.quick else ([int(n) for n in args.sizes.split(",")], args.runs)
    print(f"CPU medians of {runs} run(s)")
    print(f"  {'nodes':>7} {'rebuilt':>15} {'cached':>15}")
    for size in sizes:
        report(size, runs)


if __name__ == "__main__":
    main()
