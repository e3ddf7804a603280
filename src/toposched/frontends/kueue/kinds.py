"""Job, JobSet, LeaderWorkerSet, MPIJob and PyTorchJob → Kueue PodSets, named as Kueue names them.

Pod names and index labels follow the owning controllers, so ranks come out as Kueue's topology
ungater computes them (reference kueue-tas.md §6).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toposched.frontends.kueue import keys
from toposched.frontends.kueue.fields import Problems, add_new, at, count, mapping, sequence, text
from toposched.frontends.kueue.podsets import PodSetSource, Workload
from toposched.model import PodBudget, Problem
from toposched.model.names import MAX_LABEL, metadata_problems
from toposched.model.object_meta import metadata_unknown_fields
from toposched.model.topology import MAX_NAME
from toposched.wire.batch import job_name_problems

Reader = Callable[[Mapping[str, Any], str, str, Problems, PodBudget], tuple[tuple[PodSetSource, ...], int]]


def read_workload(
    doc: Mapping[str, Any], base: str, reader: Reader, kind: str, problems: Problems, budget: PodBudget
) -> Workload:
    """Common metadata, then the kind's own PodSets, each booked against ``budget`` before its
    pods are named. ``base`` is the object's own field path (empty for a lone document,
    ``items[0]`` inside a List)."""
    metadata = mapping(doc.get("metadata"), at(base, "metadata"), problems, required=True)
    name = text(metadata.get("name"), at(base, "metadata.name"), problems, required=True)
    namespace = text(metadata.get("namespace"), at(base, "metadata.namespace"), problems) or "default"
    # a Job's name becomes its pods' job-name label value, so Kubernetes keeps it to 63 characters
    add_new(
        problems,
        metadata_problems(metadata, at(base, "metadata"), max_name=MAX_LABEL if kind == "Job" else MAX_NAME),
    )
    # a field ObjectMeta does not have is refused by the API server's strict decoding
    add_new(problems, metadata_unknown_fields(doc, str(doc.get("apiVersion") or ""), kind, base))
    if kind == "Job":  # its pods are <name>-<index>, a DNS label each (the API server's create rule)
        add_new(problems, job_name_problems(doc, base))
    spec = mapping(doc.get("spec"), at(base, "spec"), problems, required=True)
    podsets, units = reader(spec, name or kind.lower(), at(base, "spec"), problems, budget)
    labels = metadata.get("labels")  # checked by metadata_problems above
    queue = str(labels.get(keys.QUEUE_NAME) or "") if isinstance(labels, Mapping) else ""
    return Workload(name, namespace, kind, podsets, units, queue)


def _template(value: object, path: str, problems: Problems) -> Mapping[str, Any]:
    return mapping(value, path, problems, required=True)


def _booked(pods: int | None, path: str, budget: PodBudget, problems: Problems) -> int | None:
    """``pods`` once booked against the gang's pod limit; None (and a Problem) past it."""
    if pods is None:
        return None
    problem = budget.take(path, pods)
    if problem is not None:
        problems.append(problem)
        return None
    return pods


def _job_pods(spec: Mapping[str, Any], path: str, problems: Problems, budget: PodBudget) -> int | None:
    """Pods a Job runs at once, as Kueue counts them: parallelism, capped by completions."""
    parallelism = count(spec.get("parallelism"), at(path, "parallelism"), problems, default=1, budget=budget)
    # completions only caps the pods running at once: a Job may run a million completions, 4 at a time
    completions = count(spec.get("completions"), at(path, "completions"), problems, default=-1, budget=None)
    if parallelism is None or completions is None:
        return None
    return min(parallelism, completions) if completions >= 0 else parallelism


def read_job(
    spec: Mapping[str, Any], name: str, path: str, problems: Problems, budget: PodBudget
) -> tuple[tuple[PodSetSource, ...], int]:
    """``batch/v1 Job``: one PodSet ``main``; pod i is ``<job>-<i>`` with completion index i."""
    pods = _booked(_job_pods(spec, path, problems, budget), at(path, "parallelism"), budget, problems)
    template_path = at(path, "template")
    template = _template(spec.get("template"), template_path, problems)
    n = pods or 0
    source = PodSetSource(
        name="main",
        path=template_path,
        template=template,
        pod_names=tuple(f"{name}-{i}" for i in range(n)),
        index_values=tuple(range(n)),
        count_ok=pods is not None,
    )
    return (source,), 1


