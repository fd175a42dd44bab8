"""run_skill_script: subprocesses from argument lists, in the skill folder, with a timeout."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from yadk.skills import Frontmatter, Resources, Skill, SkillToolset
from yadk.skills._resources import Script
from yadk.skills._scripts import script_argv
from yadk.testing import tool_context

pytestmark = pytest.mark.subprocess

ECHO = "import json, os, sys\nprint(json.dumps({'argv': sys.argv, 'cwd': os.getcwd()}))\n"


@pytest.mark.parametrize(
    ("script", "args", "short", "positional", "expected"),
    [
        ("scripts/a.py", None, None, None, [sys.executable, "scripts/a.py"]),
        (
            "scripts/a.py",
            {"mode": "fast", "n": 2},
            {"v": 1},
            ["x", 3],
            [
                sys.executable,
                "scripts/a.py",
                "--mode",
                "fast",
                "--n",
                "2",
                "-v",
                "1",
                "--",
                "x",
                "3",
            ],
        ),
        ("scripts/a.sh", ["--raw", 1], None, None, ["bash", "scripts/a.sh", "--raw", "1"]),
        ("scripts/a.BASH", None, None, None, ["bash", "scripts/a.BASH"]),
        ("scripts/a.rb", None, None, None, None),
        ("scripts/noext", None, None, None, None),
    ],
)
def test_script_argv(
    script: str, args: Any, short: Any, positional: Any, expected: list[str] | None
) -> None:
    assert script_argv(script, args, short, positional) == expected


@pytest.fixture
def toolset(make_skill, tmp_path: Path) -> SkillToolset:
    make_skill(
        "tools",
        files={
            "scripts/echo.py": ECHO,
            "scripts/fail.py": "import sys\nprint('partial')\nsys.stderr.write('bad\\n')\n"
            "sys.exit(3)\n",
            "scripts/warn.py": "import sys\nprint('ok')\nsys.stderr.write('careful\\n')\n",
            "scripts/only_err.py": "import sys\nsys.stderr.write('oops\\n')\n",
            "scripts/sleep.py": "import time\ntime.sleep(30)\n",
            "scripts/tool.rb": "puts 1",
            "scripts/hello.sh": 'echo "hello $1"\n',
        },
    )
    return SkillToolset([tmp_path / "skills"], allow_scripts=True, script_timeout=5)


async def _run(toolset: SkillToolset, ctx: Any = None, **args: Any) -> Any:
    tool = {t.name: t for t in await toolset.get_tools()}["run_skill_script"]
    return await tool.run_async(args=args, tool_context=ctx or tool_context())


async def test_runs_in_the_skill_folder_with_an_argument_list(
    toolset: SkillToolset, tmp_path: Path
) -> None:
    result = await _run(
        toolset, skill_name="tools", file_path="scripts/echo.py", args=["; rm -rf /", "$(whoami)"]
    )

    assert result["status"] == "success"
    assert result["stderr"] == ""
    assert json.loads(result["stdout"]) == {
        "argv": ["scripts/echo.py", "; rm -rf /", "$(whoami)"],
        "cwd": str((tmp_path / "skills" / "tools").resolve()),
    }


async def test_path_without_the_scripts_prefix(toolset: SkillToolset) -> None:
    result = await _run(
        toolset, skill_name="tools", file_path="echo.py", args={"k": "v"}, positional_args=["p"]
    )

    assert json.loads(result["stdout"])["argv"] == ["scripts/echo.py", "--k", "v", "--", "p"]


@pytest.mark.parametrize(
    ("script", "stdout", "stderr", "status"),
    [
        ("fail.py", "partial\n", "bad\nExit code 3", "error"),
        ("warn.py", "ok\n", "careful\n", "warning"),
        ("only_err.py", "", "oops\n", "error"),
    ],
)
async def test_status(
    toolset: SkillToolset, script: str, stdout: str, stderr: str, status: str
) -> None:
    assert await _run(toolset, skill_name="tools", file_path=f"scripts/{script}") == {
        "skill_name": "tools",
        "file_path": f"scripts/{script}",
        "stdout": stdout,
        "stderr": stderr,
        "status": status,
    }


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
async def test_shell_scripts_run_with_bash(toolset: SkillToolset) -> None:
    result = await _run(toolset, skill_name="tools", file_path="scripts/hello.sh", args=["world"])

    assert (result["stdout"], result["status"]) == ("hello world\n", "success")


async def test_timeout_kills_the_script(make_skill, tmp_path: Path) -> None:
    make_skill("slow", files={"scripts/sleep.py": "import time\ntime.sleep(30)\n"})
    toolset = SkillToolset([tmp_path / "skills"], allow_scripts=True, script_timeout=0.5)
    result = await _run(toolset, skill_name="slow", file_path="scripts/sleep.py")

    assert (result["stderr"], result["status"]) == ("Timed out after 0.5s", "error")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            {"file_path": "scripts/echo.py"},
            {"error": "Argument 'skill_name' is required.", "error_code": "INVALID_ARGUMENTS"},
        ),
        (
            {"skill_name": "tools", "file_path": "scripts/echo.py", "args": "x"},
            {
                "error": "'args' must be a JSON object (dict) or a list of strings, got str.",
                "error_code": "INVALID_ARGUMENTS",
            },
        ),
        (
            {
                "skill_name": "tools",
                "file_path": "scripts/echo.py",
                "args": ["a"],
                "positional_args": ["b"],
            },
            {
                "error": "Cannot specify 'short_options' or 'positional_args' when 'args' is a list.",
                "error_code": "INVALID_ARGUMENTS",
            },
        ),
        (
            {"skill_name": "nope", "file_path": "scripts/echo.py"},
            {"error": "Skill 'nope' not found.", "error_code": "SKILL_NOT_FOUND"},
        ),
        (
            {"skill_name": "tools", "file_path": "scripts/tool.rb"},
            {
                "error": "Unsupported script type '.rb'. Supported types: .py, .sh, .bash",
                "error_code": "UNSUPPORTED_SCRIPT_TYPE",
            },
        ),
        (
            {"skill_name": "tools", "file_path": "scripts/../SKILL.md"},
            {
                "error": "Script 'scripts/../SKILL.md' not found in skill 'tools'.",
                "error_code": "SCRIPT_NOT_FOUND",
            },
        ),
        (
            {"skill_name": "tools", "file_path": "/usr/bin/python3"},
            {
                "error": "Script '/usr/bin/python3' not found in skill 'tools'.",
                "error_code": "SCRIPT_NOT_FOUND",
            },
        ),
    ],
)
async def test_errors(toolset: SkillToolset, args: dict[str, Any], expected: Any) -> None:
    assert await _run(toolset, **args) == expected


async def test_repeated_missing_scripts_tell_the_model_to_stop(toolset: SkillToolset) -> None:
    ctx = tool_context()
    await _run(toolset, ctx, skill_name="tools", file_path="scripts/a.py")

    assert await _run(toolset, ctx, skill_name="tools", file_path="scripts/b.py") == {
        "error": "Script 'scripts/b.py' not found in skill 'tools'. This is script lookup "
        "failure #2 this invocation. Do not retry any script path \u2014 report the error to "
        "the user and stop.",
        "error_code": "SCRIPT_NOT_FOUND_FATAL",
    }


async def test_in_memory_scripts_run_in_a_temporary_folder() -> None:
    skill = Skill(
        frontmatter=Frontmatter(name="mem", description="d"),
        instructions="i",
        resources=Resources(
            scripts={"show.py": Script(src="print(open('assets/data.txt').read())")},
            assets={"data.txt": "from memory"},
        ),
    )
    toolset = SkillToolset([skill], allow_scripts=True)

    result = await _run(toolset, skill_name="mem", file_path="scripts/show.py")

    assert (result["stdout"], result["status"]) == ("from memory\n", "success")
