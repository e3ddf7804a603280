"""``--mode sync`` remembers what it applied: a second step sends nothing that did not change.

``service`` is the service's store the sync mode reads, also used by the tests on the real API
server (``test_real_controller``), where the objects are applied, accepted by the installed CRDs
(the same schemas as ../shared/schemas), applied again by a restarted replica without conflict,
and a changed pool Topology is deleted and written again."""

from __future__ import annotations

from pathlib import Path

import yaml
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.sync import SyncController
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "osmo"
CASE = "1-single-nvl72-rack"


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


def test_a_second_step_sends_nothing_that_did_not_change() -> None:
    api = FakeKubeApi()
    sync = SyncController(api, service())
    sync.step()
    writes = len([c for c in api.calls if c[0] == "apply"])
    again = sync.step()
    assert again.applied == () and again.deleted == ()
    assert len([c for c in api.calls if c[0] == "apply"]) == writes
