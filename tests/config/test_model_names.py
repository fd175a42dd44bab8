"""`model:` names: one set of rules for validate and the registry (`yadk._model_names`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk._model_names import backend_for, did_you_mean, unknown_to_its_family
from yadk.config import validate_paths
from yadk.errors import ModelError
from yadk.models import resolve_model

HINT_TAIL = (
    "Bare names: gemini-* (Gemini), claude-* (Anthropic), gpt-* and o3-mini-like (OpenAI),"
    " LiteLLM's PROVIDER/NAME (openai/gpt-4o-mini); or write PROVIDER:NAME with a provider"
    " of anthropic, gemini, openai, scripted (`openai:` also reaches any OpenAI-compatible"
    " server); model plugins add providers through the 'yadk.models' entry-point group."
)


def validate(tmp_path: Path, model: str) -> list[tuple[int, int, str, str, str, str]]:
    (tmp_path / "root_agent.yaml").write_text(f"name: a\ninstruction: hi\nmodel: {model}\n")
    return [
        (d.line, d.column, d.severity, d.rule, d.message, d.hint)
        for d in validate_paths([tmp_path])
    ]


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gemini-2.5-flash", []),
        ("gemini:gemini-2.5-pro", []),
        ("gemini-2.0-flash-001", []),
        ("claude-sonnet-4-5", []),
        ("claude-3-5-sonnet-20241022", []),
        ("anthropic:claude-opus-4-1", []),
        ("openai:anything-goes", []),
        ("openai:llama3", []),
        (
            "gemni-2.5-flash",
            [
                (
                    3,
                    8,
                    "error",
                    "no-model-backend",
                    "No model backend serves `gemni-2.5-flash`.",
                    "Did you mean `gemini-2.5-flash`? " + HINT_TAIL,
                )
            ],
        ),
        (
            "opneai:gpt-4o",
            [
                (
                    3,
                    8,
                    "error",
                    "no-model-backend",
                    "No model backend serves `opneai:gpt-4o`.",
                    "Did you mean `openai:gpt-4o`? " + HINT_TAIL,
                )
            ],
        ),
        ("gpt-4o", []),
        ("gpt-4o-mini-2024-07-18", []),
        ("o3-mini", []),
        ("openai/gpt-4o-mini", []),
        ("ollama_chat/llama3", []),
        (
            "gpt4",
            [
                (
                    3,
                    8,
                    "error",
                    "no-model-backend",
                    "No model backend serves `gpt4`.",
                    "Did you mean `gpt-4o`? " + HINT_TAIL,
                )
            ],
        ),
        (
            "gpt-4o-mni",
            [
                (
                    3,
                    8,
                    "warning",
                    "unknown-model",
                    "`gpt-4o-mni` is not an OpenAI model yadk knows; it will be sent as is, and"
                    " the service may refuse it.",
                    "Did you mean `gpt-4o-mini`?",
                )
            ],
        ),
        (
            "bedrock/anthropic.claude-3",
            [
                (
                    3,
                    8,
                    "error",
                    "no-model-backend",
                    "No model backend serves `bedrock/anthropic.claude-3`.",
                    "LiteLLM provider `bedrock` is not served by yadk; it serves anthropic/,"
                    " azure/, deepseek/, gemini/, groq/, hosted_vllm/, mistral/, ollama/,"
                    " ollama_chat/, openai/, openrouter/, vertex_ai/. See the LiteLLM provider"
                    " table in docs/models.md.",
                )
            ],
        ),
        (
            "vertex_ai/claude-3-5-sonnet",
            [
                (
                    3,
                    8,
                    "error",
                    "no-model-backend",
                    "No model backend serves `vertex_ai/claude-3-5-sonnet`.",
                    "`vertex_ai/claude-3-5-sonnet`: yadk serves Vertex AI's Gemini models"
                    " (vertex_ai/gemini-2.5-flash) and endpoint resource names"
                    " (vertex_ai/projects/.../endpoints/...); partner models on Vertex (Claude,"
                    " Llama, ...) are not served: use anthropic/NAME or an OpenAI-compatible"
                    " provider instead. See the LiteLLM provider table in docs/models.md.",
                )
            ],
        ),
        (
            "gemini-9.9-ultra",
            [
                (
                    3,
                    8,
                    "warning",
                    "unknown-model",
                    "`gemini-9.9-ultra` is not a Gemini model yadk knows; it will be sent as is,"
                    " and the service may refuse it.",
                    "Check the name against the service's list of models.",
                )
            ],
        ),
        (
            "claude-sonet-4-5",
            [
                (
                    3,
                    8,
                    "warning",
                    "unknown-model",
                    "`claude-sonet-4-5` is not an Anthropic model yadk knows; it will be sent as"
                    " is, and the service may refuse it.",
                    "Did you mean `claude-sonnet-4-5`?",
                )
            ],
        ),
    ],
)
def test_validate_checks_model_names(
    tmp_path: Path, model: str, expected: list[tuple[int, int, str, str, str, str]]
) -> None:
    assert validate(tmp_path, model) == expected


def test_an_env_reference_is_checked_when_it_is_resolved_not_before(tmp_path: Path) -> None:
    assert validate(tmp_path, "${env:MY_MODEL:-gemini-2.5-flash}") == []


@pytest.mark.parametrize(
    "name",
    [
        "gemni-2.5-flash",
        "gpt-4o",
        "gpt4",
        "opneai:gpt-4o",
        "openai/gpt-4o-mini",
        "bedrock/x",
        "gemini-2.5-flash",
        "claude-haiku-4-5",
    ],
)
def test_validate_and_the_registry_agree_on_what_runs(name: str) -> None:
    served = backend_for(name) is not None
    try:
        resolve_model(name)
    except ModelError as exc:
        assert not served
        close = did_you_mean(name)
        assert (f"Did you mean {close!r}?" in str(exc)) is (close is not None)
    else:
        assert served


def test_resource_names_are_left_to_the_service() -> None:
    assert unknown_to_its_family("gemini:projects/p/locations/l/endpoints/123") is None


def test_a_python_agents_literal_model_names_are_checked_by_the_same_rules(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "pa"
    folder.mkdir()
    (folder / "agent.py").write_text(
        "from yadk import LlmAgent\n"
        "from yadk.agents import SequentialAgent\n\n"
        'first = LlmAgent(name="first", model="gemni-2.5-flash", instruction="hi")\n'
        'second = LlmAgent(name="second", model=MODEL, instruction="hi")\n'
        "root_agent = SequentialAgent(\n"
        '    name="pa", sub_agents=[first, second, LlmAgent(name="third", model="gpt-4o-mni")]\n'
        ")\n"
        'other = Client(model="anything-at-all")\n'
    )
    found = [
        (d.line, d.column, d.severity, d.rule, d.message, d.hint) for d in validate_paths([folder])
    ]
    assert found == [
        (
            4,
            38,
            "error",
            "no-model-backend",
            "No model backend serves `gemni-2.5-flash`.",
            "Did you mean `gemini-2.5-flash`? " + HINT_TAIL,
        ),
        (
            7,
            72,
            "warning",
            "unknown-model",
            "`gpt-4o-mni` is not an OpenAI model yadk knows; it will be sent as is, and the"
            " service may refuse it.",
            "Did you mean `gpt-4o-mini`?",
        ),
    ]
