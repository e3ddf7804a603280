"""The generator scripts under tools/, loaded as modules: the tests run them and compare what they
write with the generated modules in the tree."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TOOLS = Path(__file__).resolve().parents[2] / "tools"


def load_tool(name: str) -> ModuleType:
    """``tools/<name>.py`` as module ``name`` (registered in ``sys.modules``, as its dataclasses
    need to find their module)."""
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
