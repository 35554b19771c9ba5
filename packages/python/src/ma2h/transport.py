"""HTTP to the Hub over the standard library (urllib): bearer auth, JSON, and the retry rules of
§8.3/§8.6 applied to the agent's own calls — 5xx and network errors retried with exponential
backoff and full jitter (bounded attempts), 429 retried only after its ``Retry-After`` (never at
once, §8.6), every other 4xx final. Retrying a submit is safe because the body is the same bytes
on every attempt (§8.1 dedup on the identical payload). Errors are the §8.5 classes of
:mod:`ma2h.errors` (``hub_error_from``); their messages name the path, never the API key or a
body's ``state``. Nothing here logs.
"""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from . import errors as _errors
from .errors import Ma2hError, parse_retry_after

__all__ = [
    "HubReply",
    "RetryOptions",
    "Transport",
    "backoff_delay",
    "is_transient",
    "parse_retry_after",
]

USER_AGENT = "ma2h-python/0.6"


@dataclass(frozen=True)
class RetryOptions:
    """How the transport retries: attempts in all (the first included), the backoff base and
    ceiling in seconds, and the longest ``Retry-After`` worth waiting for (a longer one is raised)."""

    max_attempts: int = 4
    base_delay: float = 0.25
    max_delay: float = 10.0
    max_retry_after: float = 120.0


@dataclass
class HubReply:
    """One HTTP answer: the status, the headers (lower-case names), the parsed JSON body (None for
    an empty or non-JSON body)."""

    status: int
    headers: Mapping[str, str] = field(default_factory=dict)
    body: Any = None


def backoff_delay(attempt: int, base: float, ceiling: float) -> float:
    """Full jitter: a uniform delay in [0, min(ceiling, base·2^attempt)] seconds."""
    return random.uniform(0.0, min(ceiling, base * (2**attempt)))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect would re-send the credential elsewhere: it is an answer, never followed."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


_OPENER = urllib.request.build_opener(_NoRedirect())


def _sleep(seconds: float, cancel: Optional[threading.Event]) -> None:
    if seconds <= 0:
        return
    if cancel is None:
        time.sleep(seconds)
        return
    if cancel.wait(seconds):
        raise Cancelled("the operation was cancelled")


class Cancelled(Exception):
    """Raised when the caller's cancel event was set during a wait or a backoff."""


def _parse(text: bytes) -> Any:
    if not text:
        return None
    try:
        return json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None  # a proxy's HTML page: typed by status alone


class Transport:
    """Requests to one Hub with one API key. Thread-safe (no per-request state is kept)."""

    def __init__(
        self,
        url: str,
        api_key: str,
        *,
        retry: Optional[RetryOptions] = None,
        timeout: float = 30.0,
    ) -> None:
        if not url:
            raise TypeError("the Hub URL is required")
        self.base_url = url.rstrip("/")
        self.__api_key = api_key  # name-mangled: not in repr, not in vars() under its plain name
        self.retry = retry or RetryOptions()
        self.timeout = timeout

    def __repr__(self) -> str:
        return f"Transport({self.base_url!r})"

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        out = self.base_url + path
        pairs = [(k, str(v)) for k, v in (query or {}).items() if v is not None]
        if pairs:
            out += "?" + urllib.parse.urlencode(pairs)
        return out

    def once(
        self,
        method: str,
        path: str,
        *,
        body: Optional[bytes] = None,
        query: Optional[Mapping[str, Any]] = None,
        anonymous: bool = False,
        timeout: Optional[float] = None,
    ) -> HubReply:
        """One attempt: the reply (any status), or a NetworkError when no HTTP answer came."""
        headers = {"accept": "application/json", "user-agent": USER_AGENT}
        if not anonymous:
            headers["authorization"] = f"Bearer {self.__api_key}"
        if body is not None:
            headers["content-type"] = "application/json"
        request = urllib.request.Request(self.url(path, query), data=body, method=method, headers=headers)
        try:
            with _OPENER.open(request, timeout=timeout or self.timeout) as res:
                raw = res.read()
                return HubReply(res.status, {k.lower(): v for k, v in res.headers.items()}, _parse(raw))
        except urllib.error.HTTPError as err:
            try:
                raw = err.read()
            except OSError:
                raw = b""
            hdrs = {k.lower(): v for k, v in (err.headers.items() if err.headers else [])}
            return HubReply(err.code, hdrs, _parse(raw))
        except (urllib.error.URLError, OSError, TimeoutError) as err:
            reason = getattr(err, "reason", err)
            raise _errors.NetworkError(f"network error on {method} {path}: {reason}") from err

    def request(
        self,
        method: str,
        path: str,
        *,
        touchpoint: str,
        body: Optional[bytes] = None,
        query: Optional[Mapping[str, Any]] = None,
        retry_5xx: bool = True,
        anonymous: bool = False,
        timeout: Optional[float] = None,
        cancel: Optional[threading.Event] = None,
    ) -> HubReply:
        """The request with the retry rules: a 2xx/304 reply, else the typed §8.5 error
        (HubUnavailableError once the 5xx retries are spent)."""
        r = self.retry
        attempt = 0
        while True:
            last = attempt + 1 >= max(1, r.max_attempts)
            try:
                reply = self.once(method, path, body=body, query=query, anonymous=anonymous, timeout=timeout)
            except _errors.NetworkError:
                if not retry_5xx or last:
                    raise
                _sleep(backoff_delay(attempt, r.base_delay, r.max_delay), cancel)
                attempt += 1
                continue
            status = reply.status
            if 200 <= status < 300 or status == 304:
                return reply
            retry_after = parse_retry_after(reply.headers.get("retry-after"))
            error = _errors.hub_error_from(status, reply.body, reply.headers, touchpoint=touchpoint)  # type: ignore[arg-type]
            if status == 429:
                # §8.6: never at once; without a Retry-After, at least a second plus the backoff.
                pause = retry_after if retry_after is not None else 1.0 + backoff_delay(attempt, r.base_delay, r.max_delay)
                if last or pause > r.max_retry_after:
                    raise error
                _sleep(max(pause, 0.001), cancel)
                attempt += 1
                continue
            if status >= 500:
                if not retry_5xx or last:
                    raise _as_unavailable(error)
                _sleep(backoff_delay(attempt, r.base_delay, r.max_delay), cancel)
                attempt += 1
                continue
            raise error

    def json_body(self, value: Any) -> bytes:
        """The JSON bytes of a request body (compact, UTF-8)."""
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _as_unavailable(error: _errors.HubError) -> _errors.HubError:
    """A spent 5xx is HubUnavailableError whatever its code, keeping what the Hub said."""
    if isinstance(error, _errors.HubUnavailableError):
        return error
    return _errors.HubUnavailableError(
        error.message,
        status=error.status,
        code=error.code,
        received_code=error.received_code,
        body=error.body,
        retry_after=error.retry_after,
    )


def is_transient(err: BaseException) -> bool:
    """True for the errors a polling loop waits out: network, a spent 5xx, a long 429."""
    return isinstance(err, (_errors.NetworkError, _errors.HubUnavailableError, _errors.RateLimitedError))
