"""``toposched compile INPUT --to TARGET``: the target's objects on standard output as a YAML
stream, each constraint the target cannot express as a ``warning:`` line on standard error, and
exit 2 with one line per problem for bad input or options."""

from __future__ import annotations

import pytest
import yaml

from toposched.emit.kueue.intent import NO_QUEUE
from toposched.emit.targets import TARGETS

from .conftest import EXAMPLES, Invoke

OSMO = EXAMPLES / "osmo"
KAI = EXAMPLES / "kai"
ZONE, CLIQUE = "topology.kubernetes.io/zone", "nvidia.com/gpu-clique"
SAME_ZONE = (
    OSMO / "3-multiple-nvl72-same-zone.workflow.yaml",
    "--pool",
    OSMO / "3-multiple-nvl72-same-zone.pool.yaml",
)


@pytest.mark.parametrize("target", list(TARGETS))
def test_every_target_writes_the_osmo_use_case_in_full(invoke: Invoke, target: str) -> None:
    # Two groups in one zone: kube-scheduler says it with a CompositePodGroup (v1alpha3 only).
    version = ("--api-version", "scheduling.k8s.io/v1alpha3") if target == "kube" else ()
    run = invoke("compile", *SAME_ZONE, "--to", target, *version)
    assert run.exit_code == 0, run.stderr
    # Every constraint is written; what is said is only about the pool's (KAI) queue and, for
    # kube-scheduler, the OSMO priority (a PodGroup's comes from a PriorityClass).
    said = [line for line in run.stderr.splitlines() if not (target == "kube" and "priority" in line)]
    assert all("queue" in line for line in said)
    kinds = [d["kind"] for d in yaml.safe_load_all(run.stdout)]
    assert kinds[0] in ("Topology", "ClusterTopology", "Workload") and len(kinds) >= 2


def test_the_kube_target_in_v1beta1_says_what_needs_a_composite_pod_group(invoke: Invoke) -> None:
    run = invoke("compile", *SAME_ZONE, "--to", "kube")
    assert run.exit_code == 0, run.stderr
    assert "needs a CompositePodGroup (scheduling.k8s.io/v1alpha3)" in run.stderr


def test_kueue_target_writes_the_zone_and_its_gpu_cliques_as_slices(invoke: Invoke) -> None:
    run = invoke("compile", *SAME_ZONE, "--to", "kueue")
    topology, job = yaml.safe_load_all(run.stdout)
    assert topology["metadata"]["name"] == "osmo-pool-osmo-workflows-my-pool-topology"
    annotations = job["spec"]["template"]["metadata"]["annotations"]
    assert annotations == {
        "kueue.x-k8s.io/podset-required-topology": ZONE,
        "kueue.x-k8s.io/podset-slice-required-topology": CLIQUE,
        "kueue.x-k8s.io/podset-slice-size": "4",
    }


def test_what_the_target_cannot_express_is_a_warning(invoke: Invoke) -> None:
    run = invoke(
        "compile", KAI / "tfjob-segments.yaml", "--cluster", KAI / "tfjob-cluster.yaml", "--to", "kueue"
    )
    assert run.exit_code == 0
    assert run.stderr.splitlines() == [
        "warning: group pg-distributed-training-tfjob-example: Kueue cannot constrain several PodSets "
        "together; required zone left out",
        f"warning: {NO_QUEUE}",
    ]
    (_, jobset) = yaml.safe_load_all(run.stdout)
    assert [job["name"] for job in jobset["spec"]["replicatedJobs"]] == [
        "chief",
        "ps",
        *(f"worker-{i}" for i in range(4)),
    ]


def test_without_to_the_front_end_s_own_objects_are_printed(invoke: Invoke) -> None:
    run = invoke("compile", KAI / "podgroup-pods.yaml", "--kind", "kai")
    assert run.exit_code == 0, run.stderr
    assert [d["kind"] for d in yaml.safe_load_all(run.stdout)] == ["PodGroup", "Pod", "Pod", "Pod"]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("--to", "slurm"), "--to: unknown target 'slurm' (use one of kai, kueue, grove, kube)"),
        (("--to", "kai", "--kind", "Gadget"), "--kind: unknown kind hint 'Gadget'"),
        (
            ("--to", "kube", "--queue", "team-a"),
            "--queue: is only for a target with queues (use it with --to grove, --to kai, --to kueue)",
        ),
        (("--to", "kueue", "--queue", "Team_A"), "--queue: 'Team_A' is not a valid name"),
    ],
    ids=["unknown-target", "unknown-kind", "queue-without-queues", "queue-not-a-name"],
)
def test_bad_options_exit_2(invoke: Invoke, args: tuple[str, ...], line: str) -> None:
    run = invoke("compile", *SAME_ZONE, *args)
    assert run.exit_code == 2 and line in run.stderr and "Traceback" not in run.stderr


def test_an_osmo_workflow_without_its_pool_names_the_option(invoke: Invoke) -> None:
    run = invoke("compile", OSMO / "1-single-nvl72-rack.workflow.yaml", "--to", "kai")
    assert run.exit_code == 2 and run.stderr.startswith("--pool: is missing")


GROVE = EXAMPLES / "grove"
GROVE_INPUT = (GROVE / "llama-405b-gb200.yaml", "--topology", GROVE / "topologies.yaml")


