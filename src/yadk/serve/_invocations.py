"""Running one invocation for a request: the runner's events, minus the echoed user message,
with one log line when it ends (app, session, agent, duration, model calls, tokens)."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from yadk._contexts import RunConfig
from yadk.errors import SessionNotFoundError
from yadk.events import Event
from yadk.runner import Runner
from yadk.serve._problems import Problem
from yadk.serve._wire import RunAgentRequest

__all__ = ["Invocation"]

logger = logging.getLogger("yadk.serve.invocation")


class Invocation:
    """One ``/run`` or ``/run_sse`` request's invocation, counted as it goes."""

    def __init__(self, runner: Runner, req: RunAgentRequest, *, streaming: bool) -> None:
        self.runner = runner
        self.req = req
        self.config = RunConfig(streaming=streaming)
        self.agent = runner.agent.name
        self.model_calls = 0
        self.tokens: int | None = None
        self.events = 0
        self.started = time.perf_counter()

    async def events_async(self) -> AsyncIterator[Event]:
        """The invocation's events as google-adk's server sends them (the user's own message is
        stored but not echoed). A missing session is a 404 ``Problem``."""
        req = self.req
        status = "error"
        try:
            stream = self.runner.run_async(
                user_id=req.user_id,
                session_id=req.session_id,
                new_message=req.new_message,
                state_delta=req.state_delta,
                run_config=self.config,
            )
            first = True
            async for event in stream:
                if first and event.author == "user":
                    first = False
                    continue
                first = False
                self._count(event)
                yield event
            status = "ok"
        except SessionNotFoundError:
            status = "not found"
            raise Problem(404, f"Session not found: {req.session_id}") from None
        except BaseException as exc:
            status = (
                "cancelled" if not isinstance(exc, Exception) else f"error {type(exc).__name__}"
            )
            raise
        finally:
            self._log(status)

    def _count(self, event: Event) -> None:
        self.events += 1
        if event.author != "user":
            self.agent = event.author
        content = event.content
        if not event.partial and content is not None and content.role == "model":
            self.model_calls += 1
        usage: Any = getattr(event, "usage_metadata", None)
        if isinstance(usage, dict) and isinstance(usage.get("total_token_count"), int):
            self.tokens = (self.tokens or 0) + usage["total_token_count"]

    def _log(self, status: str) -> None:
        ms = (time.perf_counter() - self.started) * 1000
        fields = {
            "app": self.runner.app_name,
            "user": self.req.user_id,
            "session": self.req.session_id,
            "agent": self.agent,
            "duration_ms": round(ms, 1),
            "model_calls": self.model_calls,
            "tokens": self.tokens,
            "events": self.events,
            "status": status,
        }
        logger.info(
            "invocation app=%s session=%s agent=%s %.1fms model_calls=%d tokens=%s status=%s",
            fields["app"],
            fields["session"],
            fields["agent"],
            ms,
            self.model_calls,
            "-" if self.tokens is None else self.tokens,
            status,
            extra={"fields": fields},
        )
