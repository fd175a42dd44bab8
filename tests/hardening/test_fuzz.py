"""Fuzzing the four formats yadk reads from untrusted files: agent configs, SKILL.md, scripted
model files and few-shot example files. Hypothesis mutates a valid seed of each (splices of
hostile fragments: anchors and aliases, tags, deep brackets, huge numbers, control characters,
lone surrogates, NUL bytes, bad UTF-8) and every outcome must be a value or a located, named
problem: no exception escapes, no ``internal-error``, no hang.

The suite runs a small budget (``YADK_FUZZ_EXAMPLES``, default 25 per format, derandomized so
the suite never flakes); ``python bench/fuzz.py`` runs thousands under a memory cap.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from yadk.config import validate_paths
from yadk.errors import ExampleError, ModelError, SkillError
from yadk.examples._files import load_examples_file
from yadk.models import ScriptedModel
from yadk.skills import load_skill_from_dir

EXAMPLES = int(os.environ.get("YADK_FUZZ_EXAMPLES", "25"))
RANDOM = os.environ.get("YADK_FUZZ_RANDOM") == "1"  # bench/fuzz.py: new inputs every run
SECONDS_PER_INPUT = 20.0  # a hang is a failure; generous for a loaded machine

SEEDS = {
    "config": (
        "name: desk\nmodel: scripted:turns.yaml\ninstruction: |\n  Help {customer_name}.\n"
        "description: A desk.\ntools:\n  - name: exit_loop\nsub_agents: []\n"
        "generate_content_config: {temperature: 0.2}\nstate: [customer_name]\n"
    ),
    "skill": (
        "---\nname: demo\ndescription: A demo skill.\nlicense: MIT\n"
        "metadata:\n  owner: team\n  tags: [a, b]\n---\n# Demo\nDo the thing.\n"
    ),
    "scripted": (
        "turns:\n  - text: Hello\n  - when: '(?i)review'\n    function_calls:\n"
        "      - name: load_skill\n        args: {skill_name: demo}\n  - text: Done\n"
    ),
    "examples": (
        "- input: {role: user, parts: [{text: hi}]}\n  output:\n"
        "    - {role: model, parts: [{text: hello}]}\n"
    ),
}

FRAGMENTS = [
    "&a ",
    "*a",
    "&b [*a, *a, *a, *a]",
    "<<: *a",
    "!!int ",
    '!!int "x"',
    "!!float nope",
    "!!python/object/apply:os.system [id]",
    "!!binary",
    "!!set",
    "!!omap",
    "? ",
    ": ",
    "- ",
    "[" * 300,
    "]" * 300,
    "{" * 50,
    "9" * 5000,
    "1e999",
    "0x",
    "~",
    "null",
    "'",
    '"',
    '"\\udfff"',
    '"\\x00"',
    "\x00",
    "\x7f",
    "\x1b",
    "\ufeff",
    "\t",
    "\r",
    "\n",
    "\n  ",
    "#",
    "%YAML 1.1\n",
    "---\n",
    "...\n",
    "${env:NOPE}",
    "${env:X:-",
    "{{",
    "}}",
    "{% for %}",
    "../../etc/passwd",
    "/dev/zero",
    "scripted:/etc/passwd",
    "file: x.md",
    "name: ",
    "a" * 300,
]


def mutated(seed: str) -> st.SearchStrategy[str]:
    """``seed`` with up to six edits: a hostile fragment or random text spliced in, or a slice
    deleted."""
    edit = st.tuples(
        st.integers(0, len(seed)),
        st.integers(0, 40),
        st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=20)),
    )

    def apply(edits: list[tuple[int, int, str]]) -> str:
        text = seed
        for at, cut, insert in edits:
            at = min(at, len(text))
            text = text[:at] + insert + text[at + cut % 3 * cut // 2 :]
        return text

    return st.lists(edit, min_size=1, max_size=6).map(apply)


def _write(path: Path, text: str, raw: bool) -> None:
    data = text.encode("utf-8", "surrogatepass")
    if raw:  # sometimes bytes that are not UTF-8 at all
        data = data.replace(b"e", b"\xe9", 1)
    path.write_bytes(data)


def _within(work: Callable[[], Any]) -> Any:
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(("ok", work()))
        except BaseException as exc:
            outcome.append(("raised", exc))

    thread = threading.Thread(target=run, daemon=True)
    started = time.monotonic()
    thread.start()
    thread.join(SECONDS_PER_INPUT)
    assert not thread.is_alive(), f"no answer after {time.monotonic() - started:.0f} s"
    kind, value = outcome[0]
    if kind == "raised":
        raise value
    return value


def _no_internal_errors(diagnostics: list[Any]) -> None:
    for diagnostic in diagnostics:
        assert diagnostic.rule != "internal-error", diagnostic.format()
        assert "This is a bug in yadk" not in diagnostic.hint, diagnostic.format()


def _fuzz_settings() -> settings:
    return settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


@_fuzz_settings()
@given(text=mutated(SEEDS["config"]), raw=st.booleans())
@pytest.mark.slow
def test_configs(tmp_path_factory: pytest.TempPathFactory, text: str, raw: bool) -> None:
    folder = tmp_path_factory.mktemp("fuzz") / "desk"
    folder.mkdir()
    _write(folder / "root_agent.yaml", text, raw)
    (folder / "turns.yaml").write_text(SEEDS["scripted"], encoding="utf-8")
    for import_code in (False, True):
        found = _within(
            lambda import_code=import_code: validate_paths([folder], import_code=import_code)
        )
        _no_internal_errors(found)


@_fuzz_settings()
@given(text=mutated(SEEDS["skill"]), raw=st.booleans())
def test_skill_md(tmp_path_factory: pytest.TempPathFactory, text: str, raw: bool) -> None:
    folder = tmp_path_factory.mktemp("fuzz") / "demo"
    folder.mkdir()
    _write(folder / "SKILL.md", text, raw)
    _no_internal_errors(_within(lambda: validate_paths([folder])))
    try:
        _within(lambda: load_skill_from_dir(folder))
    except SkillError as exc:
        assert "SKILL.md" in str(exc)


@_fuzz_settings()
@given(text=mutated(SEEDS["scripted"]), raw=st.booleans())
def test_scripted_files(tmp_path_factory: pytest.TempPathFactory, text: str, raw: bool) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "turns.yaml"
    _write(path, text, raw)
    try:
        _within(lambda: ScriptedModel.from_file(path))
    except ModelError as exc:
        assert str(path) in exc.message


@_fuzz_settings()
@given(
    text=mutated(SEEDS["examples"]),
    raw=st.booleans(),
    suffix=st.sampled_from([".yaml", ".json", ".jsonl"]),
)
def test_example_files(
    tmp_path_factory: pytest.TempPathFactory, text: str, raw: bool, suffix: str
) -> None:
    path = tmp_path_factory.mktemp("fuzz") / f"examples{suffix}"
    _write(path, text, raw)
    try:
        _within(lambda: load_examples_file(path))
    except ExampleError as exc:
        assert str(exc).startswith(str(path))
