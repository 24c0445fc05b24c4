"""API-key authentication: a short-lived HS256 JWT signed with the key's secret, made here with the
standard library (header kid = api_key; payload sub = api_key, iss = sdk, iat, exp), as the spec's
Authentication section and docs/openapi.json's bearerAuth describe."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from typing import Generator, Optional

import httpx

TOKEN_LIFETIME_SECONDS = 600
# A token is made again this long before it expires, so a request never carries one about to lapse.
RENEW_MARGIN_SECONDS = 60


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def sdk_token(api_key: str, api_secret: str, now: Optional[int] = None, lifetime: int = TOKEN_LIFETIME_SECONDS) -> str:
    """A bearer token for ``Authorization: Bearer <token>``."""
    iat = int(time.time()) if now is None else now
    header = {"alg": "HS256", "typ": "JWT", "kid": api_key}
    payload = {"sub": api_key, "iss": "sdk", "iat": iat, "exp": iat + lifetime}
    signing_input = ".".join(_b64url(json.dumps(part, separators=(",", ":")).encode()) for part in (header, payload))
    signature = hmac.new(api_secret.encode(), signing_input.encode("ascii"), hashlib.sha256).digest()
    return f"{signing_input}.{_b64url(signature)}"


class ApiKeyAuth(httpx.Auth):
    """Signs every request with a token of the key, renewed before it expires."""

    def __init__(self, api_key: str, api_secret: str) -> None:
        self.api_key = api_key
        self._secret = api_secret
        self._token = ""
        self._expires = 0

    def token(self) -> str:
        now = int(time.time())
        if now >= self._expires - RENEW_MARGIN_SECONDS:
            self._token = sdk_token(self.api_key, self._secret, now)
            self._expires = now + TOKEN_LIFETIME_SECONDS
        return self._token

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = f"Bearer {self.token()}"
        yield request
