"""The options that say which cluster a command reads: a dump file (``--cluster FILE``), else the
live cluster of the kubeconfig, found as kubectl finds it (``--kubeconfig``, ``$KUBECONFIG``,
``~/.kube/config``; ``--context`` picks one of its contexts). Read by ``inputs.load_cluster``."""

from __future__ import annotations

from typing import Annotated

import typer

CLUSTER_HELP = (
    "A dump of nodes, Pods and Topologies: a v1 List (YAML or JSON) or a multi-document YAML "
    "stream. Without it, the live cluster of the kubeconfig (as kubectl: --context, --kubeconfig, "
    "$KUBECONFIG, ~/.kube/config)."
)
ClusterOption = Annotated[
    str | None,
    typer.Option("--cluster", "-c", metavar="FILE", help=CLUSTER_HELP, show_default=False),
]
ContextOption = Annotated[
    str | None,
    typer.Option(
        "--context",
        metavar="NAME",
        help="The kubeconfig context of the live cluster to read (default: its current context).",
        show_default=False,
    ),
]
KubeconfigOption = Annotated[
    str | None,
    typer.Option(
        "--kubeconfig",
        metavar="PATH",
        help="The kubeconfig of the live cluster (default: $KUBECONFIG, else ~/.kube/config).",
        show_default=False,
    ),
]