def _queue_of(target: str, objects: list[dict[str, object]]) -> set[str]:
    """Every queue the target's objects name."""
    found: set[str] = set()
    for obj in objects:
        labels = obj.get("metadata", {}).get("labels") or {}  # type: ignore[attr-defined]
        found |= {v for k, v in labels.items() if k in ("kueue.x-k8s.io/queue-name", "kai.scheduler/queue")}
        if obj["kind"] == "PodGroup":
            found.add(obj["spec"]["queue"])  # type: ignore[index]
    return found


def test_a_kai_queue_goes_to_kai_and_grove(invoke: Invoke) -> None:
    for target in ("kai", "grove"):
        run = invoke("compile", *GROVE_INPUT, "--to", target)
        assert run.exit_code == 0, run.stderr
        assert _queue_of(target, list(yaml.safe_load_all(run.stdout))) == {"training"}
        assert "queue" not in run.stderr


def test_a_kai_queue_is_no_local_queue(invoke: Invoke) -> None:
    run = invoke("compile", *GROVE_INPUT, "--to", "kueue")
    assert run.exit_code == 0, run.stderr
    assert _queue_of("kueue", list(yaml.safe_load_all(run.stdout))) == set()
    assert "warning: the input's KAI queue 'training' is no Kueue LocalQueue: left out" in run.stderr
    assert NO_QUEUE in run.stderr


def test_a_local_queue_is_no_kai_queue(invoke: Invoke) -> None:
    job = (EXAMPLES / "kueue" / "job-rack.yaml", "--cluster", EXAMPLES / "clusters" / "h100-small.yaml")
    run = invoke("compile", *job, "--topology", "default", "--to", "kai")
    assert run.exit_code == 0, run.stderr
    assert _queue_of("kai", list(yaml.safe_load_all(run.stdout))) == {"default-queue"}
    assert "the input's Kueue LocalQueue 'user-queue' is no KAI queue: default-queue written" in run.stderr
    run = invoke("compile", *job, "--topology", "default", "--to", "kube")
    assert "kube-scheduler has no queues: the input's Kueue LocalQueue 'user-queue' left out" in run.stderr


@pytest.mark.parametrize("target", ["kueue", "kai", "grove"])
def test_queue_option_names_the_queue(invoke: Invoke, target: str) -> None:
    run = invoke("compile", *GROVE_INPUT, "--to", target, "--queue", "team-a")
    assert run.exit_code == 0, run.stderr
    assert _queue_of(target, list(yaml.safe_load_all(run.stdout))) == {"team-a"}
    assert "queue" not in run.stderr


def test_an_osmo_pool_s_queue_is_a_kai_queue(invoke: Invoke) -> None:
    run = invoke("compile", *SAME_ZONE, "--to", "kai")
    podgroups = [d for d in yaml.safe_load_all(run.stdout) if d["kind"] == "PodGroup"]
    assert {p["spec"]["queue"] for p in podgroups} == {"osmo-pool-osmo-workflows-my-pool"}


def test_kai_default_queue_is_no_queue(invoke: Invoke) -> None:
    cluster = ("--cluster", KAI / "zone-ab-cluster.yaml")
    run = invoke("compile", KAI / "podgroup-pods.yaml", "--kind", "kai", *cluster, "--to", "kueue")
    assert run.exit_code == 0, run.stderr
    (_, job) = yaml.safe_load_all(run.stdout)
    assert "labels" not in job["metadata"]
    assert run.stderr.splitlines()[-1] == f"warning: {NO_QUEUE}"


def test_written_pods_keep_the_input_s_containers(invoke: Invoke) -> None:
    """The Job's container (image, args) goes to the KAI target's Job template, with the GPU limit
    the API server requires for a GPU request and KAI's scheduler name; the Job's scheduling
    fields (Kueue's annotations and queue) do not."""
    job = EXAMPLES / "kueue" / "job-rack.yaml"
    run = invoke(
        "compile", job, "--cluster", EXAMPLES.parent / "src/toposched/samples/cluster.yaml", "--to", "kai"
    )
    assert run.exit_code == 0, run.stderr
    (written,) = [d for d in yaml.safe_load_all(run.stdout) if d["kind"] == "Job"]
    assert written["spec"]["parallelism"] == written["spec"]["completions"] == 16
    template = written["spec"]["template"]
    assert "metadata" not in template  # KAI reads the Job's annotations, not the pods'
    (container,) = template["spec"]["containers"]
    assert (container["image"], container["args"]) == (
        "registry.k8s.io/e2e-test-images/agnhost:2.53",
        ["pause"],
    )
    assert container["resources"]["limits"] == {"nvidia.com/gpu": "4"}
    assert template["spec"]["restartPolicy"] == "Never"
    assert template["spec"]["schedulerName"] == "kai-scheduler"


def test_a_job_written_from_pods_restarts_never(invoke: Invoke) -> None:
    """KAI's pods restart Always (a pod's default), which a Job refuses: the Job says Never."""
    run = invoke(
        "compile", KAI / "podgroup-pods.yaml", "--cluster", KAI / "zone-ab-cluster.yaml", "--to", "kueue"
    )
    assert run.exit_code == 0, run.stderr
    jobset = next(d for d in yaml.safe_load_all(run.stdout) if d["kind"] == "JobSet")
    for job in jobset["spec"]["replicatedJobs"]:
        spec = job["template"]["spec"]["template"]["spec"]
        assert spec["restartPolicy"] == "Never"
        assert [c["image"] for c in spec["containers"]] == ["server"]
        assert "nodeName" not in spec  # a running pod's node is its own, not the template's