def read_jobset(
    spec: Mapping[str, Any], name: str, path: str, problems: Problems, budget: PodBudget
) -> tuple[tuple[PodSetSource, ...], int]:
    """``JobSet``: one PodSet per replicatedJob with replicas x parallelism pods.

    Pod ``<jobset>-<replicatedJob>-<jobIndex>-<podIndex>`` has rank podIndex + jobIndex x parallelism,
    and a slice defaults to one Job (``parallelism`` pods).
    """
    sources: list[PodSetSource] = []
    seen: set[str] = set()
    jobs_path = at(path, "replicatedJobs")
    replicated = sequence(spec.get("replicatedJobs"), jobs_path, problems, required=True)
    if isinstance(spec.get("replicatedJobs"), list) and not replicated:
        problems.append(Problem(jobs_path, "is empty", "add at least one replicatedJob"))
    for j, item in enumerate(replicated):
        where = f"{jobs_path}[{j}]"
        rj = mapping(item, where, problems, required=True)
        rj_name = text(
            rj.get("name"), at(where, "name"), problems, required=True, hint="name the replicatedJob"
        )
        rj_name = rj_name or f"replicatedjob-{j}"
        if rj_name in seen:
            problems.append(
                Problem(at(where, "name"), f"replicatedJob {rj_name!r} is listed twice", "names must differ")
            )
        seen.add(rj_name)
        replicas = count(rj.get("replicas"), at(where, "replicas"), problems, default=1, budget=budget)
        job_template = mapping(rj.get("template"), at(where, "template"), problems, required=True)
        job_spec = mapping(job_template.get("spec"), at(where, "template.spec"), problems, required=True)
        per_job = _job_pods(job_spec, at(where, "template.spec"), problems, budget)
        template_path = at(where, "template.spec.template")
        template = _template(job_spec.get("template"), template_path, problems)
        pods = replicas * per_job if replicas is not None and per_job is not None else None
        ok = _booked(pods, at(where, "replicas"), budget, problems) is not None
        jobs, size = (replicas or 0, per_job or 0) if ok else (0, 0)
        sources.append(
            PodSetSource(
                name=rj_name,
                path=template_path,
                template=template,
                pod_names=tuple(
                    f"{name}-{rj_name}-{job}-{pod}" for job in range(jobs) for pod in range(size)
                ),
                index_values=tuple(range(jobs * size)),
                count_ok=ok,
                default_slice_size=size if ok and size > 0 else None,
            )
        )
    return tuple(sources), 1


def read_leaderworkerset(
    spec: Mapping[str, Any], name: str, path: str, problems: Problems, budget: PodBudget
) -> tuple[tuple[PodSetSource, ...], int]:
    """``LeaderWorkerSet``: per replica a ``leader`` PodSet (1 pod) and a ``worker`` PodSet (size - 1).

    Without a leaderTemplate Kueue makes one PodSet ``main`` of ``size`` pods from the worker
    template. Replica r's leader is ``<lws>-<r>`` (worker index 0), its workers ``<lws>-<r>-<w>``
    (w = 1..size-1). With a leaderTemplate and no PodSet group the webhook adds pod-index-offset 1
    to the workers, so worker ranks start at 0. PodSet names get ``-<r>`` when replicas > 1.
    """
    replicas = count(spec.get("replicas"), at(path, "replicas"), problems, default=1, budget=budget)
    lwt_path = at(path, "leaderWorkerTemplate")
    lwt = mapping(spec.get("leaderWorkerTemplate"), lwt_path, problems, required=True)
    size = count(lwt.get("size"), at(lwt_path, "size"), problems, default=1, budget=budget)
    if size == 0:
        problems.append(
            Problem(at(lwt_path, "size"), "must be at least 1", "a group has one leader and size-1 workers")
        )
    leader_path = at(lwt_path, "leaderTemplate")
    has_leader = lwt.get("leaderTemplate") is not None
    leader = mapping(lwt.get("leaderTemplate"), leader_path, problems)
    worker_path = at(lwt_path, "workerTemplate")
    worker = _template(lwt.get("workerTemplate"), worker_path, problems)
    ok = replicas is not None and size is not None and size > 0
    ok = ok and _booked((replicas or 0) * (size or 0), at(path, "replicas"), budget, problems) is not None
    n_replicas, n_size = (replicas or 0, size or 0) if ok else (1, 1)
    sources: list[PodSetSource] = []
    for r in range(n_replicas):
        suffix = f"-{r}" if n_replicas > 1 else ""
        workers = tuple(f"{name}-{r}-{w}" for w in range(1, n_size))
        if has_leader:
            sources.append(
                PodSetSource(f"leader{suffix}", leader_path, leader, (f"{name}-{r}",), (0,), ok, unit=r)
            )
            sources.append(
                PodSetSource(
                    f"worker{suffix}",
                    worker_path,
                    worker,
                    workers,
                    tuple(range(1, n_size)),
                    ok,
                    implied_offset=1,
                    unit=r,
                )
            )
        else:
            pods = (f"{name}-{r}", *workers)
            sources.append(
                PodSetSource(f"main{suffix}", worker_path, worker, pods, tuple(range(n_size)), ok, unit=r)
            )
    return tuple(sources), max(n_replicas, 1)


