"""google-adk's LiteLlm in YAML, in both forms its docs have used, on yadk's backends."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk.config import load_agent, validate_paths
from yadk.models import AnthropicLlm, OpenAIChat

OLD_FORM = """\
name: ll
instruction: hi
model_code:
  name: google.adk.models.lite_llm.LiteLlm
  args:
    - name: model
      value: {model}
"""


def write(folder: Path, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / "root_agent.yaml").write_text(text)
    return folder


def test_the_1x_form_with_args_builds_yadks_backend(tmp_path: Path) -> None:
    agent = load_agent(write(tmp_path / "ll", OLD_FORM.format(model="openai/gpt-4o-mini")))
    model = agent.canonical_model  # type: ignore[attr-defined]
    assert isinstance(model, OpenAIChat) and model.model == "gpt-4o-mini"


def test_the_213_form_names_an_object_built_in_python(tmp_path: Path) -> None:
    folder = write(
        tmp_path / "ll213", "name: ll\ninstruction: hi\nmodel_code:\n  name: .models.llm\n"
    )
    (folder / "models.py").write_text(
        "from google.adk.models.lite_llm import LiteLlm\n\n"
        'llm = LiteLlm(model="anthropic/claude-sonnet-4-5", api_key="k")\n'
    )
    assert validate_paths([folder]) == []
    model = load_agent(folder).canonical_model  # type: ignore[attr-defined]
    assert isinstance(model, AnthropicLlm) and model.model == "claude-sonnet-4-5"


@pytest.mark.parametrize(
    ("model", "line", "column", "message"),
    [
        (
            "bedrock/claude",
            6,
            5,
            "LiteLLM provider `bedrock` is not served by yadk; it serves anthropic/, azure/,"
            " deepseek/, gemini/, groq/, hosted_vllm/, mistral/, ollama/, ollama_chat/, openai/,"
            " openrouter/, vertex_ai/.",
        ),
        ("groq/", 6, 5, "`groq/` names no model after `groq/`."),
        (
            "vertex_ai/claude-sonnet-4-5",
            6,
            5,
            "`vertex_ai/claude-sonnet-4-5`: yadk serves Vertex AI's Gemini models"
            " (vertex_ai/gemini-2.5-flash) and endpoint resource names"
            " (vertex_ai/projects/.../endpoints/...); partner models on Vertex (Claude, Llama,"
            " ...) are not served: use anthropic/NAME or an OpenAI-compatible provider instead.",
        ),
    ],
)
def test_a_provider_yadk_does_not_serve_is_a_located_error(
    tmp_path: Path, model: str, line: int, column: int, message: str
) -> None:
    folder = write(tmp_path / "ll", OLD_FORM.format(model=model))
    found = [(d.line, d.column, d.rule, d.message) for d in validate_paths([folder])]
    assert found == [(line, column, "invalid-args", message)]


def test_vertex_ai_models_with_litellms_vertex_arguments(tmp_path: Path) -> None:
    from yadk.models import Gemini

    text = OLD_FORM.format(model="vertex_ai/gemini-2.5-flash") + (
        "    - name: vertex_project\n      value: proj-9\n"
        "    - name: vertex_location\n      value: global\n"
    )
    folder = write(tmp_path / "vx", text)
    assert validate_paths([folder]) == []
    model = load_agent(folder).canonical_model  # type: ignore[attr-defined]
    assert isinstance(model, Gemini) and model.model == "gemini-2.5-flash"
    assert model.vertex is not None
    assert (model.vertex.project, model.vertex.location) == ("proj-9", "global")
