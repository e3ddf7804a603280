"""Write src/toposched/wire/scheduling_types.py from the Go types of the k8s.io/api module.

The kube front end checks every field of a ``scheduling.k8s.io`` object against the types the
API server decodes it into: the field names (strict decoding), their Go types and the
declarative validation markers (``+k8s:required``, ``+k8s:format=...``, ``+k8s:maxItems=N``,
unions, enums, defaults). This script reads them from the module sources, so the check follows
the API rather than a hand list:

    python tools/gen_scheduling_types.py            # write the module
    python tools/gen_scheduling_types.py --check    # exit 1 when the module is out of date

The sources are found in the Go module cache (``go env GOMODCACHE``, else ~/go/pkg/mod); fetch
them with ``go mod download k8s.io/api@<version>``. To follow a new Kubernetes release, bump the
versions below and run the script.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the generators' shared command line
from generated_module import ROOT, formatted, write_or_check

API_MODULE = "k8s.io/api"
# (group/version, module version, package directory, the types taken: None = every struct)
SOURCES: tuple[tuple[str, str, str, tuple[str, ...] | None], ...] = (
    ("scheduling.k8s.io/v1alpha2", "v0.36.6", "scheduling/v1alpha2", None),  # 1.36; gone in 1.37
    ("scheduling.k8s.io/v1alpha3", "v0.37.2", "scheduling/v1alpha3", None),
    ("scheduling.k8s.io/v1beta1", "v0.37.2", "scheduling/v1beta1", None),
    ("batch/v1", "v0.37.2", "batch/v1", ("JobSchedulingConfiguration",)),
)
# Package aliases a types.go uses for types of another group version read here.
ALIASES = {"schedulingv1alpha3": "scheduling.k8s.io/v1alpha3"}
TARGET = ROOT / "src" / "toposched" / "wire" / "scheduling_types.py"

_TYPE = re.compile(r"^type (\w+) (struct \{|string)\s*$")
_FIELD = re.compile(r"^\t(?:(\w+)\s+)?([\w.*\[\]]+)\s+`(.*)`\s*$")
_JSON = re.compile(r'json:"([^"]*)"')
_CONST = re.compile(r'^\t\w+\s+(\w+)\s*=\s*"([^"]*)"')
_KEPT = ("+k8s:", "+default=", "+union", "+enum")


@dataclass
class Struct:
    name: str
    markers: list[str]
    fields: list[tuple[str, str, list[str]]] = field(default_factory=list)  # json, go type, markers
    enum: list[str] = field(default_factory=list)
    string: bool = False


def module_dir(version: str) -> Path:
    try:
        cache = subprocess.run(
            ["go", "env", "GOMODCACHE"], capture_output=True, text=True, check=True, timeout=60
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        cache = ""
    root = Path(cache or os.path.expanduser("~/go/pkg/mod"))
    return root / f"{API_MODULE}@{version}"


def markers(comment: list[str]) -> list[str]:
    """The markers of a comment block, trailing ``# ...`` notes dropped."""
    out = []
    for line in comment:
        text = line.strip().removeprefix("//").strip()
        if text.startswith(_KEPT):
            out.append(text.split(" #", 1)[0].strip())
    return out


def parse(text: str) -> dict[str, Struct]:
    """Every struct and string type of one types.go, with their fields and markers."""
    types: dict[str, Struct] = {}
    comment: list[str] = []
    current: Struct | None = None
    enum_of: str | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if current is not None:
            if line.startswith("}"):
                current = None
            elif stripped.startswith("//"):
                comment.append(stripped)
            elif (found := _FIELD.match(line)) is not None:
                name, go_type, tags = found.groups()
                if name is None:  # embedded: TypeMeta (inline) and ObjectMeta
                    name, go_type = go_type, go_type
                json_tag = _JSON.search(tags)
                json_name = json_tag.group(1).split(",")[0] if json_tag else name
                if json_name and json_name != "-":
                    current.fields.append((json_name, go_type, markers(comment)))
                comment = []
            else:
                comment = []
            continue
        if stripped.startswith("//"):
            comment.append(stripped)
            continue
        if (found := _TYPE.match(line)) is not None:
            name, shape = found.groups()
            types[name] = Struct(name, markers(comment), string=shape == "string")
            current = types[name] if shape.startswith("struct") else None
            comment = []
            continue
        if stripped == "const (" or stripped == ")":
            enum_of = None
        if (found := _CONST.match(line)) is not None:
            enum_of = found.group(1)
            if enum_of in types:
                types[enum_of].enum.append(found.group(2))
        if not stripped:
            comment = []
    return types


