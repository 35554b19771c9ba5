"""What the adapters share: the client behind either client kind, the ask kinds by name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

from ..aio import AsyncClient
from ..client import Client, MessageHandle


def sync_client(client: Union[Client, AsyncClient]) -> Client:
    """The synchronous client (an AsyncClient shares one)."""
    return client.sync if isinstance(client, AsyncClient) else client


def submit_ask(client: Client, spec: Mapping[str, Any], **extra: Any) -> MessageHandle:
    """Submits the ask a spec describes: ``mode`` confirm/select/input, ``title``, and the mode's
    own ``options`` or ``schema``; every other key is an ask option (``body``, ``expires_in``,
    ``default_on_expire``, ``require_human``…)."""
    o = {**spec, **extra}
    mode = o.pop("mode", "confirm")
    title = o.pop("title")
    if mode == "confirm":
        return client.ask.confirm(title, **o)
    if mode == "select":
        return client.ask.select(title, o.pop("options"), **o)
    if mode == "input":
        return client.ask.input(title, o.pop("schema"), **o)
    raise ValueError(f"unknown ask mode {mode!r}: confirm, select or input")