def read_mpijob(
    spec: Mapping[str, Any], name: str, path: str, problems: Problems, budget: PodBudget
) -> tuple[tuple[PodSetSource, ...], int]:
    """``MPIJob`` v2beta1: PodSets ``launcher`` (``<name>-launcher``) and ``worker`` (``<name>-worker-<i>``).

    With ``runLauncherAsWorker`` the launcher takes replica index 0 and worker i carries index
    i + 1; Kueue's webhook then adds pod-index-offset 1 to the workers (unless a PodSet group
    manages the offset), so worker ranks start at 0.
    """
    specs_path = at(path, "mpiReplicaSpecs")
    specs = mapping(spec.get("mpiReplicaSpecs"), specs_path, problems, required=True)
    launcher_as_worker = spec.get("runLauncherAsWorker", False)
    if not isinstance(launcher_as_worker, bool):
        problems.append(
            Problem(at(path, "runLauncherAsWorker"), f"must be true or false, got {launcher_as_worker!r}", "")
        )
        launcher_as_worker = False
    _unknown_replica_types(specs, specs_path, ("Launcher", "Worker"), problems)
    sources: list[PodSetSource] = []
    if "Launcher" in specs:
        where = at(specs_path, "Launcher")
        launcher = mapping(specs["Launcher"], where, problems)
        replicas = count(launcher.get("replicas"), at(where, "replicas"), problems, default=1, budget=budget)
        _booked(1, at(where, "replicas"), budget, problems)
        if replicas is not None and replicas != 1:
            problems.append(
                Problem(at(where, "replicas"), f"must be 1, got {replicas}", "an MPIJob has one launcher")
            )
        template = _template(launcher.get("template"), at(where, "template"), problems)
        sources.append(PodSetSource("launcher", at(where, "template"), template, (f"{name}-launcher",), (0,)))
    else:
        problems.append(
            Problem(at(specs_path, "Launcher"), "is missing", "an MPIJob needs a Launcher replica spec")
        )
    if "Worker" in specs:
        where = at(specs_path, "Worker")
        worker = mapping(specs["Worker"], where, problems)
        # mpi-operator defaults Worker replicas to 0 (a launcher-only job).
        replicas = count(worker.get("replicas"), at(where, "replicas"), problems, default=0, budget=budget)
        replicas = _booked(replicas, at(where, "replicas"), budget, problems)
        template = _template(worker.get("template"), at(where, "template"), problems)
        n = replicas or 0
        first = 1 if launcher_as_worker else 0
        sources.append(
            PodSetSource(
                "worker",
                at(where, "template"),
                template,
                tuple(f"{name}-worker-{i}" for i in range(n)),
                tuple(range(first, first + n)),
                replicas is not None,
                implied_offset=first,
            )
        )
    return tuple(sources), 1


def read_pytorchjob(
    spec: Mapping[str, Any], name: str, path: str, problems: Problems, budget: PodBudget
) -> tuple[tuple[PodSetSource, ...], int]:
    """``PyTorchJob`` v1: PodSets ``master`` (``<name>-master-<i>``) and ``worker`` (``<name>-worker-<i>``)."""
    specs_path = at(path, "pytorchReplicaSpecs")
    specs = mapping(spec.get("pytorchReplicaSpecs"), specs_path, problems, required=True)
    _unknown_replica_types(specs, specs_path, ("Master", "Worker"), problems)
    sources: list[PodSetSource] = []
    for replica_type in ("Master", "Worker"):
        if replica_type not in specs:
            continue
        where = at(specs_path, replica_type)
        replica = mapping(specs[replica_type], where, problems)
        replicas = count(replica.get("replicas"), at(where, "replicas"), problems, default=1, budget=budget)
        replicas = _booked(replicas, at(where, "replicas"), budget, problems)
        template = _template(replica.get("template"), at(where, "template"), problems)
        n = replicas or 0
        podset = replica_type.lower()
        sources.append(
            PodSetSource(
                podset,
                at(where, "template"),
                template,
                tuple(f"{name}-{podset}-{i}" for i in range(n)),
                tuple(range(n)),
                replicas is not None,
            )
        )
    if specs and not sources:
        problems.append(
            Problem(specs_path, "has neither Master nor Worker", "add a Master and/or Worker replica spec")
        )
    return tuple(sources), 1


def _unknown_replica_types(
    specs: Mapping[str, Any], path: str, known: tuple[str, ...], problems: Problems
) -> None:
    for key in specs:
        if key not in known:
            problems.append(
                Problem(at(path, str(key)), f"unknown replica type {key!r}", f"use {' and '.join(known)}")
            )


# (apiVersion, kind) → reader; the table the loader dispatches on.
READERS: dict[str, tuple[str, Reader]] = {
    "Job": ("batch/v1", read_job),
    "JobSet": ("jobset.x-k8s.io/v1alpha2", read_jobset),
    "LeaderWorkerSet": ("leaderworkerset.x-k8s.io/v1", read_leaderworkerset),
    "MPIJob": ("kubeflow.org/v2beta1", read_mpijob),
    "PyTorchJob": ("kubeflow.org/v1", read_pytorchjob),
}
