"""The KEP-2724 seed's YAML examples (fixtures/kep/, copied verbatim, notes in each file's header)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.frontends.kueue import podset_infos
from toposched.frontends.loading import load_workload
from toposched.model import Gang, Mode, SliceLayer, WorkloadSpecError

from .helpers import BLOCK, DATACENTER, HOST, KEP, KEP_HOST, RACK, problems_of

FIXTURES = Path(__file__).parent / "fixtures" / "kep"


def read(name: str) -> str:
    return (FIXTURES / f"{name}.yaml").read_text(encoding="utf-8")


def load(name: str, text: str | None = None) -> Gang:
    return load_workload(text if text is not None else read(name), KEP, source=f"{name}.yaml")


def summary(gang: Gang) -> list[tuple[str, int, Mode, str | None, tuple[SliceLayer, ...], str | None]]:
    return [(i.name, i.count, i.mode, i.level, i.slices, i.group) for i in podset_infos(gang)]


def test_job_as_written_lacks_a_name() -> None:
    problems = problems_of(read("job-required-rack"), KEP)
    assert [(p.path, p.message) for p in problems] == [("metadata.name", "is missing")]


def test_job_with_a_name() -> None:
    text = read("job-required-rack").replace("metadata:\n", "metadata:\n  name: tas-example-job\n", 1)
    gang = load("job-required-rack", text)
    assert (gang.name, gang.namespace) == ("tas-example-job", "tas-example-job")
    assert summary(gang) == [("main", 10, Mode.REQUIRED, RACK, (), None)]
    assert gang.root.children[0].pods[0].requests["cpu"] == 4000


def test_multi_level_job_as_written_is_rejected_for_name_and_trailing_comma() -> None:
    problems = problems_of(read("job-multi-level"), DATACENTER)
    paths = [p.path for p in problems]
    assert "metadata.name" in paths
    (json_problem,) = [p for p in problems if "not valid JSON" in p.message]
    assert json_problem.path == (
        'spec.template.metadata.annotations["kueue.x-k8s.io/podset-slice-required-topology-constraints"]'
    )
    assert "trailing commas" in json_problem.hint


def test_multi_level_job_fixed() -> None:
    text = (
        read("job-multi-level")
        .replace("metadata:\n", "metadata:\n  name: multi\n", 1)
        .replace('"size": "16"},', '"size": "16"}')
    )
    gang = load_workload(text, DATACENTER)
    (main,) = gang.leaves()
    assert (main.required, len(main.pods)) == ("cloud.provider.com/datacenter", 128)
    assert main.slices == (
        SliceLayer("cloud.provider.com/aizone", 64),
        SliceLayer("cloud.provider.com/block", 32),
        SliceLayer("cloud.provider.com/rack", 16),
    )


def test_jobset_required_leader_preferred_workers() -> None:
    gang = load("jobset-required-preferred")
    assert summary(gang) == [
        ("leader", 1, Mode.REQUIRED, RACK, (), None),
        ("workers", 4, Mode.PREFERRED, RACK, (), None),
    ]
    assert [p.name for p in gang.root.children[1].pods] == [
        "tas-example-jobset-workers-0-0",
        "tas-example-jobset-workers-0-1",
        "tas-example-jobset-workers-1-0",
        "tas-example-jobset-workers-1-1",
    ]


def test_jobset_slices_as_written_breaks_the_every_podset_rule() -> None:
    problems = problems_of(read("jobset-slices"), KEP)
    assert len(problems) == 1
    assert problems[0].path == "spec.replicatedJobs[1].template.spec.template.metadata.annotations"
    assert 'PodSet "workers"' in problems[0].message and 'PodSet "leader"' in problems[0].message


def test_jobset_slices_with_a_level_on_the_workers() -> None:
    text = read("jobset-slices").replace(
        "              kueue.x-k8s.io/podset-slice-required-topology:",
        f"              kueue.x-k8s.io/podset-required-topology: {BLOCK}\n"
        "              kueue.x-k8s.io/podset-slice-required-topology:",
    )
    gang = load("jobset-slices", text)
    assert summary(gang)[1] == ("workers", 8, Mode.REQUIRED, BLOCK, (SliceLayer(KEP_HOST, 4),), None)


def test_jobset_slices_without_size_default_to_parallelism() -> None:
    text = read("jobset-two-level").replace("              kueue.x-k8s.io/podset-slice-size: 4\n", "")
    assert "kueue.x-k8s.io/podset-slice-size" not in text
    assert summary(load("jobset-two-level", text))[1][4] == (SliceLayer(KEP_HOST, 4),)


def test_jobset_two_level() -> None:
    assert summary(load("jobset-two-level")) == [
        ("leader", 1, Mode.REQUIRED, BLOCK, (), None),
        ("workers", 8, Mode.PREFERRED, BLOCK, (SliceLayer(KEP_HOST, 4),), None),
    ]


def test_lws_leader_and_workers_grouped_per_replica() -> None:
    gang = load("lws-group")
    assert [(g.name, g.required, [c.name for c in g.children]) for g in gang.root.children] == [
        ("lws-group-0", KEP_HOST, ["leader-0", "worker-0"]),
        ("lws-group-1", KEP_HOST, ["leader-1", "worker-1"]),
    ]
    workers = gang.root.children[1].children[1]
    assert [(p.name, p.index) for p in workers.pods] == [
        ("tas-example-lws-1-1", 0),
        ("tas-example-lws-1-2", 1),
    ]


def test_lws_index_order_without_group() -> None:
    gang = load("lws-index-order")
    assert summary(gang) == [
        ("leader-0", 1, Mode.UNCONSTRAINED, None, (), None),
        ("worker-0", 2, Mode.UNCONSTRAINED, None, (), None),
        ("leader-1", 1, Mode.UNCONSTRAINED, None, (), None),
        ("worker-1", 2, Mode.UNCONSTRAINED, None, (), None),
    ]
    # worker-index labels 1..2 minus the webhook's pod-index-offset 1
    assert [(p.name, p.index) for p in gang.root.children[1].pods] == [
        ("tas-example-lws-0-1", 0),
        ("tas-example-lws-0-2", 1),
    ]


def test_mpijob_run_launcher_as_worker() -> None:
    gang = load("mpijob-launcher-as-worker")
    assert summary(gang) == [
        ("launcher", 1, Mode.UNCONSTRAINED, None, (), None),
        ("worker", 2, Mode.UNCONSTRAINED, None, (), None),
    ]
    assert [(p.name, p.index) for p in gang.root.children[1].pods] == [("pi-worker-0", 0), ("pi-worker-1", 1)]


def test_every_fixture_is_either_compiled_or_rejected_cleanly() -> None:
    for path in sorted(FIXTURES.glob("*.yaml")):
        try:
            load_workload(path.read_text(encoding="utf-8"), KEP if "multi" not in path.name else DATACENTER)
        except WorkloadSpecError as exc:
            assert exc.problems, path.name


@pytest.mark.parametrize("level", [HOST, "cloud.provider.com/topology-zone"])
def test_lws_group_level_outside_the_topology_is_rejected(level: str) -> None:
    text = read("lws-group").replace(KEP_HOST, level)
    problems = problems_of(text, KEP)
    assert {p.path for p in problems} == {
        'spec.leaderWorkerTemplate.leaderTemplate.metadata.annotations["kueue.x-k8s.io/podset-required-topology"]',
        'spec.leaderWorkerTemplate.workerTemplate.metadata.annotations["kueue.x-k8s.io/podset-required-topology"]',
    }
    assert all(level in p.message and "kep" in p.message for p in problems)
