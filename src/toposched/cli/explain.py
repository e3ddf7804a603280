"""``toposched explain JOB.yaml --cluster CLUSTER.yaml``: why a workload does not place, the best
candidate domains, the nodes left out, and what would place it (each suggestion checked)."""

from __future__ import annotations

import typer
import yaml
from rich.console import Console
from rich.text import Text

from toposched.cli.cluster_options import ClusterOption, ContextOption, KubeconfigOption
from toposched.cli.errors import ExitCode
from toposched.cli.inputs import ClusterSource
from toposched.cli.output import NoHeadersOption, OutputOption, console, print_document
from toposched.cli.place import (
    JobArgument,
    MaxPodsOption,
    PolicyOption,
    PoolOption,
    SearchOption,
    TopologyOption,
    attempt_placement,
    pod_names,
)
from toposched.cli.render import print_result
from toposched.emit.result import explanation_to_json, result_document
from toposched.engine import explain_refusal
from toposched.model import (
    MAX_PODS_PER_GANG,
    Exclusion,
    ExclusionReason,
    Explanation,
    Search,
    SuggestionKind,
    Topology,
    Unschedulable,
)
from toposched.wire.core import toleration_for

UNTRIED = {
    SuggestionKind.PREFERRED_LEVEL: "preferring the required level",
    SuggestionKind.SMALLER: "a smaller size",
    SuggestionKind.AFTER_WORKLOADS_END: "running workloads ending",
    SuggestionKind.COMPLETE_SEARCH: "the complete search",
}
REASONS = {
    ExclusionReason.MISSING_LABELS: "lack level labels (outside the topology)",
    ExclusionReason.NOT_READY: "are NotReady",
    ExclusionReason.CORDONED: "are cordoned",
    ExclusionReason.NODE_SELECTOR: "do not match the pods' nodeSelector",
}


def explain_command(
    job: JobArgument,
    cluster: ClusterOption = None,
    topology: TopologyOption = None,
    pool: PoolOption = None,
    policy: PolicyOption = None,
    output: OutputOption = "table",
    search: SearchOption = Search.COMPLETE.value,
    max_pods: MaxPodsOption = MAX_PODS_PER_GANG,
    no_headers: NoHeadersOption = False,
    context: ContextOption = None,
    kubeconfig: KubeconfigOption = None,
) -> None:
    """Explain why a workload does not place and what would. A workload that places is shown as
    place shows it. Exit 0 placed, 3 does not fit, 2 invalid input, 1 the live cluster cannot be read."""
    source = ClusterSource(cluster, context, kubeconfig)
    attempt = attempt_placement(job, source, topology, pool, policy, search, max_pods)
    outcome = attempt.outcome
    if not isinstance(outcome.result, Unschedulable):
        document = result_document(outcome.result, attempt.search)
        if not print_document(output, document, lambda: pod_names(document)):
            print_result(
                console(),
                outcome.cluster,
                outcome.topology,
                outcome.gang,
                outcome.result,
                headers=not no_headers,
            )
        raise typer.Exit(ExitCode.PLACED)
    explanation = explain_refusal(
        outcome.gang,
        outcome.cluster,
        outcome.result,
        topology=outcome.topology,
        policy=attempt.policy,
        search=attempt.search,
        probed=True,  # ``place_documents`` probes the complete search
    )
    document = {
        **result_document(outcome.result, attempt.search),
        "explanation": explanation_to_json(explanation),
    }
    if not print_document(output, document, list):  # nothing placed: no pod to name
        print_explanation(console(), outcome.topology, explanation)
    raise typer.Exit(ExitCode.UNSCHEDULABLE)


def print_explanation(console: Console, topology: Topology, explanation: Explanation) -> None:
    refusal = explanation.refusal
    console.print(Text.assemble(("does not fit: ", "bold red"), refusal.message))
    if explanation.group is not None:
        level = f" at level {topology.short_name(explanation.level)}" if explanation.level else ""
        console.print(f"failing group: {explanation.group}{level}")
    if explanation.candidates:
        console.print(Text("best candidate domains:", style="bold"))
        for fit in explanation.candidates:
            console.print(f"  {fit.text(topology.short_name)}", highlight=False, markup=False)
    if explanation.exclusions:
        console.print(Text("nodes left out:", style="bold"))
        for exclusion in explanation.exclusions:
            console.print(f"  {exclusion.nodes} node(s) {_reason_text(exclusion)}")
            if exclusion.taint is not None:
                block = yaml.safe_dump([toleration_for(exclusion.taint)], sort_keys=False).rstrip("\n")
                console.print("    admit them with this toleration in the pod template:")
                for line in block.splitlines():
                    console.print(f"      {line}")
    console.print(Text("what would place it:", style="bold"))
    if not explanation.suggestions and not explanation.untried:
        console.print("  nothing tried places it: it needs more capacity than the cluster has free")
    for suggestion in explanation.suggestions:
        console.print(Text.assemble(("  ✓ ", "green"), suggestion.text))
    if explanation.untried:
        kinds = ", ".join(UNTRIED[kind] for kind in explanation.untried)
        console.print(f"  (stopped at the explanation's budget before trying all of: {kinds})")


def _reason_text(exclusion: Exclusion) -> str:
    if exclusion.reason is ExclusionReason.TAINT:
        return f'carry taint "{exclusion.taint}", which the pods do not tolerate'
    if exclusion.reason is ExclusionReason.RESOURCE:
        return f'have too little free "{exclusion.resource}" for one pod'
    return REASONS[exclusion.reason]
