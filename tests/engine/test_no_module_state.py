"""No module of the engine keeps state of its own (DESIGN.md, "The engine", point 7): what
placements derive is kept by a placement session (``EngineCaches``), never in a module global, so
callers do not share caches behind each other's backs and a session's memory goes with it."""

from __future__ import annotations

import importlib
import pkgutil
from collections import OrderedDict, defaultdict, deque
from types import ModuleType
from weakref import WeakKeyDictionary, WeakSet, WeakValueDictionary

import toposched.engine

MUTABLE = (
    dict,
    list,
    set,
    bytearray,
    deque,
    OrderedDict,
    defaultdict,
    WeakKeyDictionary,
    WeakValueDictionary,
    WeakSet,
)


def engine_modules() -> list[ModuleType]:
    names = [m.name for m in pkgutil.walk_packages(toposched.engine.__path__, "toposched.engine.")]
    return [importlib.import_module(name) for name in ["toposched.engine", *names]]


def module_state(module: ModuleType) -> list[str]:
    """Module-level names of ``module`` that hold mutable containers or memoised functions."""
    found = []
    for name, value in vars(module).items():
        if name.startswith("__") or getattr(value, "__module__", module.__name__) != module.__name__:
            continue  # dunders and what the module imports
        if isinstance(value, MUTABLE) or hasattr(value, "cache_info"):
            found.append(f"{module.__name__}.{name}")
    return found


def test_no_engine_module_keeps_state() -> None:
    modules = engine_modules()
    assert len(modules) > 30  # every module was found
    assert [found for module in modules for found in module_state(module)] == []


def test_the_check_finds_a_module_cache() -> None:
    """The check itself: a module-level dict and an ``lru_cache`` are found."""
    from functools import lru_cache

    fake = ModuleType("toposched.engine.fake")

    @lru_cache(maxsize=2)
    def memo(x: int) -> int:
        return x

    memo.__module__ = fake.__name__
    vars(fake).update(KEPT={}, memo=memo, LEVELS=("a", "b"))
    assert module_state(fake) == ["toposched.engine.fake.KEPT", "toposched.engine.fake.memo"]
