"""How many single-pod hostname domains a v1beta2 TopologyAssignment holds within 1.5 MiB.

Three naming schemes: GKE pool style (``gke-cluster-pool-3-1f2e3d4c-x9z8``: 1000-node instance
groups, four per pool, a random 4-character node suffix), EC2 (``ip-10-1-2-3.ec2.internal``,
addresses drawn at random from a /13) and rack style (``r12-n07``, 16 nodes per rack). Two
orders: "aligned", where topology order is name order, and "scattered", where it is not: for
GKE and EC2 hosts land in 16-node racks at random (sorted within a rack, as Kueue sorts
assignments by full level path); for rack names the racks sit in blocks in random order.

Per scheme and order the script binary-searches the largest node count whose compact JSON
(as the API server stores it) is at most 1.5 MiB, checks the round trip at that count, and
prints it with the CPU time of one encode there (median of --runs) and the v1beta1 figure for
scale.

Run: python bench/topology_assignment.py [--runs N] [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import string
import time
from collections.abc import Callable
from typing import Any

from toposched.emit.kueue import from_v1beta2, to_v1beta1, to_v1beta2
from toposched.model import HOSTNAME, DomainCount, TopologyAssignment

LIMIT = 1_572_864  # 1.5 MiB
RACK_SIZE = 16
Names = Callable[[int, random.Random], list[str]]


def gke_names(n: int, rnd: random.Random) -> list[str]:
    """GKE pool style: 1000-node instance groups with an 8-hex hash, four groups per pool."""
    names: list[str] = []
    for group in range(-(-n // 1000)):
        group_hash = "".join(rnd.choices("0123456789abcdef", k=8))
        suffixes = rnd.sample(range(36**4), min(1000, n - len(names)))
        names += [f"gke-cluster-pool-{group // 4 + 1}-{group_hash}-{_base36(s, 4)}" for s in suffixes]
    return names


def ec2_names(n: int, rnd: random.Random) -> list[str]:
    """EC2 private DNS names of ``n`` distinct addresses drawn from 10.0.0.0/13."""
    return [f"ip-10-{a >> 16}-{(a >> 8) & 255}-{a & 255}.ec2.internal" for a in rnd.sample(range(1 << 19), n)]


def rack_names(n: int, rnd: random.Random) -> list[str]:
    """``r<rack>-n<node>`` with 16 nodes per rack."""
    del rnd
    return [f"r{i // RACK_SIZE + 1}-n{i % RACK_SIZE + 1:02d}" for i in range(n)]


def _base36(value: int, width: int) -> str:
    digits = string.digits + string.ascii_lowercase
    out = ""
    for _ in range(width):
        value, digit = divmod(value, 36)
        out = digits[digit] + out
    return out


def aligned(names: list[str], rnd: random.Random, scheme: str) -> list[str]:
    del rnd, scheme
    return sorted(names)


def scattered(names: list[str], rnd: random.Random, scheme: str) -> list[str]:
    """Topology order unrelated to names: racks filled at random (named racks shuffled whole)."""
    if scheme == "rack":
        racks = [names[i : i + RACK_SIZE] for i in range(0, len(names), RACK_SIZE)]
        rnd.shuffle(racks)
        return [name for rack in racks for name in sorted(rack)]
    shuffled = rnd.sample(names, len(names))
    return [name for i in range(0, len(shuffled), RACK_SIZE) for name in sorted(shuffled[i : i + RACK_SIZE])]


SCHEMES: dict[str, Names] = {"gke": gke_names, "ec2": ec2_names, "rack": rack_names}
ORDERS = {"aligned": aligned, "scattered": scattered}


def assignment(scheme: str, order: str, n: int) -> TopologyAssignment:
    rnd = random.Random(11)
    names = ORDERS[order](SCHEMES[scheme](n, rnd), rnd, scheme)
    return TopologyAssignment((HOSTNAME,), tuple(DomainCount((name,), 1) for name in names))


def json_size(obj: dict[str, Any]) -> int:
    return len(json.dumps(obj, separators=(",", ":")).encode())


def largest_fitting(
    encode: Callable[[TopologyAssignment], dict[str, Any]], scheme: str, order: str, high: int
) -> int:
    """Largest node count in [0, high] whose encoding fits in LIMIT (binary search to 1%)."""
    low = 0
    while high - low > max(1, low // 100):
        mid = (low + high) // 2
        if json_size(encode(assignment(scheme, order, mid))) <= LIMIT:
            low = mid
        else:
            high = mid
    return low


def encode_seconds(x: TopologyAssignment, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        to_v1beta2(x)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="small sizes: checks the script runs")
    args = parser.parse_args()
    high = 3_000 if args.quick else 400_000
    limit_note = f"limit {LIMIT} bytes" if not args.quick else "quick mode: searching up to 3000 nodes"
    print(f"v1beta2 TopologyAssignment, single-pod hostname domains, {limit_note}")
    print(f"{'scheme':6} {'order':10} {'v1beta2 nodes':>14} {'encode s':>9} {'v1beta1 nodes':>14}")
    for scheme in SCHEMES:
        for order in ORDERS:
            fits = largest_fitting(to_v1beta2, scheme, order, high)
            x = assignment(scheme, order, fits)
            encoded = to_v1beta2(x)
            if from_v1beta2(json.loads(json.dumps(encoded))) != x:
                raise SystemExit(f"{scheme} {order}: round trip changed the assignment")
            seconds = encode_seconds(x, args.runs)
            v1beta1 = largest_fitting(to_v1beta1, scheme, order, min(high, 100_000))
            print(f"{scheme:6} {order:10} {fits:>14,} {seconds:>9.3f} {v1beta1:>14,}")


if __name__ == "__main__":
    main()
