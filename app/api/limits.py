"""HTTP hygiene as ASGI middleware.

`BodyLimits`: request bodies within bounds, before FastAPI reads and parses any body: at most
RWAOPT_MAX_BODY_BYTES (413), and each chunk within RWAOPT_BODY_TIMEOUT_S of the previous one
(408), so a huge or trickling body cannot hold memory or a connection; both answers in the
error format. `Cors`: CORS for RWAOPT_CORS_ORIGINS, off by default."""

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
        seen = 0
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        async def limited() -> Message:
            nonlocal seen
            try:
                message = await asyncio.wait_for(receive(), timeout)
            except TimeoutError:
                raise _BodyError(408, "body_timeout", f"no body data for {timeout:g} s") from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _BodyError(413, "too_large", _too_large(limit))
            return message

        try:
            await self.app(scope, limited, sending)
        except _BodyError as error:
            if started:  # too late for an answer: the connection is dropped
                raise
            await _refuse(send, error.status, error.code, error.message)


class _BodyError(Exception):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


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
