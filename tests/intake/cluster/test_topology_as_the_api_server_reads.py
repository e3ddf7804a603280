"""Kueue and KAI Topology objects are read as the API server reads them (``fieldValidation=Strict``
against the installed CRDs: Kueue v0.19's, KAI's), at the fields it names. Each row was found by
the differential validation against kube-apiserver v1.37.2 (``python -m tests.realkube.diffval``,
seeds 231 and 232): the server refused the object at the field named, toposched took it, named
another field or refused a topology the CRDs allow."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.intake.cluster import topologies_from_documents
from toposched.model import TopologySpecError

KUEUE = "kueue.x-k8s.io/v1beta2"
KAI = "kai.scheduler/v1alpha1"
RACK, HOST = "example.com/rack", "kubernetes.io/hostname"


def topology(api_version: str, levels: object = ({"nodeLabel": RACK},), **fields: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": "Topology",
        "metadata": {"name": "t"},
        "spec": {"levels": list(levels) if isinstance(levels, tuple) else levels},
    }
    obj.update(fields)
    return obj


def sixteen(api_version: str, count: int = 16) -> dict[str, Any]:
    return topology(api_version, tuple({"nodeLabel": f"example.com/l{i}"} for i in range(count)))


ROWS: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "kueue-level-alias",
        topology(KUEUE, ({"nodeLabel": RACK, "alias": "rack"},)),
        "spec.levels[0].alias",
        'strict decoding error: unknown field "spec.levels[0].alias"',
    ),
    (
        "unknown-spec-field",
        topology(KAI, spec={"levels": [{"nodeLabel": RACK}], "x-y": 1}),
        "spec.x-y",
        'unknown field "spec.x-y"',
    ),
    ("unknown-root-field", topology(KUEUE, bogus=1), "bogus", 'unknown field "bogus"'),
    (
        "unknown-metadata-field",
        topology(KUEUE, metadata={"name": "t", "bogus": 1}),
        "metadata.bogus",
        'unknown field "metadata.bogus"',
    ),
    (
        "node-label-a-mapping",
        topology(KAI, ({"nodeLabel": RACK}, {"nodeLabel": {"a": 1}})),
        "spec.levels[1].nodeLabel.a",
        'unknown field "spec.levels[1].nodeLabel.a"',
    ),
    (
        "metadata-namespace-a-number",
        topology(KUEUE, metadata={"name": "t", "namespace": 7}),
        "metadata.namespace",
        "json: cannot unmarshal number into Go struct field ObjectMeta.namespace of type string",
    ),
    (
        "metadata-labels-an-array",
        topology(KUEUE, metadata={"name": "t", "labels": {"a": ["v"]}}),
        "metadata.labels",
        "cannot unmarshal array into Go struct field ObjectMeta.labels of type string",
    ),
    ("name-not-a-subdomain", topology(KAI, metadata={"name": "9a_"}), "metadata.name", "RFC 1123 subdomain"),
    (
        "label-key-bad",
        topology(KAI, metadata={"name": "t", "labels": {"-rack": "v"}}),
        "metadata.labels",
        "name part must consist of",
    ),
    (
        "spec-a-string",
        topology(KUEUE, spec="text"),
        "spec",
        'spec in body must be of type object: "string"',
    ),
    (
        "kai-spec-missing",
        {"apiVersion": KAI, "kind": "Topology", "metadata": {"name": "t"}},
        "spec",
        "Required value",
    ),
    (
        "level-a-boolean",
        topology(KAI, ({"nodeLabel": RACK}, True)),
        "spec.levels[1]",
        'spec.levels[1] in body must be of type object: "boolean"',
    ),
    (
        "level-twice",
        topology(KUEUE, ({"nodeLabel": RACK}, {"nodeLabel": RACK})),
        "spec.levels",
        "Invalid value: must be unique",
    ),
    (
        "kai-level-twice-with-its-alias",
        topology(KAI, ({"nodeLabel": RACK, "alias": "rack"}, {"nodeLabel": RACK, "alias": "rack"})),
        "spec.levels",
        "Invalid value: nodeLabel must be unique",
    ),
    (
        "hostname-first",
        topology(KAI, ({"nodeLabel": HOST}, {"nodeLabel": RACK})),
        "spec.levels",
        "the kubernetes.io/hostname label can only be used at the lowest level of topology",
    ),
    ("seventeen-levels", sixteen(KUEUE, 17), "spec.levels", "Too many: 17: must have at most 16 items"),
]


@pytest.mark.parametrize(("obj", "path", "message"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS])
def test_the_server_refuses_it_and_so_does_toposched(obj: dict[str, Any], path: str, message: str) -> None:
    with pytest.raises(TopologySpecError) as caught:
        topologies_from_documents([obj])
    problems = caught.value.problems
    assert [p.path for p in problems] == [path], problems
    assert message in problems[0].message


@pytest.mark.parametrize("api_version", ["kueue.x-k8s.io/v1beta1", KUEUE, KAI])
def test_sixteen_levels_are_read(api_version: str) -> None:
    """The Topology CRDs take 16 levels (Kueue's bound was 8 before v0.15)."""
    (read,) = topologies_from_documents([sixteen(api_version)])
    assert len(read.levels) == 16


def test_a_cluster_scoped_topology_keeps_no_namespace() -> None:
    """The API server drops a cluster-scoped object's namespace before validating it."""
    (read,) = topologies_from_documents([topology(KAI, metadata={"name": "t", "namespace": "a_b"})])
    assert read.name == "t"
