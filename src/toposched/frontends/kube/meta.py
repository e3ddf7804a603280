"""An object's ``metadata`` as the API server reads it: decoded strictly into ``ObjectMeta``
(unknown fields and values of the wrong JSON type refused, "cannot be handled as" a Kind, as
for the spec) and then checked by apimachinery's ``ValidateObjectMeta``: the name (a DNS
subdomain), ``generateName`` (the same, a trailing '-' allowed), the namespace (a DNS label),
label keys and values, annotation keys and their total size. Each problem carries the API
server's field (``metadata.labels`` for any label) and message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.model import Problem
from toposched.model.k8s_content import (
    FieldErrorType,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    field_error,
    label_key_errors,
    label_value_errors,
)

ANNOTATIONS_MAX_BYTES = 256 * 1024  # TotalAnnotationSizeLimitB
_STRINGS = ("name", "generateName", "namespace", "selfLink", "uid", "resourceVersion")
_INTEGERS = ("generation", "deletionGracePeriodSeconds")
_TIMES = ("creationTimestamp", "deletionTimestamp")
_MAPS = ("labels", "annotations")
_LISTS = ("ownerReferences", "finalizers", "managedFields")
FIELDS = (*_STRINGS, *_INTEGERS, *_TIMES, *_MAPS, *_LISTS)
_GO_TYPES = {**dict.fromkeys(_STRINGS, "string"), **dict.fromkeys(_INTEGERS, "int64")}


def _at(path: str, child: str) -> str:
    return f"{path}.{child}" if path else child


def _json_kind(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def metadata_decoding(obj: Mapping[str, Any], api_version: str, kind: str, path: str) -> list[Problem]:
    """What keeps ``obj``'s metadata from decoding; the message as the API server words it."""
    version = api_version.rsplit("/", 1)[-1]
    prefix = f'{kind} in version "{version}" cannot be handled as a {kind}: '
    metadata = obj.get("metadata")
    if metadata is None:
        return []
    where = _at(path, "metadata")
    if not isinstance(metadata, Mapping):
        detail = f"json: cannot unmarshal {_json_kind(metadata)} into Go struct field {kind}.metadata of type v1.ObjectMeta"
        return [Problem(where, prefix + detail, "write name:, namespace:, labels: under metadata")]
    problems: list[Problem] = []
    for key in metadata:
        if key not in FIELDS:
            message = f'strict decoding error: unknown field "metadata.{key}"'
            problems.append(
                Problem(_at(where, str(key)), prefix + message, f"fields here: {', '.join(FIELDS)}")
            )
    for key, value in metadata.items():
        if value is None or key not in FIELDS:
            continue
        wrong = _wrong_type(key, value)
        if wrong is not None:
            json_kind, go = wrong
            detail = f"json: cannot unmarshal {json_kind} into Go struct field ObjectMeta.metadata.{key} of type {go}"
            problems.append(
                Problem(_at(where, key), prefix + detail, "write it as Kubernetes does (strings in maps)")
            )
    return problems


def _wrong_type(key: str, value: object) -> tuple[str, str] | None:
    """(the JSON kind given, the Go type wanted) when ``value`` does not decode into ``key``."""
    if key in _STRINGS or key in _TIMES:
        return None if isinstance(value, str) else (_json_kind(value), _GO_TYPES.get(key, "v1.Time"))
    if key in _INTEGERS:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return None if ok else (_json_kind(value), "int64")
    if key in _MAPS:
        if not isinstance(value, Mapping):
            return _json_kind(value), "map[string]string"
        bad = next((v for v in value.values() if v is not None and not isinstance(v, str)), None)
        return None if bad is None else (_json_kind(bad), "string")
    return None if isinstance(value, list) else (_json_kind(value), "[]")


def metadata_validation(metadata: Mapping[str, Any], path: str) -> list[Problem]:
    """``ValidateObjectMeta`` on decoded metadata (the name's presence is the caller's)."""
    where = _at(path, "metadata")
    problems: list[Problem] = []
    name, generate = metadata.get("name"), metadata.get("generateName")
    if isinstance(name, str) and name:
        problems += _each(
            dns1123_subdomain_errors(name, "characters"),
            _at(where, "name"),
            name,
            "use lower-case letters, digits, '-' and '.'",
        )
    if isinstance(generate, str) and generate:
        masked = generate[:-1] + "a" if generate.endswith("-") else generate  # a prefix may end in '-'
        problems += _each(
            dns1123_subdomain_errors(masked, "characters"),
            _at(where, "generateName"),
            generate,
            "use lower-case letters, digits, '-' and '.'",
        )
    namespace = metadata.get("namespace")
    if isinstance(namespace, str) and namespace:
        problems += _each(
            dns1123_label_errors(namespace, "characters"),
            _at(where, "namespace"),
            namespace,
            "use lower-case letters, digits and '-'",
        )
    labels = metadata.get("labels") or {}
    for key, value in labels.items():
        problems += _each(
            label_key_errors(key), _at(where, "labels"), key, "use a label key such as example.com/team"
        )
        problems += _each(
            label_value_errors(value or ""),
            _at(where, "labels"),
            value or "",
            "use at most 63 letters, digits, '-', '_' or '.'",
        )
    annotations = metadata.get("annotations") or {}
    for key in annotations:
        problems += _each(
            label_key_errors(key.lower()),
            _at(where, "annotations"),
            key,
            "use a key such as example.com/note",
        )
    size = sum(len(k.encode()) + len((v or "").encode()) for k, v in annotations.items())
    if size > ANNOTATIONS_MAX_BYTES:
        message = field_error(
            FieldErrorType.TOO_LONG, detail=f"may not be more than {ANNOTATIONS_MAX_BYTES} bytes"
        )
        problems.append(Problem(_at(where, "annotations"), message, "keep annotations under 256 KiB in all"))
    return problems


def _each(details: list[str], where: str, value: str, hint: str) -> list[Problem]:
    return [Problem(where, field_error(FieldErrorType.INVALID, value, detail), hint) for detail in details]
