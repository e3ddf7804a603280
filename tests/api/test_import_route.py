"""``POST /v1/nodes/import``: merged per node by default; ``?replace=true`` answers what it removed."""

from __future__ import annotations

from tests.api.conftest import ADMIN, Api, bearer
from tests.api.specs import cluster_yaml, node_names

YAML = {**bearer(ADMIN), "content-type": "application/yaml"}


def test_merge_keeps_other_nodes_and_replace_reports_what_it_removed(api: Api) -> None:
    small = cluster_yaml(blocks=1, racks=1, nodes=2)
    merged = api.client.post("/v1/nodes/import", content=small, headers=YAML)
    assert merged.status_code == 200, merged.text
    assert merged.json()["removed_nodes"] == []
    assert len(api.store.get_nodes()) == len(node_names())
    replaced = api.client.post("/v1/nodes/import?replace=true", content=small, headers=YAML)
    assert replaced.status_code == 200, replaced.text
    kept = set(node_names(1, 1, 2))
    assert replaced.json()["removed_nodes"] == sorted(set(node_names()) - kept)
    assert {n.name for n in api.store.get_nodes()} == kept
