"""What the loader finds, as the command line shows it:
load-time warnings in run and dev, located template errors at run time, import errors at the
Python line, agents without a model, missing API keys, callbacks returning the wrong type, and
the validate summary. Every case runs the real ``yadk`` in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

# API keys of the real backends are removed, so the key checks see what CI sees.
_KEY_VARS = ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")


def yadk(
    folder: Path, *argv: str, env: dict[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in _KEY_VARS and k != "YADK_DEBUG" and not k.endswith("_BASE_URL")
    }
    environment.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "yadk.cli", *argv],
        cwd=folder,
        capture_output=True,
        text=True,
        env=environment,
        input=stdin,
        timeout=60,
        check=False,
    )


def write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


PIPELINE = """\
agent_class: SequentialAgent
name: pipeline
sub_agents:
  - config_path: critic.yaml
  - config_path: reviser.yaml
"""
CRITIC = """\
name: critic
model: scripted:turns.yaml
instruction: Critique the draft.
output_key: critique
"""
REVISER = """\
name: reviser
model: scripted:turns.yaml
instruction: |
  Revise the draft.
  Use the critique
  when you revise it: {critiqe}.
"""
TURNS = "turns:\n  - text: Too long.\n  - text: Shorter.\n"


# --- item 12: the summary, and a missing sub-agent ------------------------------------------


def test_a_missing_sub_agent_is_one_error_and_the_dataflow_check_says_it_is_limited(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "app/root_agent.yaml": PIPELINE,
            "app/reviser.yaml": REVISER.replace("{critiqe}", "{critique}"),
            "app/turns.yaml": TURNS,
        },
    )
    result = yadk(tmp_path, "validate", "app")
    assert (result.returncode, result.stderr) == (1, "")
    assert result.stdout == (
        "app/root_agent.yaml:4:18: error file-not-found: Sub-agent config `critic.yaml` not found"
        f" (looked for {tmp_path / 'app' / 'critic.yaml'}).\n"
        "  hint: Did you mean `reviser.yaml`?\n"
        "app/reviser.yaml:6:23: warning placeholder-writers-unknown: `{critique}` has no writer"
        " yadk can see, but the agent at app/root_agent.yaml:4:18 could not be read (the keys"
        " it writes are unknown); placeholders with no visible writer are not checked.\n"
        "  hint: Fix that error first; every placeholder is checked once the whole tree loads.\n"
        "1 error, 1 warning in 2 agents\n"
    )


def test_the_summary_counts_agents_found_not_paths_given(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "agents/app/root_agent.yaml": PIPELINE,
            "agents/app/critic.yaml": CRITIC,
            "agents/app/reviser.yaml": REVISER,
            "agents/app/turns.yaml": TURNS,
            "agents/solo/root_agent.yaml": "name: solo\nmodel: scripted:t.yaml\ninstruction: Hi.\n",
            "agents/solo/t.yaml": TURNS,
        },
    )
    result = yadk(tmp_path, "validate", ".")
    assert result.returncode == 0
    assert result.stdout == (
        "agents/app/reviser.yaml:6:23: warning placeholder-unknown-key: `{critiqe}` reads state"
        " key `critiqe`, which nothing writes: no agent's output_key, no tool or callback.\n"
        "  hint: Did you mean `{critique}`?\n"
        "1 warning in 4 agents\n"
    )


# --- item 10: an import error is reported once, at the Python line ---------------------------

BROKEN_TOOLS = """\
def lookup(q: str) -> dict:
    return {"q": q}


