"""``create_app``: the FastAPI service over one ``Scheduler``.

The scheduler loop runs in a background thread for the app's lifetime (started and stopped by the
lifespan); it is event-driven, woken by the scheduler's own verbs, so ``loop_interval`` only bounds
how long it sleeps when nothing happens. Routes are thin: they check the caller's role, call the
scheduler or read the store, and turn records into JSON. The hot routes are ``async`` and hand
their blocking part to the app's ``Offload`` pools (see ``api.verbs``); ``api.hot`` serves them
without FastAPI's per-request machinery. Every error becomes JSON through ``api.errors``.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from toposched.api.auth import AuthConfig
from toposched.api.errors import CatchAllMiddleware, install_error_handlers
from toposched.api.explaining import Explanations
from toposched.api.gate import Gate
from toposched.api.hot import HotRoutes
from toposched.api.keyring import Keyring
from toposched.api.limits import BodyLimitMiddleware, Limits
from toposched.api.offload import Offload
from toposched.api.routes import (
    defrag,
    events,
    explanations,
    nodes,
    pools,
    queues,
    quotas,
    tokens,
    topologies,
    view,
    workloads,
)
from toposched.api.verbs import WorkloadVerbs
from toposched.api.versioned import VersionedCache
from toposched.api.viewcache import ViewCache
from toposched.api.yaml_submit import YamlSubmissions
from toposched.scheduler import Scheduler
from toposched.store import Store

DESCRIPTION = (
    "Topology-aware gang scheduling. Authenticate with `Authorization: Bearer <token>`; "
    "admins manage nodes, topologies, pools, quotas and tokens, users submit and manage their own workloads."
)


class ServiceApp(FastAPI):
    """The FastAPI app, with ``HotRoutes`` (when set) taking its requests before FastAPI's own
    per-request stack (telemetry check, error and body-limit middlewares, router) runs, and
    ``YamlSubmissions`` turning a job file sent as the body into the JSON envelope before both."""

    hot_routes: HotRoutes | None = None
    yaml_submissions: YamlSubmissions | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        yaml_submissions = self.yaml_submissions
        if yaml_submissions is not None and yaml_submissions.takes(scope):
            await yaml_submissions(scope, receive, send)
        else:
            await self.dispatch(scope, receive, send)

    async def dispatch(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The hot routes for what they take, else the FastAPI app."""
        hot = self.hot_routes
        if hot is not None and hot.takes(scope):
            await hot(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)

    async def without_hot_routes(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The FastAPI app alone: where ``HotRoutes`` sends what it does not serve itself."""
        await super().__call__(scope, receive, send)


def create_app(
    scheduler: Scheduler,
    auth: AuthConfig,
    *,
    limits: Limits,
    store: Store | None = None,
    run_loop: bool = True,
    loop_interval: float = 0.2,
    hot_routes: bool = True,
) -> FastAPI:
    """The service. ``store`` defaults to the scheduler's; ``run_loop=False`` leaves cycles to the
    caller; ``hot_routes=False`` serves submit, read and cancel through their FastAPI routes only
    (the reference ``api.hot`` is checked against)."""
    stop = threading.Event()
    # Few threads on purpose: compiling holds the GIL, and every extra compiling thread takes GIL
    # time from the event loop (measured: 2-3 is best for 100 clients on 2 cores). Submissions
    # then wait for their group commit on ``commits``: sleeping threads, many so that a burst
    # joins one batch instead of batches capped at the compile pool's size.
    offload, submissions = Offload("toposched-api", 4), Offload("toposched-submit", 1)
    commits = Offload("toposched-commit", 64)
    # Explanations search for seconds: a pool of their own, so reads never wait behind them.
    explaining = Offload("toposched-explain", limits.explanations_total)
    threads = (offload, submissions, commits, explaining)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        for pool in threads:
            pool.open()
        thread = None
        if run_loop:
            thread = threading.Thread(
                target=scheduler.run, args=(stop,), kwargs={"interval": loop_interval}, daemon=True
            )
            thread.start()
        try:
            yield
        finally:
            stop.set()
            scheduler.wake()  # the loop may be sleeping until its next timeout
            if thread is not None:
                thread.join(timeout=10)
            for pool in threads:
                pool.close()

    # No /docs or /redoc: their pages load scripts from a CDN and render blank offline; the
    # schema is at /openapi.json for any viewer.
    app = ServiceApp(
        title="toposched",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    app.state.scheduler = scheduler
    app.state.store = store if store is not None else scheduler.store
    # The file's tokens and those admins make (kept in the store): one keyring every request reads.
    keyring = Keyring(auth, app.state.store)
    app.state.auth = keyring
    app.state.limits = limits
    app.state.offload = offload
    verbs = WorkloadVerbs(scheduler, compiling=submissions, waiting=commits, reading=offload)
    app.state.verbs = verbs
    app.state.view_cache = ViewCache()
    gate = Gate(
        "explanations",
        per_user=limits.explanations_per_user,
        total=limits.explanations_total,
        retry_after=scheduler.config.explain_seconds,
    )
    app.state.explanations = Explanations(scheduler, gate, offload, explaining, VersionedCache(256))
    install_error_handlers(app)
    for module in (workloads, explanations, nodes, topologies, pools, quotas, tokens, events, defrag, view):
        app.include_router(module.router)
    app.include_router(queues.router)
    app.add_middleware(BodyLimitMiddleware, max_bytes=limits.max_body_bytes)
    app.add_middleware(CatchAllMiddleware)  # added last: outermost, so it sees every failure
    if hot_routes:
        app.hot_routes = HotRoutes(
            verbs, keyring, fallback=app.without_hot_routes, max_body_bytes=limits.max_body_bytes
        )
    app.yaml_submissions = YamlSubmissions(app.dispatch, keyring, max_body_bytes=limits.max_body_bytes)
    return app
