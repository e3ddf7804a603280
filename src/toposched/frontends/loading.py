"""A workload file's text → a ``Gang``, for library users: the text is read by intake's one
bounded parser and compiled by whichever front end the registry chooses (Kueue, KAI, OSMO, Grove
or upstream), as the commands and the service do. ``toposched.load_workload`` is this."""

from __future__ import annotations

from toposched.frontends.registry import CompileContext, Registry, default_registry
from toposched.intake.parse import parse_documents
from toposched.model import Gang, SpecError, Topology, WorkloadSpecError


def load_workload(
    text: str | bytes,
    topology: Topology | None = None,
    *,
    source: str = "workload",
    registry: Registry | None = None,
) -> Gang:
    """Parse ``text`` (YAML or JSON; several documents, or a ``v1 List``, for a workload with its
    Pods) and compile it, validated against ``topology`` when given. ``source`` names the input
    in syntax errors (``job.yaml:12:5``). Raises ``WorkloadSpecError`` listing every problem (an
    OSMO workflow needs its pool: compile it through the registry with a ``CompileContext``)."""
    try:
        documents = parse_documents(text, source=source)
    except SpecError as exc:
        raise WorkloadSpecError(exc.problems) from None
    known = (topology,) if topology is not None else ()
    context = CompileContext(topologies=known, topology=topology)
    return (registry or default_registry()).compile(documents, context).gang
