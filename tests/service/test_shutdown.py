"""A real server: SIGTERM and Ctrl-C close the store cleanly (WAL checkpointed, exit 0), slow
clients can neither hold a connection open nor keep ``/v1/health`` from answering, and a request
head larger than the limit is refused."""

from __future__ import annotations

import shutil
import signal
import socket
from pathlib import Path

import httpx
import pytest
from tests.api.specs import cluster_yaml, job_yaml
from tests.service.server import USERS, Server, headers

from toposched.store import SqliteStore

SLOW_CLIENTS = 40
CAP = 16


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_checkpoints_the_store_and_exits_0(tmp_path: Path, sig: signal.Signals) -> None:
    server = Server(tmp_path, cluster=cluster_yaml())
    server.start()
    try:
        response = httpx.post(
            f"{server.url}/v1/workloads", json={"spec": job_yaml()}, headers=headers(USERS["user0"])
        )
        assert response.status_code == 201, response.text
        workload = response.json()["id"]
    finally:
        code = server.stop(sig)
    assert code == 0, server.log.read_text()
    wal = server.db.with_name(server.db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0
    copy = tmp_path / "copy" / "toposched.db"
    copy.parent.mkdir()
    shutil.copyfile(server.db, copy)  # the database file alone holds everything
    store = SqliteStore(copy)
    try:
        assert store.get_workload(workload).name == "train"
        assert len(store.get_nodes()) == 16
    finally:
        store.close()


def slow_client(port: int) -> socket.socket:
    """A connection that has sent only the start of a request line."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\n")
    return sock


def test_health_answers_while_slow_clients_hold_connections(tmp_path: Path) -> None:
    server = Server(tmp_path, options=("--max-connections", str(CAP), "--read-timeout", "3"))
    server.start()
    slow: list[socket.socket] = []
    try:
        slow = [slow_client(server.port) for _ in range(SLOW_CLIENTS)]  # more than the cap
        for sock in slow:
            sock.sendall(b"X")  # trickling: one more byte each
        for _ in range(3):
            assert httpx.get(f"{server.url}/v1/health", timeout=10).status_code == 200
        # The read deadline closes a trickling connection even below the cap.
        last = slow[-1]
        last.sendall(b"Y")
        assert last.recv(1024) == b""  # closed by the server, well before the 10 s socket timeout
    finally:
        for sock in slow:
            sock.close()
        server.kill()


def read_all(sock: socket.socket) -> bytes:
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def test_a_request_head_over_the_limit_is_refused_and_closed(tmp_path: Path) -> None:
    server = Server(tmp_path)  # the default limit: 64 KiB of request line and headers
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 70_000)
            answer = read_all(sock)  # the server closes the connection after answering
        assert answer.startswith(b"HTTP/1.1 400 ")
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
            sock.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 1000 + b"\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
    finally:
        server.kill()
