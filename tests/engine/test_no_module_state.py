"""No module of the engine keeps state of its own (DESIGN.md, "The engine", point 7): what
placements derive is kept by a placement session (``EngineCaches``), never in a module global, so
callers do not share caches behind each other's backs and a session's memory goes with it.

The check reads each module's source for the names it binds itself (imports are another module's
business), then looks at their values once imported: only immutable values may stay at module or
class level. Immutable: numbers, strings, None, enums, classes, plain functions (not memoised),
type variables, tuples and frozensets of immutable values, read-only mappings
(``MappingProxyType``), read-only numpy arrays and scalars, frozen dataclasses of immutable values,
and instances that carry no state of their own. A function rebinding a module global
(``global``) is state too."""

from __future__ import annotations

import ast
import dataclasses
import enum
import importlib
import inspect
import pkgutil
from functools import lru_cache
from types import BuiltinFunctionType, FunctionType, MappingProxyType, ModuleType
from typing import TypeVar, get_origin

import numpy as np

import toposched.engine

_SCALARS = (type(None), bool, int, float, complex, str, bytes, range, enum.Enum, np.generic, TypeVar)


def engine_modules() -> list[ModuleType]:
    names = [m.name for m in pkgutil.walk_packages(toposched.engine.__path__, "toposched.engine.")]
    return [importlib.import_module(name) for name in ["toposched.engine", *names]]


def is_immutable(value: object) -> bool:
    if isinstance(value, (*_SCALARS, type, BuiltinFunctionType)) or get_origin(value) is not None:
        return True  # get_origin: a type alias such as ``tuple[int, str]``
    if isinstance(value, FunctionType):
        return not hasattr(value, "cache_info")  # lru_cache/cache wrappers are not FunctionType
    if isinstance(value, (tuple, frozenset)):
        return all(is_immutable(item) for item in value)
    if isinstance(value, MappingProxyType):
        return all(is_immutable(k) and is_immutable(v) for k, v in value.items())
    if isinstance(value, np.ndarray):
        return not value.flags.writeable
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        frozen = type(value).__dataclass_params__.frozen  # type: ignore[attr-defined]  # dataclass internals
        return bool(frozen) and all(is_immutable(getattr(value, f.name)) for f in dataclasses.fields(value))
    if type(value).__module__.startswith("toposched."):
        # a stateless singleton (a policy object): no attribute of its own
        return not getattr(value, "__dict__", None) and not any(
            hasattr(value, slot) for cls in type(value).__mro__ for slot in getattr(cls, "__slots__", ())
        )
    return False


def bound_names(tree: ast.Module) -> tuple[list[str], list[str]]:
    """The names a module binds at its top level (assignments, functions, classes) and the names
    of the functions that rebind a module global."""
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    rebinding = [
        f.name
        for f in ast.walk(tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(isinstance(s, ast.Global) for s in ast.walk(f))
    ]
    return names, rebinding


def class_state(cls: type) -> list[str]:
    """Class-level attributes holding mutable values (shared by every instance)."""
    found = []
    for name, value in vars(cls).items():
        if name.startswith(("__", "_abc_")) or isinstance(value, (staticmethod, classmethod, property)):
            continue  # dunders and the ABC machinery's own cache
        if inspect.isdatadescriptor(value) or inspect.ismethoddescriptor(value):
            continue  # slots, methods
        if not is_immutable(value):
            found.append(name)
    return found


def module_state(module: ModuleType, source: str) -> list[str]:
    """Names of ``module`` (parsed from ``source``) that hold mutable or memoised values."""
    names, rebinding = bound_names(ast.parse(source))
    found = [f"{module.__name__}.{name}() rebinds a global" for name in rebinding]
    for name in names:
        if name.startswith("__"):
            continue  # ``__all__`` and the like
        value = vars(module).get(name)
        if isinstance(value, type) and value.__module__ == module.__name__:
            found += [f"{module.__name__}.{name}.{attr}" for attr in class_state(value)]
        elif not is_immutable(value):
            found.append(f"{module.__name__}.{name}")
    return found


def test_no_engine_module_keeps_state() -> None:
    modules = engine_modules()
    assert len(modules) > 30  # every module was found
    found = [item for module in modules for item in module_state(module, inspect.getsource(module))]
    assert found == []


def test_the_check_finds_module_and_class_state() -> None:
    """The check itself: a dict, a counter, a writable array, an ``lru_cache``, a class-level
    list and a ``global`` are found; constants are not."""
    source = """
from itertools import count
KEPT = {}
NUMBERS = count()
ROWS = None
LEVELS = ("a", "b")
NAMES = frozenset({"x"})
BY_NAME = None
def memo(x): ...
class Holder:
    seen = []
    limit = 3
def bump():
    global LEVELS
"""
    fake = ModuleType("toposched.engine.fake")

    @lru_cache(maxsize=2)
    def memo(x: int) -> int:
        return x

    class Holder:
        seen: list[int] = []  # noqa: RUF012 - the state the check must find
        limit = 3

    Holder.__module__ = fake.__name__
    readonly = np.zeros(2)
    readonly.setflags(write=False)
    vars(fake).update(
        KEPT={},
        NUMBERS=iter(range(3)),
        ROWS=np.zeros(2),
        LEVELS=("a", "b"),
        NAMES=frozenset({"x"}),
        BY_NAME=MappingProxyType({"a": readonly}),
        memo=memo,
        Holder=Holder,
        bump=lambda: None,
    )
    assert module_state(fake, source) == [
        "toposched.engine.fake.bump() rebinds a global",
        "toposched.engine.fake.KEPT",
        "toposched.engine.fake.NUMBERS",
        "toposched.engine.fake.ROWS",
        "toposched.engine.fake.memo",
        "toposched.engine.fake.Holder.seen",
    ]
