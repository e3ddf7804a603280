"""What the generator scripts under tools/ share: their module formatted as CI checks it, and the
command line that writes it or checks that the one in the tree is current."""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def formatted(text: str, target: Path) -> str:
    """``text`` as ``ruff format`` writes it at ``target`` (CI checks the formatting)."""
    done = subprocess.run(
        ["ruff", "format", "--stdin-filename", str(target), "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout


def write_or_check(target: Path, generate: Callable[[], str], doc: str, script: str) -> int:
    """Writes ``generate()`` to ``target``; with ``--check`` only compares (1: out of date).
    ``doc`` is the script's docstring, ``script`` its path (``__file__``)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the module is out of date")
    args = parser.parse_args()
    text = generate()
    if args.check:
        current = target.read_text(encoding="utf-8") if target.exists() else ""
        if current != text:
            command = f"python {Path(script).resolve().relative_to(ROOT)}"
            print(f"{target} is out of date: run {command}", file=sys.stderr)
            return 1
        return 0
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")
    return 0
