"""The throughput bench's watch on the pods (``stream.Bindings``) notes every pod placed though
its watch ends: on the real API server, which ends it every second; and on a scripted server
that answers 410 Gone, as a status and as an ERROR event in the stream (the watch lists the pods
and watches on from the listing), and breaks a stream half-way."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from functools import partial
from typing import Any

import httpx
import pytest
from tests.realkube.accounts import ensure_namespace
from tests.realkube.binaries import Binaries
from tests.realkube.control_plane import ControlPlane
from tests.realkube.sidebyside.api import AdminApi
from tests.realkube.sidebyside.stream import Bindings

from polling import wait_until

NAMESPACE = "stream-watch"
CONTAINER = {"name": "w", "image": "registry.example/trainer:1"}


class Labelled:
    """A contender whose pods are placed once labelled ``placed: "yes"`` (nothing runs)."""

    name = "labelled"

    def start(self, plane: ControlPlane, binaries: Binaries) -> None: ...

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        return pod

    def placed(self, pod: Mapping[str, Any]) -> bool:
        return bool((pod.get("metadata") or {}).get("labels", {}).get("placed") == "yes")

    def stop(self) -> None: ...


def pod(name: str, placed: str) -> dict[str, Any]:
    return {"metadata": {"name": name, "labels": {"placed": placed}}, "spec": {"containers": [CONTAINER]}}


@pytest.mark.timeout(120)
def test_the_streams_watch_notes_every_placed_pod_though_the_server_ends_its_watch(
    real_apiserver: ControlPlane,
) -> None:
    ensure_namespace(real_apiserver, NAMESPACE)
    api = AdminApi(real_apiserver)
    pods = f"/api/v1/namespaces/{NAMESPACE}/pods"
    since = api.call("GET", pods, params={"limit": "1"})["metadata"]["resourceVersion"]
    watch = Bindings(
        partial(AdminApi, real_apiserver), Labelled(), since, namespace=NAMESPACE, watch_seconds=1
    )
    try:
        api.create(pods, pod("a", "yes"))
        wait_until(lambda: "a" in watch.placed, what="a is noted")
        time.sleep(2.5)  # the server ends the watch after each second: it is opened again
        api.create(pods, pod("b", "yes"))
        api.create(pods, pod("c", "no"))
        time.sleep(1.5)
        api.call(
            "PATCH",
            f"{pods}/c",
            {"metadata": {"labels": {"placed": "yes"}}},
            content_type="application/merge-patch+json",
        )
        wait_until(lambda: {"a", "b", "c"} <= set(watch.placed), what="every pod is noted", timeout=30)
    finally:
        watch.stop()
        api.delete_now(pods)
        api.close()
    assert watch.relists == 0
    assert watch.watches >= 4
    assert watch.placed["a"] < watch.placed["b"] < watch.placed["c"]


def event(kind: str, name: str, version: int, placed: str = "yes") -> dict[str, Any]:
    obj = {"metadata": {"name": name, "resourceVersion": str(version), "labels": {"placed": placed}}}
    return {"type": kind, "object": obj}


GONE = {"kind": "Status", "code": 410, "reason": "Expired", "message": "too old resource version"}


class ScriptedServer:
    """Answers the watch's calls from a script: each watch request takes the next answer (a
    status, or the lines of a stream that then ends); a listing returns ``listed``."""

    def __init__(self, watches: list[int | list[dict[str, Any]]], listed: list[dict[str, Any]]) -> None:
        self.watches, self.listed = watches, listed
        self.asked: list[str] = []  # the resourceVersion each watch asked for ("list" for a listing)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        params = request.url.params
        if params.get("watch") != "true":
            self.asked.append("list")
            return httpx.Response(200, json={"metadata": {"resourceVersion": "50"}, "items": self.listed})
        self.asked.append(params["resourceVersion"])
        answer = self.watches.pop(0) if self.watches else []
        if isinstance(answer, int):
            return httpx.Response(answer, json=GONE)
        if not self.watches:
            time.sleep(0.05)  # the script is over: an idle watch
        return httpx.Response(200, content="".join(json.dumps(e) + "\n" for e in answer).encode())


def test_the_streams_watch_lists_again_after_410_gone_and_resumes_after_a_closed_watch() -> None:
    server = ScriptedServer(
        watches=[
            410,  # the first watch's version is gone: list
            [event("ADDED", "b", 51), event("MODIFIED", "c", 52, placed="no")],  # then the stream ends
            [{"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "60"}}}],
            [{"type": "ERROR", "object": GONE}],  # gone again, in the stream: list again
            [event("MODIFIED", "c", 70)],
        ],
        listed=[event("ADDED", "a", 40)["object"]],
    )
    client = httpx.Client(base_url="http://scripted", transport=httpx.MockTransport(server))
    watch = Bindings(partial(AdminApi, client=client), Labelled(), "7")
    try:
        wait_until(lambda: {"a", "b", "c"} <= set(watch.placed), what="every pod is noted", timeout=30)
    finally:
        watch.stop()
    assert watch.relists == 2
    assert server.asked[:7] == ["7", "list", "50", "52", "60", "list", "50"]
