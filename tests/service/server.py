"""A real ``toposched serve`` process on a loopback port, that tests can SIGKILL and restart."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import yaml

ADMIN = "svc-admin-token-0123456789"
USERS = {f"user{i}": f"svc-user{i}-token-0123456789" for i in range(4)}

_LAUNCH = "import typer; from toposched.cli.serve import serve_command; typer.run(serve_command)"


def write_tokens(path: Path) -> Path:
    entries = [{"token": ADMIN, "user": "root", "role": "admin"}]
    entries += [{"token": token, "user": user, "role": "user"} for user, token in USERS.items()]
    path.write_text(yaml.safe_dump({"tokens": entries}), encoding="utf-8")
    path.chmod(0o600)  # serve refuses a tokens file others may read
    return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """Start, kill -9 and restart one server on the same DB file and port."""

    def __init__(
        self,
        workdir: Path,
        *,
        cluster: str | None = None,
        interval: float = 0.05,
        options: tuple[str, ...] = (),
    ) -> None:
        self.db = workdir / "toposched.db"
        self.tokens = write_tokens(workdir / "tokens.yaml")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.interval = interval
        self.options = options
        self.log = workdir / "server.log"
        self._cluster_file: Path | None = None
        if cluster is not None:
            self._cluster_file = workdir / "cluster.yaml"
            self._cluster_file.write_text(cluster, encoding="utf-8")
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, *, timeout: float = 30.0) -> None:
        args = [sys.executable, "-c", _LAUNCH, "--db", str(self.db), "--tokens", str(self.tokens)]
        args += ["--port", str(self.port), "--interval", str(self.interval), *self.options]
        if self._cluster_file is not None and self.starts == 0:
            args += ["--cluster", str(self._cluster_file)]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        self.starts += 1
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/v1/health", timeout=1.0).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"server did not become healthy: {self.log.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown hooks, no flush; whatever the store committed is all there is."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def stop(self, sig: signal.Signals = signal.SIGINT) -> int | None:
        """Send ``sig`` and wait for the exit; its exit code (None when it had to be killed)."""
        code = None
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                code = self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None
        return code


def headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
