"""Run with google-adk's interpreter: google-adk 2.13's own RemoteA2aAgent calls the agent whose
card is at argv[1] and prints, as one JSON line, what each of the messages argv[2:] got back
(the texts of the events, their authors, and error codes), all in one session."""

from __future__ import annotations

import asyncio
import json
import sys
import warnings

warnings.filterwarnings("ignore")


async def main(card_url: str, messages: list[str]) -> None:
    from google.adk.agents.remote_a2a_agent import RemoteA2aAgent
    from google.adk.runners import InMemoryRunner
    from google.genai import types

    agent = RemoteA2aAgent(name="remote", agent_card=card_url)
    runner = InMemoryRunner(agent=agent, app_name="caller")
    session = await runner.session_service.create_session(app_name="caller", user_id="u")
    turns = []
    for text in messages:
        events = []
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            parts = event.content.parts if event.content and event.content.parts else []
            events.append(
                {
                    "author": event.author,
                    "texts": [p.text for p in parts if p.text],
                    "calls": [p.function_call.name for p in parts if p.function_call],
                    "error": event.error_code,
                    "long_running": sorted(event.long_running_tool_ids or []),
                }
            )
        turns.append(events)
    print(json.dumps(turns))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