def other(q: str) -> dict:
    return {"q": q
"""
TOOL_ROOT = """\
name: helper
model: scripted:turns.yaml
instruction: Help.
tools:
  - name: tools.lookup
  - name: tools.other
before_model_callbacks:
  - name: tools.guard
"""


@pytest.mark.parametrize("imports", [False, True])
def test_an_import_error_is_reported_once_at_the_python_line(tmp_path: Path, imports: bool) -> None:
    write(tmp_path, {"root_agent.yaml": TOOL_ROOT, "tools.py": BROKEN_TOOLS, "turns.yaml": TURNS})
    result = yadk(tmp_path, "validate", *(["--import"] if imports else []), ".")
    assert result.returncode == 1
    message = (
        "Importing `tools` failed: SyntaxError: '{' was never closed."
        if imports
        else "Module `tools` has a syntax error: '{' was never closed."
    )
    hint = (
        "Fix the error in that module; `python -c 'import tools'` shows the full traceback."
        if imports
        else "Fix the syntax error in that file."
    )
    assert result.stdout == (
        f"tools.py:6:12: error import-failed: {message}\n"
        "  note: referenced from root_agent.yaml:5:11, root_agent.yaml:6:11,"
        " root_agent.yaml:8:11\n"
        f"  hint: {hint}\n"
        "1 error in 1 agent\n"
    )


def test_an_exception_at_import_lands_on_its_line_in_github_annotations(tmp_path: Path) -> None:
    tools = "import json\n\nSETTINGS = json.loads('{')\n\n\ndef lookup(q: str) -> dict:\n    return {}\n"
    root = "name: helper\nmodel: scripted:turns.yaml\ninstruction: Help.\ntools:\n  - name: tools.lookup\n"
    write(tmp_path, {"root_agent.yaml": root, "tools.py": tools, "turns.yaml": TURNS})
    result = yadk(tmp_path, "validate", "--import", "--format", "github", ".")
    assert result.returncode == 1
    assert result.stdout == (
        "::error file=tools.py,line=3,col=12::import-failed: Importing `tools` failed:"
        " JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2"
        " (char 1).%0Areferenced from root_agent.yaml:5:11%0AFix the error in that module;"
        " `python -c 'import tools'` shows the full traceback.\n"
        "1 error in 1 agent\n"
    )


# --- item 7: load-time warnings in run and dev, located template errors ----------------------

TYPO_HINT = "Did you mean `{critique}`?"
TYPO_WARNING = (
    "reviser.yaml:6:23: warning placeholder-unknown-key: `{critiqe}` reads state key"
    " `critiqe`, which nothing writes: no agent's output_key, no tool or callback.\n"
    f"  hint: {TYPO_HINT}\n"
)


@pytest.fixture
def pipeline(tmp_path: Path) -> Path:
    return write(
        tmp_path,
        {
            "root_agent.yaml": PIPELINE,
            "critic.yaml": CRITIC,
            "reviser.yaml": REVISER,
            "turns.yaml": TURNS,
        },
    )


def test_run_prints_the_warnings_and_locates_the_template_error(pipeline: Path) -> None:
    result = yadk(pipeline, "run", ".", "Review my draft.", "--db", ":memory:")
    assert result.returncode == 1
    assert result.stdout == "[user]: Review my draft.\n[critic]: Too long.\n"
    assert result.stderr == (
        TYPO_WARNING
        + "[reviser] error TEMPLATE_ERROR: reviser.yaml:6:23: Context variable not found:"
        f" `critiqe` in agent 'reviser'.\n  hint: {TYPO_HINT}\n"
    )


def test_dev_prints_the_warnings_at_start_and_after_each_reload(pipeline: Path) -> None:
    # Without a terminal, dev reads lines from stdin (none here); the warnings after a reload
    # are checked with scripted file changes in test_dev.py.
    result = yadk(pipeline, "dev", ".", "--db", ":memory:", stdin="")
    assert result.returncode == 0
    assert result.stderr.startswith(TYPO_WARNING)


def test_serve_events_carry_the_located_message(pipeline: Path) -> None:
    import asyncio

    import httpx

    from yadk.serve import create_app

    async def run() -> dict[str, object]:
        app = create_app(pipeline.parent)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            name = pipeline.name
            made = await client.post(f"/apps/{name}/users/u/sessions", json={})
            session = made.json()["id"]
            answer = await client.post(
                "/run",
                json={
                    "app_name": name,
                    "user_id": "u",
                    "session_id": session,
                    "new_message": {"role": "user", "parts": [{"text": "Review it."}]},
                },
            )
            events: list[dict[str, object]] = answer.json()
            return events[-1]

    last = asyncio.run(run())
    message = str(last.get("errorMessage") or last.get("error_message"))
    assert message.endswith(
        "reviser.yaml:6:23: Context variable not found: `critiqe` in agent 'reviser'.\n"
        f"  hint: {TYPO_HINT}"
    )


# --- item 11: models, API keys and callback results ----------------------------------------


def test_an_agent_without_a_model_is_a_warning_in_validate_and_an_error_in_run(
    tmp_path: Path,
) -> None:
    write(tmp_path, {"root_agent.yaml": "name: helper\ninstruction: Help.\n"})
    warning = (
        "root_agent.yaml:1:7: {severity} missing-model: Agent `helper` has no model: it sets no"
        " `model:`, and no LlmAgent above it does.\n"
        "  hint: Add `model: NAME` (e.g. `model: gemini-2.5-flash`) to it or to an agent above"
        " it, or pass `--model NAME` to yadk run / dev.\n"
    )
    validated = yadk(tmp_path, "validate", ".")
    assert (validated.returncode, validated.stdout) == (
        0,
        warning.format(severity="warning") + "1 warning in 1 agent\n",
    )
    ran = yadk(tmp_path, "run", ".", "hi", "--db", ":memory:")
    assert (ran.returncode, ran.stdout) == (1, "")
    assert ran.stderr == (
        warning.format(severity="error")
        + "yadk run: error: . cannot run: 1 agent without a model\n"
    )
    write(tmp_path, {"turns.yaml": TURNS})
    offline = yadk(tmp_path, "run", ".", "hi", "--db", ":memory:", "--model", "scripted:turns.yaml")
    assert (offline.returncode, offline.stdout, offline.stderr) == (
        0,
        "[user]: hi\n[helper]: Too long.\n",
        "",
    )


def test_a_missing_api_key_stops_run_and_dev_and_validate_only_warns(tmp_path: Path) -> None:
    write(
        tmp_path, {"root_agent.yaml": "name: helper\nmodel: gemini-2.5-flash\ninstruction: Hi.\n"}
    )
    validated = yadk(tmp_path, "validate", "--strict", ".")
    assert (validated.returncode, validated.stdout) == (
        0,
        "root_agent.yaml:2:8: warning api-key-missing: Gemini model `gemini-2.5-flash` needs an"
        " API key, and GOOGLE_API_KEY or GEMINI_API_KEY is not set.\n"
        "  hint: Set GOOGLE_API_KEY in the environment or in a `.env` file in the agent folder"
        " (`yadk run` and `yadk dev` load it); they refuse to start without a key, while validate"
        " only warns.\n"
        "1 warning in 1 agent\n",
    )
    refused = (
        "yadk {command}: error: cannot start: agent 'helper': Gemini model 'gemini-2.5-flash': no"
        " API key. Set GOOGLE_API_KEY (or GEMINI_API_KEY) to a Gemini API key from"
        " https://aistudio.google.com/apikey.\n"
        "  hint: export the variable, or put it in .env (loaded at start, never overriding"
        " the environment); to run offline, pass --model scripted:FILE\n"
    )
    for command in ("run", "dev"):
        argv = [command, ".", *(["hi"] if command == "run" else []), "--db", ":memory:"]
        result = yadk(tmp_path, *argv, stdin="")
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == refused.format(command=command)
    # A key in the agent's .env is enough (and validate, which CI runs without keys, sees it).
    write(tmp_path, {".env": "GEMINI_API_KEY=not-a-real-key\n"})
    assert yadk(tmp_path, "validate", ".").stdout == "no problems found in 1 agent\n"


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (
            {"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "my-project"},
            "no problems found in 1 agent\n",
        ),
        (
            {"GOOGLE_GENAI_USE_VERTEXAI": "1", "GOOGLE_CLOUD_PROJECT": ""},
            "1 warning in 1 agent\n",
        ),
        (
            {"GOOGLE_GENAI_USE_VERTEXAI": "false", "GOOGLE_CLOUD_PROJECT": "my-project"},
            "1 warning in 1 agent\n",
        ),
    ],
)
def test_vertex_with_a_project_needs_no_api_key(
    tmp_path: Path, env: dict[str, str], expected: str
) -> None:
    write(
        tmp_path, {"root_agent.yaml": "name: helper\nmodel: gemini-2.5-flash\ninstruction: Hi.\n"}
    )
    validated = yadk(tmp_path, "validate", ".", env=env)
    assert validated.returncode == 0
    assert validated.stdout.endswith(expected)
    assert ("api-key-missing" in validated.stdout) == expected.startswith("1 warning")


CALLBACKS = """\
def guard(callback_context, llm_request):
    return "blocked"


def after(tool, args, tool_context, tool_response):
    return ["x"]
"""


@pytest.mark.parametrize(
    ("field", "name", "expected"),
    [
        (
            "before_model_callbacks",
            "guard",
            "before_model_callback 'callbacks.guard' (callbacks.py:1) returned str 'blocked';"
            " expected an LlmResponse (or a dict of its fields), or None to go on.",
        ),
    ],
)
def test_a_callback_returning_the_wrong_type_is_named(
    tmp_path: Path, field: str, name: str, expected: str
) -> None:
    root = (
        "name: helper\nmodel: scripted:turns.yaml\ninstruction: Help.\n"
        f"tools:\n  - name: tools.lookup\n{field}:\n  - name: callbacks.{name}\n"
    )
    turns = "turns:\n  - function_calls: [{name: lookup, args: {q: x}}]\n  - text: Done.\n"
    tools = "def lookup(q: str) -> dict:\n    return {'q': q}\n"
    write(
        tmp_path,
        {
            "root_agent.yaml": root,
            "callbacks.py": CALLBACKS,
            "tools.py": tools,
            "turns.yaml": turns,
        },
    )
    result = yadk(tmp_path, "run", ".", "hi", "--db", ":memory:")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "pydantic" not in result.stderr
    assert f"[helper] error CALLBACK_ERROR: {expected}\n" in result.stderr
