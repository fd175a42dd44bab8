"""Record what google-adk 2.13 sends its models when event compaction is on, as
``recorded/compaction.json``, for test_compaction.py to compare yadk's requests with.

Re-record (google-adk 2.13.0 in its own venv, never a yadk dependency):

    /opt/adkvenv/bin/python tests/apps/record_compaction.py

Per case: the queries, the agent model's scripted answers (text, a tool call, or an answer with
a reported prompt size), the summariser's answers, and what google-adk did: every request the
agent model received (its contents), every prompt the summariser received, and each compaction
event left in the session (which stored events its range covers, by index, and its summary).
"""

from __future__ import annotations

import asyncio
import json
import warnings
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps import App
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types
from pydantic import Field

OUT = Path(__file__).resolve().parent / "recorded" / "compaction.json"


class Scripted(BaseLlm):
    model: str = "scripted"
    answers: list[Any] = Field(default_factory=list)
    seen: list[Any] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: Any, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.seen.append(
            [c.model_dump(mode="json", exclude_none=True) for c in llm_request.contents]
        )
        answer = self.answers.pop(0)
        usage = None
        if "call" in answer:
            name, args = answer["call"]
            part = types.Part(function_call=types.FunctionCall(name=name, args=args))
        else:
            part = types.Part(text=answer["text"])
        if "prompt_tokens" in answer:
            usage = types.GenerateContentResponseUsageMetadata(
                prompt_token_count=answer["prompt_tokens"],
                total_token_count=answer["prompt_tokens"],
            )
        yield LlmResponse(content=types.Content(role="model", parts=[part]), usage_metadata=usage)


def lookup(city: str) -> dict[str, str]:
    """The weather in a city."""
    return {"city": city, "weather": "sunny"}


CASES: list[dict[str, Any]] = [
    {
        "name": "sliding_window",
        "config": {"compaction_interval": 2, "overlap_size": 1},
        "queries": ["hello", "weather in Paris?", "and Rome?", "thanks", "bye", "again"],
        "answers": [
            {"text": "Hi there."},
            {"call": ["lookup", {"city": "Paris"}]},
            {"text": "Paris is sunny."},
            {"call": ["lookup", {"city": "Rome"}]},
            {"text": "Rome is sunny."},
            {"text": "You are welcome."},
            {"text": "Goodbye."},
            {"text": "Hello again."},
        ],
        "summaries": ["Summary one.", "Summary two.", "Summary three."],
    },
    {
        "name": "sliding_window_no_overlap",
        "config": {"compaction_interval": 3, "overlap_size": 0},
        "queries": ["one", "two", "three", "four", "five", "six", "seven"],
        "answers": [{"text": f"answer {n}"} for n in range(1, 8)],
        "summaries": ["First summary.", "Second summary."],
    },
    {
        "name": "token_threshold",
        "config": {"token_threshold": 100, "event_retention_size": 2},
        "queries": ["first question", "second question", "third question", "fourth question"],
        "answers": [
            {"text": "first answer", "prompt_tokens": 40},
            {"text": "second answer", "prompt_tokens": 120},
            {"text": "third answer", "prompt_tokens": 60},
            {"text": "fourth answer", "prompt_tokens": 150},
        ],
        "summaries": ["Rolling summary one.", "Rolling summary two."],
    },
]


async def record(case: dict[str, Any]) -> dict[str, Any]:
    model = Scripted(answers=[dict(a) for a in case["answers"]])
    summarizer_model = Scripted(answers=[{"text": s} for s in case["summaries"]])
    agent = LlmAgent(name="assistant", model=model, instruction="Be brief.", tools=[lookup])
    app = App(
        name="compaction_app",
        root_agent=agent,
        events_compaction_config=EventsCompactionConfig(
            summarizer=LlmEventSummarizer(llm=summarizer_model), **case["config"]
        ),
    )
    runner = InMemoryRunner(app=app)
    session = await runner.session_service.create_session(app_name=app.name, user_id="u")
    for query in case["queries"]:
        async for _ in runner.run_async(
            user_id="u",
            session_id=session.id,
            new_message=types.Content(role="user", parts=[types.Part(text=query)]),
        ):
            pass
    stored = await runner.session_service.get_session(
        app_name=app.name, user_id="u", session_id=session.id
    )
    assert stored is not None
    compactions = []
    for index, event in enumerate(stored.events):
        compaction = event.actions.compaction
        if compaction is None:
            continue
        covered = [
            i
            for i, e in enumerate(stored.events)
            if e.actions.compaction is None
            and compaction.start_timestamp <= e.timestamp <= compaction.end_timestamp
        ]
        compactions.append(
            {
                "index": index,
                "author": event.author,
                "covers": covered,
                "summary": compaction.compacted_content.model_dump(mode="json", exclude_none=True),
            }
        )
    return {
        **{k: case[k] for k in ("name", "config", "queries", "answers", "summaries")},
        "requests": model.seen,
        "summarizer_prompts": [r[0]["parts"][0]["text"] for r in summarizer_model.seen],
        "stored_authors": [e.author for e in stored.events],
        "compactions": compactions,
    }


async def main() -> None:
    cases = [await record(case) for case in CASES]
    OUT.write_text(json.dumps(cases, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    asyncio.run(main())
