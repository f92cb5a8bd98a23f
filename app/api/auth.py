"""API keys (RWAOPT_API_KEYS): who is calling, and may they write.

Keys are off when the variable is unset (the embedded default on loopback): every caller sees
every job. When set, every /api/v1 call sends a key in the X-API-Key header: an unknown or
missing key is 401 and a read-only key (`:read`) writing is 403. A key that may write sees only
the jobs it made (another key's job is 404, as if it did not exist); a read-only key makes none
and reads every job (plans, sweeps, reproductions: a dashboard's view of the deployment). A
job's owner is a digest of the key, so the database holds no key.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Annotated

from fastapi import Request, Security
from fastapi.security import APIKeyHeader

from app.errors import ForbiddenError, UnauthorizedError
from app.settings import get_settings

HEADER = APIKeyHeader(
    name="X-API-Key",
    auto_error=False,
    description="an API key from RWAOPT_API_KEYS (needed only when the server sets keys)",
)
READS = ("GET", "HEAD", "OPTIONS")


@dataclass(frozen=True)
class Caller:
    """`owner`: whose jobs the caller sees and makes, the digest of a key that may write; None
    sees every job (keys off, or a read-only key, which is refused every write before a route
    runs, so it never makes a job)."""

    owner: str | None
    can_write: bool


def key_id(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def caller(request: Request, key: Annotated[str | None, Security(HEADER)] = None) -> Caller:
    keys = get_settings().keys()
    if not keys:
        return Caller(owner=None, can_write=True)
    if not key:
        raise UnauthorizedError("this server needs an API key: send it in the X-API-Key header")
    writable = None
    for known, may_write in keys.items():
        if hmac.compare_digest(known.encode(), key.encode()):
            writable = may_write
    if writable is None:
        raise UnauthorizedError("unknown API key; check the X-API-Key header")
    if request.method not in READS and not writable:
        raise ForbiddenError("this API key is read-only (':read'); use a key that may write")
    if not writable:
        return Caller(owner=None, can_write=False)  # reads only: every owner's jobs
    return Caller(owner=key_id(key), can_write=True)
