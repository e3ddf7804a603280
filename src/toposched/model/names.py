"""Kubernetes object metadata as the API server validates it, for every front end: names and
namespaces (DNS-1123), and labels and annotations (mappings of strings).

A spec the API server would refuse is refused here too, with the field that is wrong: a
5,000-character name or a namespace ``../../etc`` would otherwise reach stored records, emitted
objects and log lines. Values are read as users write YAML (a scalar label value as its text);
the API server's own reading, strict decoding and ``ValidateObjectMeta`` with its messages, is
``toposched.model.object_meta``, which the readers of Kubernetes objects as submitted use (the
kube front end, KAI PodGroups and their pods, Topology objects).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from toposched.model.errors import Problem
from toposched.model.k8s_content import is_label_key
from toposched.model.topology import MAX_NAME, OBJECT_NAME

MAX_LABEL = 63  # a DNS-1123 label: namespaces; names that end up in a label value (a Job's)

_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_NOT_DNS = re.compile(r"[^a-z0-9-]+")
_NOT_NAME = re.compile(r"[^a-z0-9.-]+")
_NAME_HINT = "use lower-case letters, digits, '-' and '.', starting and ending with a letter or digit"


def dns_label(name: str, *, fallback: str = "group") -> str:
    """``name`` made a DNS-1123 label (lower case, runs of other characters as one '-', at most
    63 characters), for names that become subgroup, clique or replicatedJob names."""
    cleaned = _NOT_DNS.sub("-", name.lower()).strip("-")
    return cleaned[:MAX_LABEL].rstrip("-") or fallback


def object_name(name: str, *, fallback: str = "object") -> str:
    """``name`` when it is a valid object name (a DNS-1123 subdomain), else made one the way
    ``dns_label`` makes a label (dots kept)."""
    if len(name) <= MAX_NAME and OBJECT_NAME.fullmatch(name):
        return name
    cleaned = _NOT_NAME.sub("-", name.lower()).strip("-.")
    return cleaned[:MAX_NAME].rstrip("-.") or fallback


class UniqueNames:
    """Names made valid and unique within one set of objects: a name already given gets ``-2``,
    ``-3`` ... (two pods ``a_b`` and ``a-b`` become ``a-b``, ``a-b-2``). Object names by
    default (``object_name``); DNS labels (``dns_label``) with ``label=True``."""

    def __init__(self, fallback: str = "object", *, label: bool = False) -> None:
        self.fallback = fallback
        self.label = label
        self.taken: set[str] = set()

    def of(self, name: str) -> str:
        if self.label:
            base, room = dns_label(name, fallback=self.fallback), MAX_LABEL - 3
        else:
            base, room = object_name(name, fallback=self.fallback), MAX_NAME - 13
        candidate, n = base, 1
        while candidate in self.taken:
            n += 1
            candidate = f"{base[:room]}-{n}"
        self.taken.add(candidate)
        return candidate


def name_problems(value: object, path: str, *, max_length: int = MAX_NAME) -> list[Problem]:
    """Problems with an object name (a DNS-1123 subdomain of at most ``max_length`` characters)."""
    if not isinstance(value, str):
        return [Problem(path, f"must be a string, got {value!r}", "quote the name")]
    if len(value) > max_length:
        return [
            Problem(path, f"is {len(value)} characters long; the limit is {max_length}", "use a shorter name")
        ]
    if not OBJECT_NAME.fullmatch(value):
        return [Problem(path, f"{_shown(value)} is not a valid name", _NAME_HINT)]
    return []


def namespace_problems(value: object, path: str) -> list[Problem]:
    """Problems with a namespace (a DNS-1123 label)."""
    if not isinstance(value, str):
        return [Problem(path, f"must be a string, got {value!r}", "quote the namespace")]
    if len(value) > MAX_LABEL or not _LABEL.fullmatch(value):
        return [
            Problem(
                path, f"{_shown(value)} is not a valid namespace", "use lower-case letters, digits and '-'"
            )
        ]
    return []


def metadata_problems(metadata: object, path: str = "metadata", *, max_name: int = MAX_NAME) -> list[Problem]:
    """Problems with an object's ``metadata``: name and namespace when set, labels and
    annotations (mappings of string keys, label keys valid, to scalar values). A missing name is the caller's to
    report, as some kinds generate it."""
    if metadata is None:
        return []
    if not isinstance(metadata, Mapping):
        return [Problem(path, "must be a mapping", "write name:, namespace:, labels: under it")]
    problems: list[Problem] = []
    if metadata.get("name") not in (None, ""):
        problems += name_problems(metadata["name"], f"{path}.name", max_length=max_name)
    if metadata.get("namespace") not in (None, ""):
        problems += namespace_problems(metadata["namespace"], f"{path}.namespace")
    for field in ("labels", "annotations"):
        problems += _string_map_problems(metadata.get(field), f"{path}.{field}", labels=field == "labels")
    return problems


def _string_map_problems(raw: object, path: str, *, labels: bool) -> list[Problem]:
    if raw is None:
        return []
    if not isinstance(raw, Mapping):
        return [
            Problem(path, f"must be a mapping of strings, got {type(raw).__name__}", "write key: value lines")
        ]
    problems: list[Problem] = []
    for key, value in raw.items():
        where = f'{path}["{key}"]'
        if not isinstance(key, str) or (labels and not is_label_key(key)):
            problems.append(Problem(where, f"{key!r} is not a valid key", "use e.g. example.com/team"))
        elif isinstance(value, Mapping | list):  # a scalar is read as its text, as YAML users expect
            problems.append(
                Problem(where, f"must be a string, got {type(value).__name__}", "write one value")
            )
    return problems


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 80 else repr(value[:77] + "...")


def documents_metadata_problems(documents: list[object]) -> list[Problem]:
    """``metadata_problems`` of every object among ``documents`` (``documents[i].metadata``
    when there are several)."""
    problems: list[Problem] = []
    for i, doc in enumerate(documents):
        if isinstance(doc, Mapping):
            path = f"documents[{i}].metadata" if len(documents) > 1 else "metadata"
            problems += metadata_problems(doc.get("metadata"), path)
    return problems
