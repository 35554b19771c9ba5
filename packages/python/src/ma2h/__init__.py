"""ma2h — the agent side of MA2H (Multi-agent to Human) in Python.

Agents ask people (``client.ask.confirm|select|input``), notify them and hand them tasks through an
MA2H Hub; answers come back as signed §6 Responses, long-polled (``handle.wait()``) or pushed to a
receiver that verifies them (``asgi_push_receiver`` / ``wsgi_push_receiver``). The same guarantees
as the TypeScript SDK ``@ma2h/agent``: push verification (§9.2), directive and session-entry
verification (§9.7, §9.8), sealed state (§9.3), at-most-once acting on ``(in_reply_to,
resolution_id)``, a submit journal that survives a process exit, and one error root (``Ma2hError``).

    from ma2h import Client
    client = Client.from_env()                                   # MA2H_URL, MA2H_API_KEY, MA2H_AGENT_ID
    handle = client.ask.confirm("Deploy v2 to production?", expires_in=3600, default_on_expire="deny")
    answer = handle.wait(timeout=3600)
    print(answer.resolution, answer.value, answer.by_human)
"""

from __future__ import annotations

from .aio import AsyncClient, AsyncMessageHandle
from .client import Answer, AskCalls, Client, MessageHandle, Messages
from .directive import Directive, VerifiedEntry, verify_directive, verify_entry
from .directives import Directives, SenderNotAcceptedError
from .envelopes import HUMAN_ONLY_FIELD, SDK_VERSION, Callback
from .errors import (
    AgentIdMismatchError,
    AlreadyTerminalError,
    CapabilityError,
    DestinationGoneError,
    GoneError,
    HubError,
    HubKeysError,
    HubUnavailableError,
    IdempotencyConflictError,
    InternalError,
    InvalidFieldError,
    InvalidResponseError,
    JournalError,
    Ma2hError,
    MisrouteError,
    MissingDependencyError,
    NetworkError,
    NotAcknowledgeableError,
    NotAnsweredByHumanError,
    NotAuthorizedError,
    NotFoundError,
    RateLimitedError,
    SessionClosedByOperatorError,
    StateIntegrityError,
    UnauthenticatedError,
    UnknownDestinationError,
    ValidationError,
    VerificationError,
    VersionNotSupportedError,
    WaitTimeoutError,
)
from .journal import (
    DedupStore,
    FileDedupStore,
    FileSubmitJournal,
    MemoryDedupStore,
    MemorySubmitJournal,
    SubmitJournal,
    response_dedup_key,
)
from .push import FileReplayStore, MemoryReplayStore, PublishedKeys, ReplayStore, verify_push
from .receivers import PushReceiver, asgi_push_receiver, wsgi_push_receiver
from .response import Response, is_human_answer, parse_response
from .sessions import Sessions
from .state import open_state, seal_state
from .transport import RetryOptions

__version__ = "0.6.0"

__all__ = [
    "__version__",
    # the client
    "Client",
    "AsyncClient",
    "MessageHandle",
    "AsyncMessageHandle",
    "Messages",
    "AskCalls",
    "Sessions",
    "Directives",
    "Answer",
    "Callback",
    "RetryOptions",
    "SDK_VERSION",
    "HUMAN_ONLY_FIELD",
    # typed protocol values
    "Response",
    "Directive",
    "VerifiedEntry",
    "parse_response",
    "is_human_answer",
    # verifiers and receivers
    "verify_push",
    "verify_directive",
    "verify_entry",
    "PublishedKeys",
    "PushReceiver",
    "asgi_push_receiver",
    "wsgi_push_receiver",
    # state and stores
    "seal_state",
    "open_state",
    "SubmitJournal",
    "MemorySubmitJournal",
    "FileSubmitJournal",
    "DedupStore",
    "MemoryDedupStore",
    "FileDedupStore",
    "ReplayStore",
    "MemoryReplayStore",
    "FileReplayStore",
    "response_dedup_key",
    # errors
    "Ma2hError",
    "HubError",
    "ValidationError",
    "VersionNotSupportedError",
    "UnauthenticatedError",
    "AgentIdMismatchError",
    "NotAuthorizedError",
    "SessionClosedByOperatorError",
    "NotFoundError",
    "IdempotencyConflictError",
    "AlreadyTerminalError",
    "NotAcknowledgeableError",
    "GoneError",
    "DestinationGoneError",
    "InvalidFieldError",
    "UnknownDestinationError",
    "RateLimitedError",
    "InternalError",
    "HubUnavailableError",
    "NetworkError",
    "WaitTimeoutError",
    "CapabilityError",
    "JournalError",
    "MisrouteError",
    "NotAnsweredByHumanError",
    "InvalidResponseError",
    "VerificationError",
    "HubKeysError",
    "StateIntegrityError",
    "MissingDependencyError",
    "SenderNotAcceptedError",
]
