"""Which cluster to talk to, found as kubectl finds it (client-go's loading rules).

1. ``--kubeconfig PATH``: that file alone; it must exist.
2. else ``$KUBECONFIG``: a list of paths (``:`` between them, ``;`` on Windows); the files that
   exist are merged as kubectl merges them: a cluster, user or context takes its value from the
   first file naming it, and the current context from the first file that sets one. Missing
   files are skipped; ``~/.kube/config`` is not read then.
3. else ``~/.kube/config`` when it exists;
4. else the pod's in-cluster service account.

``--context`` picks a context of whichever files were read (a context given with no file to take
it from is refused, as kubectl refuses it). The files are read by the official client's loader
(``kubernetes.config``), so credentials, exec plugins and relative certificate paths behave as
for any other client; each is first read through the one bounded parser, so an oversized or
malformed file is a ``SpecError`` naming the file and the field, never a traceback.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from kubernetes import config as kube_config
from kubernetes.client import Configuration
from kubernetes.config.kube_config import KubeConfigLoader, KubeConfigMerger

from toposched.intake.parse import parse_documents, read_file
from toposched.model import Problem, SpecError

DEFAULT_KUBECONFIG: Final = "~/.kube/config"
_NAMED_LISTS: Final = ("clusters", "users", "contexts")


@dataclass(frozen=True, slots=True)
class KubeconfigSource:
    """Where a client configuration comes from: the option or variable that chose it (``field``,
    used in messages) and the files read, in merge order (none: the in-cluster account)."""

    field: str
    files: tuple[Path, ...]

    def describe(self) -> str:
        if not self.files:
            return "the in-cluster service account"
        paths = ", ".join(str(f) for f in self.files)
        return f"{self.field} ({paths})" if self.field != "--kubeconfig" else f"--kubeconfig {paths}"


def find_kubeconfig(kubeconfig: str | None, environ: Mapping[str, str] | None = None) -> KubeconfigSource:
    """The files to read, by kubectl's precedence (see the module); no files means in-cluster."""
    env = os.environ if environ is None else environ
    if kubeconfig is not None:
        return KubeconfigSource("--kubeconfig", (Path(kubeconfig).expanduser(),))
    listed = env.get("KUBECONFIG", "")
    if listed:
        paths = (Path(p).expanduser() for p in listed.split(os.pathsep) if p)
        return KubeconfigSource("$KUBECONFIG", tuple(_unique(p for p in paths if p.exists())))
    default = Path(DEFAULT_KUBECONFIG).expanduser()
    return KubeconfigSource(DEFAULT_KUBECONFIG, (default,) if default.exists() else ())


def client_configuration(
    kubeconfig: str | None = None, *, context: str | None = None, environ: Mapping[str, str] | None = None
) -> tuple[Configuration, KubeconfigSource]:
    """The client configuration every command that talks to a cluster uses, and where it came
    from. A ``SpecError`` names the option or file at fault and what to do."""
    source = find_kubeconfig(kubeconfig, environ)
    configuration = Configuration()
    if not source.files:
        _load_in_cluster(configuration, context, environ)
        return configuration, source
    chosen = _check_files(source, context)
    try:
        merged = KubeConfigMerger(os.pathsep.join(str(f) for f in source.files))  # type: ignore[no-untyped-call]  # unannotated in the library
        loader = KubeConfigLoader(config_dict=merged.config, active_context=chosen, config_base_path=None)  # type: ignore[no-untyped-call]
        loader.load_and_set(configuration)  # type: ignore[no-untyped-call]
    except (kube_config.ConfigException, OSError, ValueError) as exc:
        raise SpecError(
            [
                Problem(
                    source.field,
                    f"cannot configure the Kubernetes client from {source.describe()}, context {chosen!r}: {exc}",
                    "check the context's cluster and user entries (server, certificates, token)",
                )
            ]
        ) from None
    return configuration, source


def _load_in_cluster(
    configuration: Configuration, context: str | None, environ: Mapping[str, str] | None
) -> None:
    looked = "no --kubeconfig, $KUBECONFIG names no existing file or is unset, no ~/.kube/config"
    if context is not None:
        raise SpecError(
            [
                Problem(
                    "--context",
                    f"{context!r} given, but there is no kubeconfig to take it from ({looked})",
                    "pass --kubeconfig PATH or set KUBECONFIG",
                )
            ]
        )
    env = os.environ if environ is None else environ
    if not env.get("KUBERNETES_SERVICE_HOST"):
        raise SpecError(
            [
                Problem(
                    "--kubeconfig",
                    f"no cluster to talk to: {looked}, and not inside a pod (no in-cluster service account)",
                    "pass --kubeconfig PATH, set KUBECONFIG or write ~/.kube/config",
                )
            ]
        )
    try:
        kube_config.load_incluster_config(client_configuration=configuration)  # type: ignore[no-untyped-call]
    except (kube_config.ConfigException, OSError) as exc:
        raise SpecError(
            [
                Problem(
                    "--kubeconfig",
                    f"cannot configure the Kubernetes client from the in-cluster service account: {exc}",
                    "pass --kubeconfig PATH outside a pod",
                )
            ]
        ) from None


def _check_files(source: KubeconfigSource, context: str | None) -> str:
    """Read each file through the bounded parser and check the shape the loader walks; the
    context to use: ``context``, else the first current-context set (kubectl's merge rule)."""
    contexts: list[str] = []
    current = ""
    for path in source.files:
        where = str(path)
        documents = parse_documents(read_file(where, what="kubeconfig"), source=where)
        config = documents[0] if len(documents) == 1 else None
        if not isinstance(config, dict):
            raise SpecError(
                [Problem(where, "is not one kubeconfig mapping", "give a kubeconfig file (kind: Config)")]
            )
        contexts.extend(_names(config, where))
        if not current and isinstance(config.get("current-context"), str):
            current = config["current-context"]
    known = ", ".join(dict.fromkeys(contexts)) or "none"
    if context is not None:
        if context not in contexts:
            raise SpecError(
                [
                    Problem(
                        "--context", f"no context {context!r} in {source.describe()}", f"use one of: {known}"
                    )
                ]
            )
        return context
    if not current:
        raise SpecError(
            [
                Problem(
                    source.field,
                    f"{source.describe()} sets no current-context",
                    f"pass --context NAME (one of: {known})",
                )
            ]
        )
    return current


def _names(config: Mapping[str, Any], where: str) -> list[str]:
    """The context names of one file, after checking every named list holds named mappings."""
    found: dict[str, list[str]] = {}
    for key in _NAMED_LISTS:
        entries = config.get(key) or []
        if not isinstance(entries, list):
            raise SpecError(
                [Problem(f"{where}: {key}", "is not a list", "write it as a list of named entries")]
            )
        names = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
                raise SpecError([Problem(f"{where}: {key}[{i}]", "has no name", "give every entry a name")])
            names.append(entry["name"])
        found[key] = names
    return found["contexts"]


def _unique(paths: Iterable[Path]) -> list[Path]:
    """``paths`` without repeats, first occurrence kept (kubectl reads a file once)."""
    return list(dict.fromkeys(paths))
