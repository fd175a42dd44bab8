"""load_artifacts' conversions against google-adk 2.13's (fixtures/adk_artifact_parts.json, made by
fixtures/record_adk_artifact_parts.py): each kind of artifact as the model gets it, and a whole
run with a DOCX, a binary, an image, a user-scoped CSV and a name the session does not have."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from yadk import LlmAgent, Runner
from yadk.artifacts import InMemoryArtifactService
from yadk.models import ScriptedModel
from yadk.sessions import InMemorySessionService
from yadk.tools import load_artifacts
from yadk.tools._artifact_parts import as_safe_part_for_llm
from yadk.types import Blob, Part

ADK = json.loads(
    Path(__file__).with_name("fixtures").joinpath("adk_artifact_parts.json").read_text()
)


def stored_part(case: dict[str, Any]) -> Part:
    if "text" in case:
        return Part(text=case["text"])
    data = base64.b64decode(case["data"]) if case["data"] is not None else None
    return Part(inline_data=Blob(mime_type=case["mime_type"], data=data))


@pytest.mark.parametrize("name", sorted(ADK["parts"]))
def test_each_kind_is_rendered_as_google_adk_renders_it(name: str) -> None:
    case = ADK["parts"][name]
    assert as_safe_part_for_llm(stored_part(case), name).to_dict() == case["rendered"]


async def test_a_whole_run() -> None:
    cases = ADK["parts"]
    requested = ["report.docx", "blob.bin", "pixel.png", "shared.csv", "missing.txt"]
    model = ScriptedModel(
        turns=[
            {"function_calls": [{"name": "load_artifacts", "args": {"artifact_names": requested}}]},
            {"text": "Done."},
        ],
        name="gemini-2.5-flash",
    )
    artifacts = InMemoryArtifactService()
    sessions = InMemorySessionService()
    runner = Runner(
        app_name="app",
        agent=LlmAgent(name="a", model=model, instruction="Help.", tools=[load_artifacts]),
        session_service=sessions,
        artifact_service=artifacts,
    )
    session = await sessions.create_session(app_name="app", user_id="u")
    stored = {name: stored_part(cases[name]) for name in ("report.docx", "blob.bin", "pixel.png")}
    stored["user:shared.csv"] = Part(inline_data=Blob(mime_type="text/csv", data=b"k,v\n"))
    for name, part in stored.items():
        await artifacts.save_artifact(
            app_name="app", user_id="u", session_id=session.id, filename=name, artifact=part
        )
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="read them"):
        pass
    last = model.requests[-1]
    assert last.system_instruction == ADK["run"]["system_instruction"]
    assert [c.to_dict() for c in last.contents] == ADK["run"]["contents"]
