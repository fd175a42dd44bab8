"""``run_skill_script``: run a script from a skill's scripts/ folder, only when the toolset was
built with ``allow_scripts=True``.

A script runs as a subprocess from an argument list (never a shell string, so model-chosen
arguments cannot inject commands), in its skill's folder, in its own session, with stdout and
stderr captured up to a cap. The timeout holds whatever the script does: at the deadline yadk
stops reading (a grandchild that keeps stdout open cannot stall it) and kills the script, its
process group and every process it started, ``setsid`` ones included (see ``_process_tree``);
a run that ends normally also kills what it left behind.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from yadk.models import FunctionDeclaration
from yadk.skills._process_tree import MARKER_VARIABLE, kill_everything, new_marker
from yadk.skills._resources import RESOURCE_KINDS, Script, normalize_resource_path
from yadk.skills._tools import _SkillTool, error

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk.skills._models import Skill

__all__ = ["RunSkillScriptTool", "script_argv"]

MAX_OUTPUT_BYTES: Final = 256 * 1024
_INTERPRETERS: Final = {"py": [sys.executable], "sh": ["bash"], "bash": ["bash"]}


def script_argv(
    script: str,
    args: dict[str, Any] | list[Any] | None,
    short_options: dict[str, Any] | None,
    positional_args: list[Any] | None,
) -> list[str] | None:
    """The command line for ``script`` (``None`` for an unsupported type). A list ``args`` is the
    whole argument list; otherwise ``--key value``, then ``-k value``, then ``--`` and the
    positional arguments, as google-adk builds them."""
    ext = script.rsplit(".", 1)[-1].lower() if "." in script else ""
    if ext not in _INTERPRETERS:
        return None
    argv = [*_INTERPRETERS[ext], script]
    if isinstance(args, list):
        return argv + [str(v) for v in args]
    for key, value in (args or {}).items():
        argv += [f"--{key}", str(value)]
    for key, value in (short_options or {}).items():
        argv += [f"-{key}", str(value)]
    if positional_args:
        argv += ["--", *(str(v) for v in positional_args)]
    return argv


def _argument_errors(args: dict[str, Any]) -> list[str]:
    script_args = args.get("args")
    short_options = args.get("short_options")
    positional = args.get("positional_args")
    errors = []
    if script_args is not None and not isinstance(script_args, (dict, list)):
        errors.append(
            "'args' must be a JSON object (dict) or a list of strings, got "
            f"{type(script_args).__name__}."
        )
    if short_options is not None and not isinstance(short_options, dict):
        errors.append(
            f"'short_options' must be a JSON object (dict), got {type(short_options).__name__}."
        )
    if positional is not None and not isinstance(positional, list):
        errors.append(
            f"'positional_args' must be a list of strings, got {type(positional).__name__}."
        )
    if isinstance(script_args, list) and (short_options or positional):
        errors.append("Cannot specify 'short_options' or 'positional_args' when 'args' is a list.")
    return errors


class _Drain:
    """Reads a pipe to the end, keeping the first ``limit`` bytes (so the child never blocks);
    what was read so far stays available if reading is cancelled at the deadline."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.kept = bytearray()
        self.truncated = False

    async def read(self, stream: asyncio.StreamReader | None) -> None:
        if stream is None:
            return
        while chunk := await stream.read(65536):
            room = self.limit - len(self.kept)
            if len(chunk) > room:
                self.truncated = True
            self.kept += chunk[: max(room, 0)]

    def text(self) -> str:
        return _text(bytes(self.kept), self.truncated)


def _text(data: bytes, truncated: bool) -> str:
    text = data.decode("utf-8", errors="replace")
    return text + f"\n[output truncated after {len(data)} bytes]" if truncated else text


async def _kill(process: asyncio.subprocess.Process, marker: str) -> None:
    await asyncio.to_thread(kill_everything, process.pid, marker)


@contextlib.contextmanager
def _materialized(skill: Skill) -> Iterator[Path]:
    """A temporary folder holding a skill built in Python (its in-memory resources)."""
    with tempfile.TemporaryDirectory(prefix="yadk-skill-") as folder:
        root = Path(folder)
        for kind in RESOURCE_KINDS:
            memory: dict[str, Any] = getattr(skill.resources, kind)
            for name, content in memory.items():
                relative = normalize_resource_path(name)
                if relative is None:
                    continue
                target = root / kind / relative
                target.parent.mkdir(parents=True, exist_ok=True)
                if isinstance(content, Script):
                    content = content.src
                if isinstance(content, bytes):
                    target.write_bytes(content)
                else:
                    target.write_text(content, encoding="utf-8")
        yield root


