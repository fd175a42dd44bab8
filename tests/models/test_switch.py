"""The global switch that forbids real model requests (tests stay offline)."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

import yadk.models
from yadk.errors import ModelError
from yadk.models import (
    BaseLlm,
    Gemini,
    LlmRequest,
    OpenAIChat,
    ScriptedModel,
    override_allow_model_requests,
)
from yadk.models._switch import allowed_by_environment
from yadk.types import UserContent

if TYPE_CHECKING:
    from tests.models.conftest import FakeServer


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, True),
        ("1", True),
        ("yes", True),
        ("0", False),
        ("false", False),
        (" No ", False),
        ("OFF", False),
    ],
)
def test_initial_value_from_environment(
    monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool
) -> None:
    if value is not None:
        monkeypatch.setenv("YADK_ALLOW_MODEL_REQUESTS", value)
    assert allowed_by_environment() is expected


@pytest.mark.subprocess
def test_environment_is_read_at_import() -> None:
    code = "import yadk.models; print(yadk.models.ALLOW_MODEL_REQUESTS)"
    env = {"YADK_ALLOW_MODEL_REQUESTS": "0", "PATH": ""}
    out = subprocess.run(
        [sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True
    )
    assert (out.returncode, out.stdout) == (0, "False\n")


def backends(server: FakeServer) -> list[tuple[BaseLlm, str]]:
    return [
        (
            Gemini("gemini-2.5-flash", api_key="k", base_url=server.url),
            "Gemini model 'gemini-2.5-flash'",
        ),
        (
            OpenAIChat("llama3", base_url=server.url + "/v1"),
            f"OpenAI-compatible model 'llama3' at {server.url}/v1",
        ),
    ]


async def test_disabled_backends_send_nothing(server: FakeServer) -> None:
    with override_allow_model_requests(False):
        for model, service in backends(server):
            with pytest.raises(ModelError) as caught:
                async for _ in model.generate_content_async(
                    LlmRequest(contents=[UserContent("hi")])
                ):
                    pass
            assert caught.value.message == (
                f"Real model requests are disabled, so the request to {service} was not sent"
                " (yadk.models.ALLOW_MODEL_REQUESTS is False; YADK_ALLOW_MODEL_REQUESTS=0 sets"
                " that). Use a ScriptedModel in tests, or allow requests with"
                " `with yadk.models.override_allow_model_requests(True): ...`."
            )
    assert server.requests == []


async def test_disabled_wins_over_a_missing_key() -> None:
    with pytest.raises(ModelError, match="^Real model requests are disabled"):
        async for _ in Gemini().generate_content_async(LlmRequest()):
            pass


async def test_plain_assignment_works(server: FakeServer) -> None:
    # Assigned and restored here rather than with monkeypatch: monkeypatch's undo runs after the
    # server fixture's and would leave requests allowed for the tests that follow.
    yadk.models.ALLOW_MODEL_REQUESTS = False
    try:
        model, _ = backends(server)[0]
        with pytest.raises(ModelError, match="^Real model requests are disabled"):
            async for _ in model.generate_content_async(LlmRequest()):
                pass
    finally:
        yadk.models.ALLOW_MODEL_REQUESTS = True
    assert server.requests == []


def test_override_restores_after_an_error() -> None:
    assert yadk.models.ALLOW_MODEL_REQUESTS is False
    with pytest.raises(RuntimeError), override_allow_model_requests(True):
        assert yadk.models.ALLOW_MODEL_REQUESTS is True
        raise RuntimeError("boom")
    assert yadk.models.ALLOW_MODEL_REQUESTS is False


async def test_scripted_model_ignores_the_switch() -> None:
    model = ScriptedModel([{"text": "offline"}])
    [response] = [r async for r in model.generate_content_async(LlmRequest())]
    assert response.content is not None
    assert response.content.parts[0].text == "offline"
