"""RemoteA2aAgent: an agent that answers by calling a remote agent over A2A (google-adk's name).

Each run sends the conversation since this agent last answered (the user's messages, other
agents' replies told as context, as google-adk does) as one A2A message, waits for the remote
task to stop, and yields one event with the remote answer. The remote ``contextId`` is kept on
that event (``custom_metadata["a2a:context_id"]``) and sent with the next message, so the remote
side keeps one conversation per local session; a task that stopped in ``input-required`` is
resumed by the next message (``taskId``).

Session state does not cross the boundary: what the remote agent needs goes in the message.
A failure (the card, the connection, an HTTP or JSON-RPC error, a failed task) raises
``A2AClientError``; the runner turns it into one error event naming this agent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any, Final

import httpx
from pydantic import Field, PrivateAttr, field_validator

from yadk._contexts import InvocationContext
from yadk.a2a._card import AgentCard, card_url, read_card
from yadk.a2a._client import FAILED_STATES, MAX_CARD_BYTES, A2AReply, JsonRpcClient
from yadk.a2a._parts import parts_to_a2a
from yadk.agents import BaseAgent, as_context
from yadk.errors import A2AClientError, AgentCardResolutionError
from yadk.events import Event
from yadk.types import Content, Part

__all__ = ["A2A_METADATA_PREFIX", "DEFAULT_TIMEOUT", "RemoteA2aAgent"]

A2A_METADATA_PREFIX: Final = "a2a:"
DEFAULT_TIMEOUT: Final = 600.0
_CONTEXT_ID: Final = A2A_METADATA_PREFIX + "context_id"
_TASK_ID: Final = A2A_METADATA_PREFIX + "task_id"
_TASK_STATE: Final = A2A_METADATA_PREFIX + "task_state"
_PAUSED: Final = frozenset({"input-required", "auth-required"})


class RemoteA2aAgent(BaseAgent):
    """Calls the A2A agent its card describes (see the module docstring).

    ``agent_card`` is the card's URL (``https://host/.well-known/agent-card.json``, or the URL
    the card is published under), a path to a card file, or the card itself as a dict.
    ``headers`` go with every request (the card fetch too); ``timeout`` bounds each request in
    seconds. Pass ``httpx_client`` to share a client (or to test with ``httpx.MockTransport``).
    """

    agent_card: str | dict[str, Any]
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    httpx_client: httpx.AsyncClient | None = Field(default=None, repr=False, exclude=True)

    _card: AgentCard | None = PrivateAttr(default=None)
    _client: JsonRpcClient | None = PrivateAttr(default=None)

    @field_validator("agent_card")
    @classmethod
    def _card_given(cls, value: str | dict[str, Any]) -> str | dict[str, Any]:
        if isinstance(value, str) and not value.strip():
            raise ValueError("agent_card is empty: give the card's URL, a card file, or the card")
        return value

    @field_validator("timeout")
    @classmethod
    def _positive_timeout(cls, value: float) -> float:
        if not value > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {value}")
        return value

    # --- the card ---------------------------------------------------------------------------

    @property
    def client(self) -> JsonRpcClient:
        if self._client is None:
            self._client = JsonRpcClient(
                headers=self.headers, timeout=self.timeout, http=self.httpx_client
            )
        return self._client

    async def resolve_card(self) -> AgentCard:
        """The remote agent's card: read (file), fetched (URL) or taken as given, then checked;
        resolved once per agent."""
        if self._card is not None:
            return self._card
        source = self.agent_card
        if isinstance(source, dict):
            card = read_card(source, source=f"of {self.name}")
        elif source.startswith(("http://", "https://")):
            url = card_url(source)
            data = await self.client.fetch_card(url)
            card = read_card(data, source=f"at {url}", fetched_from=url)
        else:
            data = await asyncio.to_thread(_read_card_file, Path(source))
            card = read_card(data, source=f"in {source}")
        self._card = card
        if not self.description:
            self.description = card.description
        return card

    async def close(self) -> None:
        """Close the HTTP client this agent made (one passed as ``httpx_client`` stays open)."""
        if self._client is not None:
            await self._client.aclose()

    # --- running ----------------------------------------------------------------------------

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        card = await self.resolve_card()
        parts, context_id, task_id = self._outgoing(ctx)
        if not parts:
            raise A2AClientError(
                f"There is nothing to send to the remote agent {card.name}: the conversation has"
                " no new message since it last answered."
            )
        message = self.client.message(
            card,
            parts_to_a2a(parts, version=card.protocol),
            context_id=context_id,
            task_id=task_id,
        )
        trace = ctx.trace  # traced: the remote agent's spans join this trace (W3C traceparent)
        extra = {} if trace is None else trace.propagation_headers(ctx.span)
        reply = await self.client.send(card, message, headers=extra)
        if reply.state in FAILED_STATES:
            detail = f": {reply.status_text}" if reply.status_text else ""
            raise A2AClientError(
                f"The remote agent {card.name} reported its task {reply.state}{detail}"
            )
        yield self._reply_event(ctx, reply)

    def _reply_event(self, ctx: InvocationContext, reply: A2AReply) -> Event:
        metadata: dict[str, Any] = {}
        if reply.context_id:
            metadata[_CONTEXT_ID] = reply.context_id
        if reply.task_id:
            metadata[_TASK_ID] = reply.task_id
        if reply.state:
            metadata[_TASK_STATE] = reply.state
        return Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            branch=ctx.branch,
            content=Content(role="model", parts=reply.parts),
            custom_metadata=metadata,
            turn_complete=True,
        )

    def _outgoing(self, ctx: InvocationContext) -> tuple[list[Part], str | None, str | None]:
        """The parts to send (everything since this agent's last remote answer), the remote
        context to send them in, and the paused task they answer, if any."""
        events = ctx.session.events
        start = 0
        context_id = task_id = None
        for index in range(len(events) - 1, -1, -1):
            meta = events[index].custom_metadata
            if events[index].author == self.name and meta and _CONTEXT_ID in meta:
                start = index + 1
                context_id = meta.get(_CONTEXT_ID)
                if meta.get(_TASK_STATE) in _PAUSED:
                    task_id = meta.get(_TASK_ID)
                break
        own_calls = {
            call.id
            for event in events
            if event.author == self.name
            for call in event.get_function_calls()
            if call.id
        }
        parts: list[Part] = []
        for event in events[start:]:
            if event.partial or event.content is None or event.author == self.name:
                continue
            if event.author == "user":
                parts.extend(_user_part(p, own_calls) for p in event.content.parts)
            else:
                relayed = as_context(event)
                if relayed is not None:
                    parts.extend(relayed.parts)
        return parts, context_id, task_id


def _user_part(part: Part, own_calls: set[str]) -> Part:
    response = part.function_response
    if response is not None and response.id not in own_calls:
        # The remote agent never made this call, so it has nothing to resume with it: the
        # result travels as text (google-adk's wording).
        return Part(text=f"Tool {response.name} returned: {json.dumps(response.response)}")
    return part


def _read_card_file(path: Path) -> Any:
    try:
        with path.open("rb") as file:
            body = file.read(MAX_CARD_BYTES + 1)
    except OSError as exc:
        raise AgentCardResolutionError(
            f"The agent card file {path} cannot be read: {exc.strerror or exc}."
        ) from None
    if len(body) > MAX_CARD_BYTES:
        raise AgentCardResolutionError(
            f"The agent card file {path} is over {MAX_CARD_BYTES >> 20} MiB; a card is a small"
            " JSON document."
        )
    try:
        return json.loads(body)
    except ValueError as exc:
        raise AgentCardResolutionError(
            f"The agent card file {path} is not valid JSON: {exc}."
        ) from None
