"""google-adk 2.13's A2A server (``to_a2a``) around an echo agent, for yadk's client tests.

Run with google-adk's interpreter: ``python adk_echo_server.py PORT``. The agent answers
``echo: <the text it received>`` (every text part of the message, joined by `` | ``), and
``fail`` makes it raise, so the server reports a failed task.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncGenerator

import uvicorn
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import BaseAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event
from google.genai import types


class EchoAgent(BaseAgent):
    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        content = ctx.user_content
        texts = [p.text for p in (content.parts if content else []) or [] if p.text]
        if any(t.strip() == "fail" for t in texts):
            raise RuntimeError("the echo agent was told to fail")
        yield Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            content=types.Content(
                role="model", parts=[types.Part(text="echo: " + " | ".join(texts))]
            ),
        )


def main() -> None:
    port = int(sys.argv[1])
    agent = EchoAgent(name="adk_echo", description="Echoes what it is told (google-adk).")
    app = to_a2a(agent, host="127.0.0.1", port=port)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


if __name__ == "__main__":
    main()
