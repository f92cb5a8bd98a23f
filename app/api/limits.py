"""HTTP hygiene as ASGI middleware.

`BodyLimits`: request bodies within bounds, read whole before FastAPI sees them: at most
RWAOPT_MAX_BODY_BYTES (413, declared or chunked), and each chunk within RWAOPT_BODY_TIMEOUT_S of
the previous one (408), so a huge or trickling body cannot hold memory or a connection; both
answers in the error format. `Cors`: CORS for RWAOPT_CORS_ORIGINS, off by default. `HeadAsGet`:
HEAD answered as GET without the body (RFC 9110 9.3.2), for uptime checks and link checkers
(FastAPI routes GET only, so HEAD was a 405)."""

from __future__ import annotations

import asyncio
import json

from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.settings import get_settings


class BodyLimits:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        settings = get_settings()
        limit, timeout = settings.max_body_bytes, settings.body_timeout_s
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await _refuse(send, 413, "too_large", _too_large(limit))
            return
        # The whole body is read here, within its limits, before the app sees it: FastAPI
        # turns any error raised while it reads a body into a 400, so a chunked body over the
        # limit or a trickle must be answered before (issue: shared use, item 7).
        chunks: list[bytes] = []
        seen = 0
        while True:
            try:
                message = await asyncio.wait_for(receive(), timeout)
            except TimeoutError:
                await _refuse(send, 408, "body_timeout", f"no body data for {timeout:g} s")
                return
            if message["type"] != "http.request":  # the client left: let the app see it
                replay: list[Message] = [message]
                break
            seen += len(message.get("body", b""))
            if seen > limit:
                await _refuse(send, 413, "too_large", _too_large(limit))
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                replay = [{"type": "http.request", "body": b"".join(chunks), "more_body": False}]
                break

        async def buffered() -> Message:
            return replay.pop(0) if replay else await receive()

        await self.app(scope, buffered, send)


def _too_large(limit: int) -> str:
    return f"the request body is larger than {limit} bytes (RWAOPT_MAX_BODY_BYTES); send less"


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"code": code, "message": message, "detail": {}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class Cors:
    """CORS for the origins in RWAOPT_CORS_ORIGINS (off when unset), read per request so the
    setting is the process's current one (Starlette's CORSMiddleware, built per origin list)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._built: dict[tuple[str, ...], ASGIApp] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        origins = tuple(get_settings().origins())
        if not origins or scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if origins not in self._built:
            self._built[origins] = CORSMiddleware(
                self.app,
                allow_origins=list(origins),
                allow_methods=["GET", "POST", "DELETE"],
                allow_headers=["X-API-Key", "Content-Type"],
                expose_headers=["Location", "Retry-After"],
            )
        await self._built[origins](scope, receive, send)


class HeadAsGet:
    """A HEAD request runs as the GET of its path; the answer keeps its status and headers
    (content-length included) and drops its body."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
