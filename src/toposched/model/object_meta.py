"""An object's ``metadata`` as the API server reads it, for every reader that holds objects to
the server's rules (the kube front end's objects, KAI PodGroups and their pods, Topology
objects): decoded strictly into ``ObjectMeta`` (unknown fields and values of the wrong JSON type
refused, "cannot be handled as" a Kind, as for the spec) and then checked by apimachinery's
``ValidateObjectMeta``: the name (a DNS subdomain), ``generateName`` (the same, a trailing '-'
allowed), the namespace (a DNS label; a cluster-scoped object's is dropped, not checked), label
keys and values, annotation keys and their total size. Each problem carries the API server's
field (``metadata.labels`` for any label) and message.

A custom resource's metadata is decoded on its own (apiextensions' ``GetObjectMeta``), so its
type errors name ``ObjectMeta.labels`` where a built-in kind's name ``ObjectMeta.metadata.labels``,
and the first type error is the only one reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.model.errors import Problem
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


def decoding_prefix(api_version: str, kind: str) -> str:
    """How the API server starts the answer to a body that does not decode."""
    version = api_version.rsplit("/", 1)[-1]
    return f'{kind} in version "{version}" cannot be handled as a {kind}: '


def metadata_decoding(
    obj: Mapping[str, Any], api_version: str, kind: str, path: str, *, custom: bool = False
) -> list[Problem]:
    """What keeps ``obj``'s metadata from decoding, worded as the API server words it;
    ``custom``: ``obj`` is a custom resource (see the module's note)."""
    wrong = metadata_type_errors(obj, api_version, kind, path, custom=custom)
    if custom and wrong:
        return wrong[:1]  # Go's decoder stops at the first; unknown fields are then not listed
    return metadata_unknown_fields(obj, api_version, kind, path) + wrong


def metadata_type_errors(
    obj: Mapping[str, Any], api_version: str, kind: str, path: str, *, custom: bool = False
) -> list[Problem]:
    """The metadata's values that do not decode into ``ObjectMeta`` (the whole metadata when it
    is not a mapping)."""
    prefix = decoding_prefix(api_version, kind)
    metadata = obj.get("metadata")
    if metadata is None:
        return []
    where = _at(path, "metadata")
    if not isinstance(metadata, Mapping):
        detail = (
            f"json: cannot unmarshal {_json_kind(metadata)} into Go value of type v1.ObjectMeta"
            if custom
            else f"json: cannot unmarshal {_json_kind(metadata)} into Go struct field {kind}.metadata of type v1.ObjectMeta"
        )
        return [Problem(where, prefix + detail, "write name:, namespace:, labels: under metadata")]
    owner = "ObjectMeta" if custom else "ObjectMeta.metadata"
    problems: list[Problem] = []
    for key, value in metadata.items():
        if value is None or key not in FIELDS:
            continue
        found = _wrong_type(key, value)
        if found is not None:
            json_kind, go = found
            detail = f"json: cannot unmarshal {json_kind} into Go struct field {owner}.{key} of type {go}"
            problems.append(
                Problem(_at(where, key), prefix + detail, "write it as Kubernetes does (strings in maps)")
            )
    return problems


def metadata_unknown_fields(obj: Mapping[str, Any], api_version: str, kind: str, path: str) -> list[Problem]:
    """The metadata's fields ``ObjectMeta`` does not have (strict decoding refuses them)."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, Mapping):
        return []
    prefix = decoding_prefix(api_version, kind)
    return [
        Problem(
            _at(_at(path, "metadata"), str(key)),
            prefix + f'strict decoding error: unknown field "metadata.{key}"',
            f"fields here: {', '.join(FIELDS)}",
        )
        for key in metadata
        if key not in FIELDS
    ]


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


def metadata_validation(metadata: Mapping[str, Any], path: str, *, namespaced: bool = True) -> list[Problem]:
    """``ValidateObjectMeta`` on decoded metadata (the name's presence is ``object_meta_problems``');
    a cluster-scoped object's namespace is cleared by the server before validation."""
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
    if namespaced and isinstance(namespace, str) and namespace:
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


def object_meta_problems(
    obj: Mapping[str, Any],
    api_version: str,
    kind: str,
    path: str,
    *,
    custom: bool = False,
    namespaced: bool = True,
) -> tuple[list[Problem], bool]:
    """The metadata as the API server reads it: decoded strictly, then ``ValidateObjectMeta``;
    and whether it decoded (a body that does not decode gets no validation). toposched also needs
    the name, as pods and groups name each other: a ``generateName`` alone is refused with a
    message of its own."""
    decoding = metadata_decoding(obj, api_version, kind, path, custom=custom)
    if decoding:
        return decoding, False
    metadata = obj.get("metadata") or {}
    where = _at(path, "metadata.name")
    problems: list[Problem] = []
    if metadata.get("name") in (None, ""):
        if metadata.get("generateName"):
            message = "toposched needs the object's name: pods and groups refer to each other by name"
            problems.append(Problem(where, message, "write metadata.name instead of metadata.generateName"))
        else:
            message = field_error(FieldErrorType.REQUIRED, detail="name or generateName is required")
            problems.append(Problem(where, message, "name the object (pods and groups refer to it)"))
    return problems + metadata_validation(metadata, path, namespaced=namespaced), True


def _each(details: list[str], where: str, value: str, hint: str) -> list[Problem]:
    return [Problem(where, field_error(FieldErrorType.INVALID, value, detail), hint) for detail in details]
