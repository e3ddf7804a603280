"""The README's commands, as the doc test reads them: fenced shell blocks (continuation lines
joined, comments cut), the output shown after them, and ``toposched ...`` code spans in prose.

Each command is one of: runnable as written (in a scratch folder that links the checkout's
files), a synopsis (placeholders such as ``JOB.yaml`` or ``[--depth N]``: its command and options
are checked against the command's help), served (needs ``toposched serve``), or left out for a
stated reason (``SKIPPED``)."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

# Commands the test does not run, by how they start, and why. A README command matching none of
# these and no toposched command fails the test until it is run or listed here.
SKIPPED = {
    "pip install": "installs the package: CI's own first step",
    "python -m pytest": "the test suite itself",
    "docker ": "needs Docker",
    "kind ": "needs Docker (kind)",
    "kubectl ": "needs a Kubernetes cluster (the walkthrough); tests/controller runs the controller on a real one",
    "(cd deploy/": "edits the kustomization for an image registry",
    "kustomize ": "edits the kustomization for an image registry",
    "python -m tests.realkube": "runs until Ctrl-C; tests/realkube starts the same control plane",
    "PYTHONPATH=src python -m tests.vs_kueue": "15 minutes; tests/vs_kueue runs eight cases per profile",
    "PYTHONPATH=src python bench/vs_kube_scheduler": "25-30 minutes; tests/realkube and tests/bench run short versions",
    "export TOPOSCHED_SERVER=": "the environment of the curl lines (tests/service/test_readme_curl.py)",
    "curl ": "run by tests/service/test_readme_curl.py against a served instance",
    # concrete after their optional parts are dropped, but not for a test to run as written:
    "toposched simulate --trace philly": "replays the whole Philly trace (minutes); tests/sim replays traces",
    "toposched simulate --trace llm:jobs=2000": "2,000 jobs over 5 seeds (minutes); tests/cli/test_simulate.py runs a small study",
    "toposched controller": "runs until stopped against a cluster; tests/controller runs it on a real one",
    # a synopsis whose every part is optional: without --cluster it reads the kubeconfig's cluster
    "toposched topology lint [--cluster": "reads a live cluster; tests/cli/test_live_cluster.py runs it on a real one",
    "toposched topology show [--cluster": "reads a live cluster; tests/cli/test_live_cluster.py runs it on a real one",
}
SERVED = (
    "toposched serve",
    "toposched submit",
    "toposched list",
    "toposched get",
    "toposched cancel",
    "toposched token",
    "toposched queue",
    "toposched pool put",
    "toposched pool list",
)
# Words that stand for something the reader fills in.
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]*\b|\.\.\.|\|")


@dataclass(frozen=True)
class Command:
    """One command line of the README, with the output shown for it (None: none shown)."""

    line: str
    output: tuple[str, ...] | None = None
    shell_block: bool = True  # else a code span in prose or a table

    @property
    def words(self) -> list[str]:
        return shlex.split(self.line.replace("|", " "))

    def runnable(self) -> str | None:
        """The line without its optional ``[...]`` parts, when nothing in it is a placeholder; a
        code span in prose only when it names a file (else it names a command or an option)."""
        if not self.shell_block and not re.search(r"\S/\S|\.yaml\b", self.line):
            return None
        concrete = re.sub(r"\s*\[[^\]]*\]", "", self.line).strip()
        bare = re.sub(r"\$[A-Z_]+", "", concrete)  # variables the test sets
        return None if PLACEHOLDER.search(bare) else concrete


@dataclass
class Readme:
    commands: list[Command] = field(default_factory=list)


def _blocks(text: str) -> list[tuple[str, str, int, int]]:
    """(language, body, start, end) of each fenced block."""
    return [
        (m.group(1), m.group(2), m.start(), m.end())
        for m in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    ]


def _lines(body: str) -> list[str]:
    """The commands of a shell block: continuations joined, comments and blank lines dropped."""
    out = []
    for raw in body.replace("\\\n", " ").splitlines():
        line = re.sub(r"\s+#\s.*$", "", raw).strip()  # a comment after the command
        if line and not line.startswith("#"):
            out.append(re.sub(r"\s+", " ", line))
    return out


def read_readme(text: str | None = None) -> Readme:
    text = README.read_text(encoding="utf-8") if text is None else text
    readme = Readme()
    blocks = _blocks(text)
    fenced: list[tuple[int, int]] = []
    for index, (language, body, start, end) in enumerate(blocks):
        fenced.append((start, end))
        if language == "sh":
            lines = _lines(body)
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            shown: tuple[str, ...] | None = None
            # One command, and the next block (no language) right after it: its output.
            if len(lines) == 1 and following and following[0] == "" and not text[end : following[2]].strip():
                shown = tuple(following[1].splitlines())
            for line in lines:
                for part in line.split(" && "):
                    readme.commands.append(Command(part.strip(), shown if len(lines) == 1 else None))
        elif language == "" and body.startswith("$ "):
            # A transcript: each "$ command" with the lines after it until the next one.
            current: str | None = None
            output: list[str] = []
            for line in [*body.splitlines(), "$ "]:
                if line.startswith("$ "):
                    if current is not None:
                        readme.commands.append(Command(current, tuple(output)))
                    current, output = line[2:].strip(), []
                else:
                    output.append(line)
    prose = list(text)
    for start, end in fenced:
        prose[start:end] = [" "] * (end - start)
    for span in re.findall(r"`(toposched [^`]+)`", "".join(prose)):
        readme.commands.append(Command(re.sub(r"\s+", " ", span), None, shell_block=False))
    return readme


def skipped_reason(line: str) -> str | None:
    return next((why for start, why in SKIPPED.items() if line.startswith(start)), None)


def matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """``actual`` as the README shows it: lines equal after trailing blanks, and a line whose
    text ends with ``...`` (``├── ...``) stands for any number of lines."""
    want = [line.rstrip() for line in expected]
    got = [line.rstrip() for line in actual]
    while want and not want[-1]:
        want.pop()
    while got and not got[-1]:
        got.pop()
    return _match(want, got)


def _match(want: list[str], got: list[str]) -> bool:
    if not want:
        return not got
    head, rest = want[0], want[1:]
    if head.strip().endswith("..."):
        return any(_match(rest, got[skip:]) for skip in range(len(got) + 1))
    return bool(got) and got[0] == head and _match(rest, got[1:])
