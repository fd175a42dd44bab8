"""What `yadk validate` and `yadk inspect` import: a guard on start-up time
that is not a timing assertion. The figures themselves are in bench/bench_startup.py.

Each test runs the real command in a fresh interpreter, as ``python -m yadk.cli`` does, and reads
``sys.modules`` when it ends, on the tree ``yadk new`` makes (code tools, skills, examples, scripted
model). (``-X importtime``'s log would miss every module a lazy facade loads with
``importlib.import_module``, so it is not used.)
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

# Validate checks files: it needs no engine, no pydantic model, no network stack, no event loop.
NOT_FOR_VALIDATE = (
    "asyncio",
    "certifi",
    "email",
    "fastapi",
    "httpcore",
    "httpx",
    "jinja2",
    "pydantic",
    "pydantic_core",
    "ssl",
    "starlette",
    "uvicorn",
    "uvloop",
    "yadk.agents",
    "yadk.models",
    "yadk.runner",
    "yadk.sessions",
    "yadk.tools",
    "yadk.types",
    "yadk.config._schema",
    "difflib",
    "html",
    "pkgutil",
)
# Inspect builds the agent and its first request offline: no HTTP client, server or database.
NOT_FOR_INSPECT = (
    "certifi",
    "fastapi",
    "httpcore",
    "httpx",
    "psycopg",
    "sqlite3",
    "starlette",
    "uvicorn",
    "uvloop",
    "watchfiles",
    "yadk.models._gemini",
    "yadk.runner",
    "yadk.serve",
    # Built or imported on first use, and inspect never uses them:
    "yadk.agents._parallel",  # the workflow agents, for a tree of LlmAgents
    "yadk.agents._workflow",
    "yadk._docx",  # until an artifact is a DOCX
    "yadk.config._schema",  # the JSON Schema and validate's tree walk
    "yadk.config._validate",
    "pydantic.type_adapter",  # the stored-event validator, until events are read back
    "difflib",  # until a did-you-mean is needed
    "html",
    "mimetypes",
    "pkgutil",
)


# Runs the command as ``python -m yadk.cli`` does, then reports what it imported.
_RUN = """
import atexit, json, runpy, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules))))
sys.argv = ["yadk", *sys.argv[1:]]
runpy.run_module("yadk.cli", run_name="__main__")
"""


def imported(tmp_path: Path, *argv: str) -> tuple[str, set[str]]:
    """(stdout, every module imported) of ``python -m yadk.cli *argv``."""
    result = subprocess.run(
        [sys.executable, "-c", _RUN, *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    stdout, _, report = result.stdout.rstrip("\n").rpartition("\n")
    modules = json.loads(report)
    assert "yadk.cli" in modules  # the report was read
    return stdout + "\n" if stdout else "", set(modules)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "yadk.cli", "new", "small"],
        cwd=tmp_path,
        capture_output=True,
        check=True,
        timeout=120,
    )
    return tmp_path


def _heavy(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if m in names or m.startswith(tuple(f"{n}." for n in names)))


def test_validate_imports_no_engine_and_no_pydantic(small: Path) -> None:
    stdout, modules = imported(small, "validate", "small")
    assert stdout == "no problems found in 1 agent\n"
    assert {"yadk.config", "yadk.skills._validation", "yadk.examples._shape"} <= modules
    assert _heavy(modules, NOT_FOR_VALIDATE) == []


def test_validate_of_a_broken_example_still_uses_the_model(small: Path) -> None:
    """The fast path only skips models for plainly valid data; a mistake gets the model's
    message (and so imports pydantic)."""
    examples = small / "small" / "examples.yaml"
    examples.write_text(examples.read_text().replace("output:", "outputs:"))
    result = subprocess.run(
        [sys.executable, "-m", "yadk.cli", "validate", "small"],
        cwd=small,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 1
    assert "invalid-examples" in result.stdout
    assert "unknown field 'outputs'" in result.stdout


def test_inspect_imports_no_network_server_or_database(small: Path) -> None:
    stdout, modules = imported(small, "inspect", "small")
    assert stdout.startswith("agent: small\nmodel: scripted:scripted.yaml\n")
    assert {"yadk.agents", "pydantic"} <= modules
    assert _heavy(modules, NOT_FOR_INSPECT) == []


# Eval sets hold contents, read with the content model; their checks still build no agent.
NOT_FOR_VALIDATE_EVALS = (
    *(n for n in NOT_FOR_VALIDATE if n not in ("email", "pydantic", "pydantic_core", "yadk.types")),
    "yadk.eval._api",
    "yadk.eval._inference",
    "yadk.eval._metrics",
    "yadk.workflow",
)


def test_validate_of_eval_sets_imports_no_engine(small: Path) -> None:
    folder = small / "small"
    (folder / "small.evalset.json").write_text(
        json.dumps(
            {
                "eval_set_id": "small",
                "eval_cases": [
                    {
                        "eval_id": "hello",
                        "conversation": [
                            {
                                "invocation_id": "1",
                                "user_content": {"role": "user", "parts": [{"text": "hi"}]},
                                "final_response": {"role": "model", "parts": [{"text": "yo"}]},
                            }
                        ],
                    }
                ],
            }
        )
    )
    (folder / "test_config.json").write_text('{"criteria": {"response_match_score": 0.5}}')
    (small / "flat.test.json").write_text('[{"query": "hi", "reference": "yo"}]')
    stdout, modules = imported(small, "validate", "small", "flat.test.json")
    assert stdout == "no problems found in 1 agent, 2 eval files\n"
    assert {"yadk.eval._evalset", "yadk.eval._criteria", "yadk.eval._rubric_coverage"} <= modules
    assert _heavy(modules, NOT_FOR_VALIDATE_EVALS) == []


def test_validate_of_a_workflow_imports_no_engine_and_no_pydantic(tmp_path: Path) -> None:
    workflow = Path(__file__).resolve().parents[2] / "configs" / "triage_workflow"
    stdout, modules = imported(tmp_path, "validate", str(workflow))
    assert stdout == "no problems found in 2 agents\n"
    assert "yadk._graph_shape" in modules
    assert _heavy(modules, (*NOT_FOR_VALIDATE, "yadk.workflow")) == []
