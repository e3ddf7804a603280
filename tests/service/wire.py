"""A lean HTTP/1.1 client for the load driver: one keep-alive connection per client, no pool.

httpx spends about 10 ms of CPU per request in its async stack; with 100 clients in one process
the driver, not the server, then sets the latency it measures. This client only writes the request
and reads the status line, headers and the whole body (Content-Length or chunked), so a measured
latency is the full round trip of one request.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True, slots=True)
class Reply:
    status_code: int
    content: bytes

    def json(self) -> object:
        return json.loads(self.content)


class WireError(Exception):
    """The connection failed or the server answered something that is not HTTP/1.1."""


class Wire:
    """One persistent connection to ``base`` (``http://host:port``); reconnects when it was closed."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self._host, self._port = parts.hostname or "127.0.0.1", parts.port or 80
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(self, method: str, path: str, token: str, body: object = None) -> Reply:
        """Send one request and read the whole answer."""
        payload = b"" if body is None else json.dumps(body).encode()
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self._host}:{self._port}\r\n"
            f"Authorization: Bearer {token}\r\nContent-Length: {len(payload)}\r\n"
            + ("Content-Type: application/json\r\n" if body is not None else "")
            + "\r\n"
        )
        try:
            reader, writer = await self._connection()
            writer.write(head.encode() + payload)
            await writer.drain()
            return await self._read(reader)
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            await self.close()
            raise WireError(f"{method} {path}: {exc!r}") from exc

    async def close(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    async def _connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None or self._reader.at_eof():
            self._reader, self._writer = await asyncio.open_connection(self._host, self._port)
        return self._reader, self._writer

    async def _read(self, reader: asyncio.StreamReader) -> Reply:
        lines = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                if size == 0:
                    break
                chunks.append(chunk[:-2])
            content = b"".join(chunks)
        else:
            content = await reader.readexactly(int(headers.get("content-length", "0")))
        if headers.get("connection", "").lower() == "close":
            await self.close()
        return Reply(status, content)
