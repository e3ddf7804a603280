"""``--mode sync``: KAI Topologies from pools, PodGroups of submitted OSMO workflows and Grove
ClusterTopologies, written by server-side apply as ``toposched``; every object validates against
its CRD schema in ../shared/schemas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs among the test dependencies
import pytest
import yaml
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.kubeapi import GROVE_CLUSTER_TOPOLOGIES, KAI_PODGROUPS, KAI_TOPOLOGIES, Resource
from toposched.controller.sync import SyncController
from toposched.frontends.cluster import load_cluster
from toposched.frontends.parse import parse_documents
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "osmo"
SCHEMAS = ROOT.parent / "shared" / "schemas"
CASE = "1-single-nvl72-rack"


def schema(path: Path) -> dict[str, Any]:
    if not path.is_file():
        pytest.skip(f"no {path}")
    crd = yaml.safe_load(path.read_text(encoding="utf-8"))
    version = next(v for v in crd["spec"]["versions"] if v.get("served") and v.get("storage", True))
    return dict(version["schema"]["openAPIV3Schema"])


SCHEMA_OF = {
    KAI_TOPOLOGIES.plural + KAI_TOPOLOGIES.group: SCHEMAS / "kai" / "kai.scheduler_topologies.yaml",
    KAI_PODGROUPS.plural + KAI_PODGROUPS.group: SCHEMAS / "kai" / "scheduling.run.ai_podgroups.yaml",
    GROVE_CLUSTER_TOPOLOGIES.plural + GROVE_CLUSTER_TOPOLOGIES.group: SCHEMAS
    / "grove"
    / "clustertopologies.grove.io.multi-topology.yaml",
}


def stored(api: FakeKubeApi, resource: Resource) -> list[dict[str, Any]]:
    return [
        o
        for (plural, _, _), o in sorted(api.objects.items())
        if plural == resource.plural and o.get("apiVersion", "").startswith(resource.group)
    ]


def service(namespace: str = "osmo-workflows") -> Scheduler:
    """The service's store after the OSMO example's pool and workflow were submitted, with the
    pool's backend (and so its KAI Topology's name) in ``namespace``."""
    scheduler = Scheduler(MemoryStore(), ManualClock(1000.0))

    def read(suffix: str) -> str:
        return (
            (EXAMPLES / f"{CASE}.{suffix}.yaml")
            .read_text(encoding="utf-8")
            .replace("osmo-workflows", namespace)
        )

    scheduler.import_cluster(load_cluster(read("cluster")))
    pool = yaml.safe_load(read("pool"))
    scheduler.put_pool(pool["name"], topology_keys=pool["topology_keys"], backend=pool["backend"])
    workflow = parse_documents((EXAMPLES / f"{CASE}.workflow.yaml").read_text(encoding="utf-8"), source="wf")
    scheduler.submit(workflow, owner="alice")
    return scheduler


def test_sync_writes_every_object_by_server_side_apply_and_each_validates() -> None:
    api = FakeKubeApi()
    report = SyncController(api, service()).step()
    assert report.skipped == ()
    kinds = {(r, len(stored(api, r))) for r in (KAI_TOPOLOGIES, KAI_PODGROUPS, GROVE_CLUSTER_TOPOLOGIES)}
    assert all(count >= 1 for _, count in kinds), kinds
    for resource in (KAI_TOPOLOGIES, KAI_PODGROUPS, GROVE_CLUSTER_TOPOLOGIES):
        for obj in stored(api, resource):
            assert obj["metadata"]["managedFields"] == [{"manager": "toposched", "operation": "Apply"}]
            clean = {k: v for k, v in obj.items() if k != "metadata"}
            clean["metadata"] = {k: v for k, v in obj["metadata"].items() if k not in ("managedFields",)}
            jsonschema.validate(clean, schema(SCHEMA_OF[resource.plural + resource.group]))
    (topology,) = stored(api, KAI_TOPOLOGIES)
    assert topology["metadata"]["name"] == "osmo-pool-osmo-workflows-my-pool-topology"


def test_a_second_step_sends_nothing_that_did_not_change() -> None:
    api = FakeKubeApi()
    sync = SyncController(api, service())
    sync.step()
    writes = len([c for c in api.calls if c[0] == "apply"])
    again = sync.step()
    assert again.applied == () and again.deleted == ()
    assert len([c for c in api.calls if c[0] == "apply"]) == writes


def test_a_changed_pool_topology_is_deleted_and_written_again() -> None:
    api = FakeKubeApi()
    scheduler = service()
    stale = {
        "apiVersion": "kai.scheduler/v1alpha1",
        "kind": "Topology",
        "metadata": {
            "name": "osmo-pool-osmo-workflows-my-pool-topology",
            "labels": {"osmo.namespace": "osmo-workflows"},
        },
        "spec": {"levels": [{"nodeLabel": "topology.kubernetes.io/zone"}]},
    }
    api.put(KAI_TOPOLOGIES, stale)
    report = SyncController(api, scheduler).step()
    assert report.deleted == ("topologies/osmo-pool-osmo-workflows-my-pool-topology",)
    (topology,) = stored(api, KAI_TOPOLOGIES)
    assert len(topology["spec"]["levels"]) == 4