class RunSkillScriptTool(_SkillTool):
    """Runs ``scripts/<file>`` of a skill with a timeout; returns stdout, stderr and a status."""

    name = "run_skill_script"
    description = "Executes a script from a skill's scripts/ directory."

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters={
                "type": "object",
                "properties": {
                    "skill_name": {"type": "string", "description": "The name of the skill."},
                    "file_path": {
                        "type": "string",
                        "description": (
                            "The relative path to the script (e.g., 'scripts/setup.py')."
                        ),
                    },
                    "args": {
                        "anyOf": [
                            {"type": "object"},
                            {"type": "array", "items": {"type": "string"}},
                        ],
                        "description": (
                            "Optional arguments to pass to the script as key-value pairs (long "
                            "options) or as a list of strings. If specified as a list, it is "
                            "treated as the complete list of arguments, and 'short_options' and "
                            "'positional_args' must not be provided."
                        ),
                    },
                    "short_options": {
                        "type": "object",
                        "description": (
                            "Optional short options (single hyphen) to pass to the script as "
                            "key-value pairs. Must not be provided if 'args' is a list."
                        ),
                    },
                    "positional_args": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": (
                            "Optional positional arguments to pass to the script. Must not be "
                            "provided if 'args' is a list."
                        ),
                    },
                },
                "required": ["skill_name", "file_path"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        missing = [
            f"Argument '{n}' is required."
            for n in ("skill_name", "file_path")
            if not isinstance(args.get(n), str) or not args[n]
        ]
        if missing:
            return error("\n".join(missing), "INVALID_ARGUMENTS")
        problems = _argument_errors(args)
        if problems:
            return error("\n".join(problems), "INVALID_ARGUMENTS")
        skill_name: str = args["skill_name"]
        file_path: str = args["file_path"]
        skill = self._skill(skill_name)
        if skill is None:
            return error(f"Skill '{skill_name}' not found.", "SKILL_NOT_FOUND")

        name = file_path.replace("\\", "/")
        while name.startswith("./"):
            name = name[2:]
        name = name.removeprefix("scripts/")
        relative = normalize_resource_path(name)
        on_disk = skill.resources.path_of("scripts", relative) if relative else None
        in_memory = relative is not None and relative in skill.resources.scripts
        if on_disk is None and not in_memory:
            return self._script_not_found(tool_context, skill_name, file_path)
        assert relative is not None
        argv = script_argv(
            f"scripts/{relative}",
            args.get("args"),
            args.get("short_options"),
            args.get("positional_args"),
        )
        if argv is None:
            ext = f"'.{file_path.rsplit('.', 1)[-1]}'" if "." in file_path else "(no extension)"
            return error(
                f"Unsupported script type {ext}. Supported types: .py, .sh, .bash",
                "UNSUPPORTED_SCRIPT_TYPE",
            )
        try:
            if on_disk is not None and skill.resources.root is not None and not in_memory:
                return await self._run(skill_name, file_path, argv, skill.resources.root)
            with _materialized(skill) as folder:
                return await self._run(skill_name, file_path, argv, folder)
        except OSError as exc:
            return error(
                f"Failed to execute script '{file_path}':\n{type(exc).__name__}: {exc}",
                "EXECUTION_ERROR",
            )

    async def _run(
        self, skill_name: str, file_path: str, argv: list[str], cwd: Path
    ) -> dict[str, Any]:
        timeout = self._toolset.script_timeout
        marker = new_marker()
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            env={**os.environ, MARKER_VARIABLE: marker},
        )
        out, err = _Drain(MAX_OUTPUT_BYTES), _Drain(MAX_OUTPUT_BYTES)
        reading = asyncio.gather(out.read(process.stdout), err.read(process.stderr))
        timed_out = False
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        try:
            await asyncio.wait_for(asyncio.shield(reading), timeout)
            # The pipes closed; the script itself may still run until the deadline.
            code = await asyncio.wait_for(process.wait(), max(deadline - loop.time(), 0.01))
        except TimeoutError:
            # The deadline: stop reading, whoever still holds the pipes, and kill them all.
            timed_out = True
            reading.cancel()
            await _kill(process, marker)
            code = await process.wait()
        except BaseException:
            reading.cancel()
            await asyncio.shield(_kill(process, marker))
            raise
        else:
            await _kill(process, marker)  # whatever it left running in the background
        with contextlib.suppress(asyncio.CancelledError):
            await reading
        stdout, stderr = out.text(), err.text()
        if timed_out:
            stderr = f"{stderr.rstrip()}\nTimed out after {timeout}s".lstrip("\n")
            status = "error"
        elif code != 0:
            stderr = f"{stderr.rstrip()}\nExit code {code}".lstrip("\n")
            status = "error"
        elif stderr and not stdout:
            status = "error"
        else:
            status = "warning" if stderr else "success"
        return {
            "skill_name": skill_name,
            "file_path": file_path,
            "stdout": stdout,
            "stderr": stderr,
            "status": status,
        }

    @staticmethod
    def _script_not_found(
        tool_context: ToolContext, skill_name: str, file_path: str
    ) -> dict[str, Any]:
        counter = f"temp:_adk_skill_script_not_found_count_{tool_context.invocation_id}"
        failures = int(tool_context.state.get(counter) or 0) + 1
        tool_context.state[counter] = failures
        message = f"Script '{file_path}' not found in skill '{skill_name}'."
        if failures > 1:
            return error(
                f"{message} This is script lookup failure #{failures} this invocation. Do not "
                "retry any script path \u2014 report the error to the user and stop.",
                "SCRIPT_NOT_FOUND_FATAL",
            )
        return error(message, "SCRIPT_NOT_FOUND")
