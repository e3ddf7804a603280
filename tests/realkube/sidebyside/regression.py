"""A side-by-side case as a conformance case (tests/conformance/cases/kube, README there): the
cluster kube-scheduler saw, the gang as stored, and what kube-scheduler did as expectations.

    python -m tests.realkube.sidebyside.regression SEED CASE ID "DESCRIPTION" [--nodes]

runs the case once more against kube-scheduler and writes ``cases/kube/<ID>.json``. Expected:
every keyed group's pods in one domain of its key, each pod in the domain kube-scheduler chose
(``--nodes``: on the nodes it chose, for a case whose nodes are no tie), and the pods it left
pending; a gang it refused entirely is expected unschedulable, naming the number of placements
(or that there is none).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tests.realkube.binaries import find_binaries
from tests.realkube.sidebyside.api import AdminApi
from tests.realkube.sidebyside.batch import RUNS, side_by_side
from tests.realkube.sidebyside.cases import Case, generate_case
from tests.realkube.sidebyside.compare import BOTH_REFUSE, RACED, SAME, TIE, all_documents, judge
from tests.realkube.sidebyside.run import Observed, clean_up, run_case

from toposched.wire.scheduling import NO_FEASIBLE_PLACEMENTS

CASES = Path(__file__).resolve().parents[2] / "conformance" / "cases" / "kube"
VERSION = "v1.37.2"
SERVER_FIELDS = ("managedFields", "uid", "resourceVersion", "generation", "finalizers", "ownerReferences")
PLACEMENTS = re.compile(r"0/(\d+) placements are available")


def conformance_case(
    case: Case, observed: Observed, case_id: str, description: str, *, exact_nodes: bool
) -> dict[str, Any]:
    labels = {
        i["metadata"]["name"]: i["metadata"].get("labels") or {} for i in observed.dump if i["kind"] == "Node"
    }
    placed = {leaf.name: leaf for unit in case.gang.units for leaf in unit.leaves}
    ours = {p: t for leaf in placed.values() for p, t in zip(leaf.pods, leaf.toposched_pods, strict=True)}
    assignments: list[dict[str, Any]] = []
    same: list[dict[str, Any]] = []
    pending: list[str] = []
    for unit in case.gang.units:
        for leaf in unit.leaves:
            on = {p: observed.nodes.get(p) for p in leaf.pods}
            pending += [ours[p] for p, node in on.items() if not node]
            used = sorted({n for n in on.values() if n})
            if not used:
                continue
            inside = used if exact_nodes else _domain(unit.scopes, leaf.name, labels, used[0])
            assignments.append({"pods": [ours[p] for p, n in on.items() if n], "nodes": inside})
        for scope in unit.scopes:
            pods = [ours[p] for name in scope.leaves for p in placed[name].pods if observed.nodes.get(p)]
            if pods:
                same.append({"key": scope.key, "pods": pods})
    expect: dict[str, Any] = {"assignments": assignments, "sameDomain": same, "pending": sorted(pending)}
    if not assignments:
        counts = {
            m.group(0) for c in observed.conditions.values() if (m := PLACEMENTS.search(c.get("message", "")))
        }
        counts |= {
            NO_FEASIBLE_PLACEMENTS
            for c in observed.conditions.values()
            if NO_FEASIBLE_PLACEMENTS in c.get("message", "")
        }
        expect = {"unschedulable": True, "reasonFacts": sorted(counts)[:1], "pending": sorted(pending)}
    return {
        "id": case_id,
        "source": f"sidebyside: bench/vs_kube_scheduler.py --seed {case.seed} --only {case.index} ({VERSION})",
        "upstream": {
            "repo": "kubernetes/kubernetes",
            "version": VERSION,
            "generator": "tests/realkube/sidebyside",
            "seed": case.seed,
            "case": case.index,
        },
        "kind": "placement",
        "description": description,
        "nodes": [_node(i, observed.dump) for i in observed.dump if i["kind"] == "Node"],
        "input": {"objects": [_stored(o) for o in all_documents(observed)]},
        "expect": expect,
    }


def _domain(
    scopes: Sequence[Any], leaf: str, labels: Mapping[str, Mapping[str, str]], node: str
) -> list[str]:
    """The nodes sharing ``node``'s value of every key of the groups ``leaf`` is in."""
    wanted = {s.key: labels[node].get(s.key) for s in scopes if leaf in s.leaves}
    return sorted(n for n, own in labels.items() if all(own.get(k) == v for k, v in wanted.items()))


def _node(item: Mapping[str, Any], dump: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    name = item["metadata"]["name"]
    status, spec = item.get("status", {}), item.get("spec", {})
    ready = next(
        (c["status"] == "True" for c in status.get("conditions") or () if c["type"] == "Ready"), True
    )
    out: dict[str, Any] = {
        "name": name,
        "labels": dict(item["metadata"].get("labels") or {}),
        "allocatable": dict(status.get("allocatable") or {}),
    }
    running = [_requests(p) for p in dump if p["kind"] == "Pod" and p["spec"].get("nodeName") == name]
    if running:
        out["used"] = running
    if spec.get("taints"):
        out["taints"] = [{k: t[k] for k in ("key", "value", "effect") if t.get(k)} for t in spec["taints"]]
    if not ready:
        out["ready"] = False
    if spec.get("unschedulable"):
        out["unschedulable"] = True
    return out


def _requests(pod: Mapping[str, Any]) -> dict[str, str]:
    (container,) = pod["spec"]["containers"]
    return dict((container.get("resources") or {}).get("requests") or {})


def _stored(obj: Mapping[str, Any]) -> dict[str, Any]:
    """An object as stored, without the fields only the server's bookkeeping reads."""
    metadata = {k: v for k, v in obj["metadata"].items() if k not in SERVER_FIELDS}
    return {k: v for k, v in obj.items() if k != "status"} | {"metadata": metadata}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("case", type=int)
    parser.add_argument("id")
    parser.add_argument("description")
    parser.add_argument("--nodes", action="store_true", help="expect kube-scheduler's very nodes")
    args = parser.parse_args()
    case = generate_case(args.seed, args.case)
    with side_by_side(find_binaries()) as side:
        api = AdminApi(side.plane)
        for _ in range(RUNS):  # a run whose first cycle raced is not kube-scheduler's answer
            observed = run_case(api, case, side.scheduler.process.log)
            verdict = judge(case, observed)
            clean_up(api, case)
            if verdict.outcome != RACED:
                break
        api.close()
    if verdict.outcome not in (SAME, TIE, BOTH_REFUSE) or (args.nodes and verdict.outcome != SAME):
        print(
            f"not written: the run was {verdict.outcome} ({verdict.detail}); --nodes needs {SAME}",
            file=sys.stderr,
        )
        return 1
    data = conformance_case(case, observed, args.id, args.description, exact_nodes=args.nodes)
    path = CASES / f"{args.id}.json"
    path.write_text(json.dumps(data, indent=2) + "\n")
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