def reachable(
    types: dict[str, dict[str, Struct]], roots: dict[str, tuple[str, ...] | None]
) -> list[tuple[str, str]]:
    """(group/version, type) of every type the roots reach, in the order first reached."""
    order: list[tuple[str, str]] = []
    todo = [(gv, name) for gv, names in roots.items() for name in (names or types[gv])]
    while todo:
        gv, name = todo.pop(0)
        if (gv, name) in order or name not in types[gv]:
            continue
        order.append((gv, name))
        for _, go_type, _ in types[gv][name].fields:
            base = go_type.lstrip("*[]")
            alias, _, local = base.rpartition(".")
            target = ALIASES.get(alias, gv) if alias else gv
            if alias and alias not in ALIASES:
                continue
            todo.append((target, local))
    return order


def render(types: dict[str, dict[str, Struct]], order: list[tuple[str, str]]) -> str:
    lines = [
        '"""The Go types of the ``scheduling.k8s.io`` objects (and a Job\'s ``spec.scheduling``) as the',
        "API server decodes and validates them: each type's fields with their Go type and declarative",
        "validation markers. Generated by tools/gen_scheduling_types.py (do not edit; run it) from",
        *(f"{API_MODULE}@{v} {p}/types.go" for _, v, p, _ in SOURCES),
        '"""',
        "",
        "from toposched.wire.go_types import GoField, GoType",
        "",
        "TYPES: dict[str, dict[str, GoType]] = {",
    ]
    by_gv: dict[str, list[str]] = {}
    for gv, name in order:
        by_gv.setdefault(gv, []).append(name)
    for gv, names in by_gv.items():
        lines.append(f"    {gv!r}: {{")
        for name in names:
            struct = types[gv][name]
            lines.append(f"        {name!r}: GoType(")
            if struct.markers:
                lines.append(f"            markers={tuple(struct.markers)!r},")
            if struct.string:
                lines.append("            string=True,")
            if struct.enum:
                lines.append(f"            enum={tuple(struct.enum)!r},")
            if struct.fields:
                lines.append("            fields=(")
                for json_name, go_type, field_markers in struct.fields:
                    go = qualified(go_type, gv)
                    lines.append(f"                GoField({json_name!r}, {go!r}, {tuple(field_markers)!r}),")
                lines.append("            ),")
            lines.append("        ),")
        lines.append("    },")
    lines.append("}")
    return "\n".join(lines) + "\n"


def qualified(go_type: str, gv: str) -> str:
    """A Go type with another group version's alias spelled as that group version."""
    prefix = go_type[: len(go_type) - len(go_type.lstrip("*[]"))]
    base = go_type[len(prefix) :]
    alias, _, local = base.rpartition(".")
    if alias in ALIASES:
        return f"{prefix}{ALIASES[alias]}.{local}"
    return go_type


def generate() -> str:
    types: dict[str, dict[str, Struct]] = {}
    roots: dict[str, tuple[str, ...] | None] = {}
    for gv, version, package, names in SOURCES:
        path = module_dir(version) / package / "types.go"
        if not path.is_file():
            raise SystemExit(f"{path} not found: run go mod download {API_MODULE}@{version}")
        types[gv] = parse(path.read_text(encoding="utf-8"))
        roots[gv] = (
            names
            if names is not None
            else tuple(n for n, s in types[gv].items() if any(f[0] == "spec" for f in s.fields))
        )
    return formatted(render(types, reachable(types, roots)), TARGET)


def main() -> int:
    return write_or_check(TARGET, generate, __doc__, __file__)


if __name__ == "__main__":
    sys.exit(main())
