"""A custom resource read as the API server reads a create (or an update) with
``fieldValidation=Strict``, against the schema its CRD installs (``toposched.wire.crd_schemas``,
generated from the CRD files), as apiextensions-apiserver v0.37.2 does it:

1. Decoding, answered alone when it fails (400 "cannot be handled as a <Kind>"): the metadata
   decodes into ``ObjectMeta`` (a value of the wrong type stops there), and no field is unknown
   to the structural schema (``structuralpruning``: a field no ``properties`` names, any key of
   a mapping given where a scalar is declared).
2. Validation (422): ``ValidateObjectMeta`` (a cluster-scoped object's namespace is dropped),
   the OpenAPI schema (``toposched.wire.openapi``; a status subresource's ``status`` is dropped
   on create, and a null where the schema allows none counts as absent), then the CEL rules
   (``x-kubernetes-validations``), unless an error of a blocking type came first.

The CEL rules are evaluated by the Python function registered here for each rule's text: the
CRDs' rules are few and fixed, and ``tests/wire/test_crd_schemas.py`` checks that every rule of
every schema has one. A transition rule (one naming ``oldSelf``) applies to updates only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from toposched.model import HOSTNAME, Problem
from toposched.model.k8s_content import OMITTED, FieldErrorType, field_error
from toposched.model.object_meta import (
    decoding_prefix,
    metadata_type_errors,
    metadata_unknown_fields,
    object_meta_problems,
)
from toposched.wire.crd_schemas import RESOURCES
from toposched.wire.openapi import MAX_NESTING, CustomResource, Findings, Schema, join, validate

_ROOT_FIELDS = ("apiVersion", "kind", "metadata")  # read around the schema, at the root only
_BLOCKING = tuple(
    t.value
    for t in (
        FieldErrorType.REQUIRED,
        FieldErrorType.NOT_SUPPORTED,
        FieldErrorType.TOO_LONG,
        FieldErrorType.TOO_MANY,
    )
)


def resource_for(api_version: str, kind: str) -> CustomResource | None:
    """The installed schema of ``kind`` at ``api_version``; None when no CRD here serves it."""
    return RESOURCES.get((api_version, kind))


def installed(api_version: str, kind: str) -> CustomResource:
    """The schema of a kind toposched always reads (a ``KeyError`` here means the generated
    module lacks it: run tools/gen_crd_schemas.py)."""
    return RESOURCES[(api_version, kind)]


def custom_resource_problems(
    obj: Mapping[str, Any], resource: CustomResource, *, path: str = "", old: Mapping[str, Any] | None = None
) -> tuple[list[Problem], bool]:
    """Every problem the API server finds in ``obj`` (reported under ``path``), and whether it
    decoded; ``old``: the stored object, on an update (its transition rules then apply)."""
    api_version, kind = resource.api_version, resource.kind
    wrong = metadata_type_errors(obj, api_version, kind, path, custom=True)
    if wrong:
        return wrong[:1], False  # Go's decoder stops at the first; unknown fields are then not listed
    unknown = metadata_unknown_fields(obj, api_version, kind, path)
    unknown += _unknown_fields(obj, resource.schema, "", path, decoding_prefix(api_version, kind), root=True)
    if unknown:
        return unknown, False
    meta, _ = object_meta_problems(obj, api_version, kind, path, custom=True, namespaced=resource.namespaced)
    findings = Findings(meta, any(p.message.startswith(_BLOCKING) for p in meta))
    body = {k: v for k, v in obj.items() if not (k == "status" and resource.status_subresource)}
    validate(body, resource.schema, "", findings, base=path)
    if not findings.blocking:
        _rules(body, resource.schema, "", old, findings, path, 0)
    return findings.problems, True


def value_problems(
    value: object, schema: Schema, resource: CustomResource, *, path: str
) -> tuple[list[Problem], bool]:
    """The same for one field's value (a PodGroup's ``spec`` given alone) at ``path``."""
    prefix = decoding_prefix(resource.api_version, resource.kind)
    unknown = _unknown_fields(value, schema, path, "", prefix, root=False)
    if unknown:
        return unknown, False
    findings = Findings()
    validate(value, schema, path, findings)
    if not findings.blocking:
        _rules(value, schema, path, None, findings, "", 0)
    return findings.problems, True


def _unknown_fields(
    value: object, schema: Schema | None, path: str, base: str, prefix: str, *, root: bool, depth: int = 0
) -> list[Problem]:
    """apiextensions' pruning with unknown-field paths: a field of a mapping that neither
    ``properties`` nor ``additionalProperties`` describes (every field, where the schema is a
    scalar's or missing); ``x-kubernetes-preserve-unknown-fields`` keeps the unknown ones."""
    if depth > MAX_NESTING:
        return [Problem(join(base, path), prefix + "the object is nested too deeply", "flatten it")]
    found: list[Problem] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            if root and key in _ROOT_FIELDS:
                continue
            where = join(path, str(key))
            child = None if schema is None else schema.properties.get(str(key), schema.additional)
            if child is not None:
                found += _unknown_fields(item, child, where, base, prefix, root=False, depth=depth + 1)
            elif schema is None or not schema.preserve_unknown:
                known = ", ".join(schema.properties) if schema is not None and schema.properties else "none"
                message = prefix + f'strict decoding error: unknown field "{where}"'
                found.append(Problem(join(base, where), message, f"fields here: {known}"))
    elif isinstance(value, list):
        items = None if schema is None else schema.items
        for i, item in enumerate(value):
            found += _unknown_fields(item, items, f"{path}[{i}]", base, prefix, root=False, depth=depth + 1)
    return found


def _rules(
    value: object, schema: Schema, path: str, old: object, out: Findings, base: str, depth: int
) -> None:
    """Each CEL rule where its field is set; the schema check passed, so types are right."""
    if value is None or depth > MAX_NESTING:
        return
    for rule in schema.rules:
        check = RULES.get(normalised(rule.rule))
        if check is None or ("oldSelf" in rule.rule and old is None):
            continue
        hint = check(value, old)
        if hint is not None:
            out.add(
                join(base, path) if path else base,
                field_error(FieldErrorType.INVALID, OMITTED, rule.message),
                hint,
            )
    if isinstance(value, Mapping):
        before = old if isinstance(old, Mapping) else {}
        for key, item in value.items():
            child = schema.properties.get(key, schema.additional)
            if child is not None:
                _rules(item, child, join(path, key), before.get(key), out, base, depth + 1)
    elif isinstance(value, list) and schema.items is not None:
        for i, item in enumerate(value):
            _rules(item, schema.items, f"{path}[{i}]", None, out, base, depth + 1)


def normalised(rule: str) -> str:
    """A rule's text with its whitespace runs as one space (YAML folds long rules)."""
    return re.sub(r"\s+", " ", rule).strip()


# -- the CEL rules of the CRDs, each as a function of (self, oldSelf) giving a hint on failure -------


def _labels(levels: object) -> list[object]:
    return (
        [lv.get("nodeLabel") if isinstance(lv, Mapping) else None for lv in levels]
        if isinstance(levels, list)
        else []
    )


def _twice(items: list[Any]) -> Any:
    return next((item for i, item in enumerate(items) if item in items[:i]), None)


def _unchanged(new: object, old: object) -> str | None:
    return None if new == old else "keep the stored levels; create a new Topology to change them"


def _same_node_labels(new: object, old: object) -> str | None:
    return (
        None
        if _labels(new) == _labels(old)
        else "only aliases may change; create a new Topology to change levels"
    )


def _unique_items(new: object, _: object) -> str | None:
    twice = _twice(new) if isinstance(new, list) else None
    return None if twice is None else f"{twice!r} is listed twice: list every level once"


def _unique_node_labels(new: object, _: object) -> str | None:
    twice = _twice(_labels(new))
    return None if twice is None else f"nodeLabel {twice!r} is listed twice: list every level once"


def _hostname_last(new: object, _: object) -> str | None:
    labels = _labels(new)
    if HOSTNAME not in labels or labels[-1] == HOSTNAME:
        return None
    return f"move {HOSTNAME} to the end of the list (the finest level)"


RULES: dict[str, Callable[[object, object], str | None]] = {
    "self == oldSelf": _unchanged,
    "self.map(l, l.nodeLabel) == oldSelf.map(l, l.nodeLabel)": _same_node_labels,
    "size(self.filter(i, size(self.filter(j, j == i)) > 1)) == 0": _unique_items,
    "size(self.filter(i, size(self.filter(j, j.nodeLabel == i.nodeLabel)) > 1)) == 0": _unique_node_labels,
    "size(self.filter(i, i.nodeLabel == 'kubernetes.io/hostname')) == 0 || "
    "self[size(self) - 1].nodeLabel == 'kubernetes.io/hostname'": _hostname_last,
}
