"""Shared pytest setup.

This folder is on ``sys.path`` (it has no ``__init__.py``), so tests import ``builders`` and
``conformance.loader`` directly. The repository root is added too, so ``tests.conformance...``
imports also resolve when pytest is started without ``python -m``.
"""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parents[1])
if _ROOT not in sys.path:
    sys.path.append(_ROOT)
