"""A kubeconfig file for a client of one API server (the test double, or a real one), with a
bearer token that tells the server which replica is calling."""

from __future__ import annotations

from pathlib import Path

import yaml


def write_kubeconfig(path: Path, server: str, token: str = "test-token") -> Path:
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": "test", "cluster": {"server": server}}],
        "users": [{"name": "test", "user": {"token": token}}],
        "contexts": [{"name": "test", "context": {"cluster": "test", "user": "test"}}],
        "current-context": "test",
    }
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path
