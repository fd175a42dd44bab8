"""Reading ``tools:`` entries and the yadk ``skills:`` / ``examples:`` keys into tool objects.

Built-in names (``ExampleTool``, ``SkillToolset``, ``AgentTool``, ``exit_loop``,
``transfer_to_agent`` and their google-adk spellings) take ``args:`` checked against what each
accepts. Any other name is a dotted reference to a function, a tool or toolset instance, or a tool
class / factory (which gets ``args:`` only under the trust policy).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from yadk.config._context import FileScope, did_you_mean
from yadk.config._dialect import ADK_ONLY_TOOLS, BUILTIN_TOOL_SPELLINGS
from yadk.config._gemini_tools import GeminiToolReader
from yadk.config._mcp import MCP_ARGS
from yadk.config._names import describe
from yadk.config._refs import adk_object_problem
from yadk.config._yaml import KeyPath

__all__ = ["ToolReader"]

_BUILTIN_ARGS: dict[str, tuple[str, ...]] = {
    "AgentTool": ("agent", "include_plugins", "skip_summarization"),
    "ExampleTool": ("cache_size", "examples", "timeout"),
    "google_search": (),
    "GoogleSearchTool": ("bypass_multi_tools_limit", "model"),
    "url_context": (),
    "load_artifacts": (),
    "load_memory": (),
    "preload_memory": (),
    "get_user_choice": (),
    "FunctionTool": ("func",),
    "LongRunningFunctionTool": ("func",),
    "MCPToolset": MCP_ARGS,
    "SkillToolset": ("allow_scripts", "max_resource_bytes", "script_timeout", "skills"),
    "exit_loop": (),
    "transfer_to_agent": (),
}
_SHORT_NAMES = sorted({*BUILTIN_TOOL_SPELLINGS.values()})
_EXAMPLE_SHAPE = (
    "Each example is `{input: Content, output: [Content, ...]}`; a Content is "
    "`{role: user, parts: [{text: ...}]}`."
)


class ToolReader(GeminiToolReader):
    """Tools of an LlmAgent."""

    def tools(self, scope: FileScope, at: KeyPath, value: Any) -> list[Any] | None:
        if not self.expect(
            scope,
            at,
            value,
            list,
            "a list of tools",
            "e.g. `tools: [{name: my_agent.tools.search}]`.",
        ):
            return None
        before = self.errors
        built: list[Any] = []
        for index, entry in enumerate(value):
            tool = self.tool(scope, (*at, index), entry)
            if tool is not None:
                built.append(tool)
        return built if self.errors == before else None

    def tool(self, scope: FileScope, at: KeyPath, entry: Any) -> Any:
        """One ``tools:`` entry: ``{name, args}`` or a plain name."""
        if isinstance(entry, str):
            entry, name_at = {"name": entry}, at
        elif isinstance(entry, dict):
            self.unknown_keys(scope, at, entry, ("args", "name"), "a tool entry")
            name_at = (*at, "name")
            if "name" not in entry:
                self.error(
                    scope,
                    at,
                    "missing-field",
                    "A tool entry needs `name`.",
                    "e.g. `- name: my_agent.tools.search`.",
                )
                return None
        else:
            self.expect(scope, at, entry, (str, dict), "a tool name or a mapping with `name`")
            return None
        name = entry["name"]
        if not self.expect(scope, name_at, name, str, "a tool name (a string)"):
            return None
        args_at = (*at, "args")
        args = self.args_mapping(scope, args_at, entry.get("args"))
        if args is None:
            return None
        builtin = BUILTIN_TOOL_SPELLINGS.get(name)
        if builtin is not None:
            return self.builtin_tool(scope, args_at, builtin, args)
        if "." not in name:
            self._unknown_short_name(scope, name_at, name)
            return None
        if name.rsplit(".", 1)[-1] in ADK_ONLY_TOOLS and name.startswith("google.adk."):
            self._unknown_short_name(scope, name_at, name.rsplit(".", 1)[-1])
            return None
        return self.code_tool(scope, name_at, args_at, name, args)

    def _unknown_short_name(self, scope: FileScope, at: KeyPath, name: str) -> None:
        if name in ADK_ONLY_TOOLS:
            hint = (
                "Write the tool as a BaseTool or BaseToolset subclass (or a function) in your "
                "agent package and reference it by dotted name (e.g. `name: .tools.my_tool`)."
                if name[:1].isupper()
                else "Write it as a function in your agent package and reference it by dotted "
                f"name (e.g. `name: .tools.{name}`)."
            )
            self.error(
                scope,
                at,
                "unsupported-tool",
                f"`{name}` is a google-adk built-in tool that yadk does not provide.",
                hint,
            )
            return
        guess = did_you_mean(name, _SHORT_NAMES)
        self.error(
            scope,
            at,
            "unknown-tool",
            f"`{name}` is not a built-in tool.",
            f"Did you mean `{guess}`?"
            if guess
            else "Built-ins: " + ", ".join(_SHORT_NAMES) + "; anything else is a dotted name "
            "such as `my_agent.tools.search` or `.tools.search`.",
        )

    # --- code references ---------------------------------------------------------------------

    def code_tool(
        self, scope: FileScope, name_at: KeyPath, args_at: KeyPath, name: str, args: dict[str, Any]
    ) -> Any:
        found = self.reference(scope, name_at, name, "object")
        if found is None:
            return None
        if not self.import_code:
            if found.kind == "value" and args:
                self.error(
                    scope,
                    args_at,
                    "invalid-args",
                    f"`{found.name}` is an object, so it cannot take `args`.",
                    "Remove `args:`, or reference a tool class or factory function.",
                )
                return None
            self.args_trusted(scope, args_at, found.name, found, args)
            return None
        from yadk.tools import BaseTool, BaseToolset

        obj = found.obj
        if isinstance(obj, (BaseTool, BaseToolset)):
            if args:
                self.error(
                    scope,
                    args_at,
                    "invalid-args",
                    f"`{found.name}` is already a tool, so it cannot take `args`.",
                    "Remove `args:`, or reference a tool class or factory function.",
                )
                return None
            return obj
        is_class = isinstance(obj, type)
        adk = adk_object_problem(found.name, obj, "a function, a tool, a toolset, or a tool class")
        if adk is not None:
            self.error(scope, name_at, "adk-object", *adk)
            return None
        if not callable(obj) or (is_class and not issubclass(obj, (BaseTool, BaseToolset))):
            self.error(
                scope,
                name_at,
                "wrong-kind",
                f"`{found.name}` is {describe(obj)}, expected a function, a tool, a toolset, or a "
                "tool class.",
                "Reference a function (it becomes a FunctionTool) or a BaseTool/BaseToolset.",
            )
            return None
        if not is_class and not args:
            # A function: the agent wraps it in a FunctionTool.
            return obj if self.declarable(obj) else None
        # A tool class, or a factory function given args.
        if not self.args_trusted(scope, args_at, found.name, found, args):
            return None
        made = self.call_factory(scope, args_at, found.name, obj, args)
        if (
            made is not None
            and not isinstance(made, (BaseTool, BaseToolset))
            and not callable(made)
        ):
            self.error(
                scope,
                name_at,
                "wrong-kind",
                f"`{found.name}(**args)` returned {describe(made)}, expected a tool or a toolset.",
            )
            return None
        return made

    # --- built-ins ---------------------------------------------------------------------------

    def builtin_tool(self, scope: FileScope, at: KeyPath, name: str, args: dict[str, Any]) -> Any:
        allowed = _BUILTIN_ARGS[name]
        if args and not allowed:
            self.error(scope, at, "invalid-args", f"`{name}` takes no `args`.", "Remove `args:`.")
            return None
        before = self.errors
        self.unknown_keys(scope, at, args, allowed, f"`{name}` args")
        if self.errors != before:
            return None
        if name == "ExampleTool":
            return self.example_tool(scope, at, args, shorthand=False)
        if name == "SkillToolset":
            return self.skill_toolset(scope, at, args)
        if name == "AgentTool":
            return self.agent_tool(scope, at, args)
        if name == "MCPToolset":
            return self.mcp_toolset(scope, at, args)
        if name in ("FunctionTool", "LongRunningFunctionTool"):
            return self.function_tool(scope, at, name, args)
        if name == "GoogleSearchTool":
            return self.google_search_tool(scope, at, args)
        if name in ("google_search", "url_context"):
            self._gemini_only(scope, at[:-1], name)
            if name == "google_search":
                self.search_with_sub_agents(scope, at[:-1], name, bypass=False)
        if not self.import_code:
            return None
        from yadk import tools

        return getattr(tools, name)

    def function_tool(self, scope: FileScope, at: KeyPath, name: str, args: dict[str, Any]) -> Any:
        """``FunctionTool`` / ``LongRunningFunctionTool`` with ``args: {func: pkg.mod.fn}``."""
        if "func" not in args:
            self.error(
                scope,
                at,
                "missing-field",
                f"{name} needs `args.func`, the dotted name of the function.",
                "e.g. `args: {func: my_agent.tools.ask_for_approval}`.",
            )
            return None
        func_at = (*at, "func")
        if not self.expect(scope, func_at, args["func"], str, "a dotted name (a string)"):
            return None
        found = self.reference(scope, func_at, args["func"], "callback")
        if found is None or not self.import_code or not self.declarable(found.obj):
            return None
        from yadk import tools

        return getattr(tools, name)(found.obj)

    def declarable(self, func: Any) -> bool:
        """Whether a function tool's declaration can be built; if not, the error is reported
        at the function's ``def`` line, with the message ``run`` would give."""
        from yadk.errors import ToolDeclarationError
        from yadk.tools import FunctionTool

        try:
            FunctionTool(func).check_declaration()
        except ToolDeclarationError as exc:
            self.report(exc.file or "", exc.line, 1, "tool-declaration", exc.problem, exc.hint)
            return False
        return True

    def agent_tool(self, scope: FileScope, at: KeyPath, args: dict[str, Any]) -> Any:
        if "agent" not in args:
            self.error(
                scope,
                at,
                "missing-field",
                "AgentTool needs `args.agent`.",
                "e.g. `args: {agent: {config_path: helper.yaml}}` or `{agent: {code: pkg.agent}}`.",
            )
            return None
        for flag in ("skip_summarization", "include_plugins"):
            if flag in args:
                self.expect(scope, (*at, flag), args[flag], bool, "true or false")
        record = self.agent_reference(scope, (*at, "agent"), args["agent"], separate_tree=True)
        if record is None or record.agent is None or not self.import_code:
            return None
        from yadk.tools import AgentTool

        return AgentTool(
            record.agent,
            skip_summarization=bool(args.get("skip_summarization", False)),
            include_plugins=bool(args.get("include_plugins", True)),
        )

    def skill_toolset(self, scope: FileScope, at: KeyPath, args: dict[str, Any]) -> Any:
        options = {k: v for k, v in args.items() if k != "skills"}
        if "allow_scripts" in options:
            where = (*at, "allow_scripts")
            if (
                self.expect(scope, where, options["allow_scripts"], bool, "true or false")
                and (options["allow_scripts"])
            ):
                options["allow_scripts"] = self.code_execution_allowed(
                    scope,
                    where,
                    "skill_scripts",
                    rule="untrusted-skill-scripts",
                    message="Skill scripts are not allowed in agent configs: `allow_scripts: true`"
                    " lets the model run the skill folders' scripts as local processes.",
                    alternative="or leave `allow_scripts` out: the model still reads the skills"
                    " and their resources.",
                )
        for key in ("script_timeout", "max_resource_bytes"):
            if key in options:
                self.expect(scope, (*at, key), options[key], (int, float), "a number")
        if "skills" not in args:
            self.error(
                scope,
                at,
                "missing-field",
                "SkillToolset needs `args.skills`.",
                "e.g. `args: {skills: [skills/code-review]}` (folders relative to this file).",
            )
            return None
        return self.skills(scope, (*at, "skills"), args["skills"], options)

    def skills(
        self, scope: FileScope, at: KeyPath, value: Any, options: dict[str, Any] | None = None
    ) -> Any:
        """``skills:`` (yadk): skill folders or folders of skills, relative to the config."""
        entries = [value] if isinstance(value, str) else value
        if not self.expect(scope, at, entries, list, "a folder path or a list of folder paths"):
            return None
        before = self.errors
        folders: list[Path] = []
        from yadk.errors import SkillError
        from yadk.skills._validation import expand_skill_paths, validate_skill_paths

        for index, entry in enumerate(entries):
            where = at if isinstance(value, str) else (*at, index)
            if self.expect(scope, where, entry, str, "a folder path (a string)"):
                folder = self.local_file(scope, where, entry, "Skill folder")
                # A skill outside the agent folder is not read, not even to check it.
                if folder is not None and self._skills_confined(scope, where, folder):
                    folders.append(folder)
        found, _ = expand_skill_paths(folders)
        self.files.update(found)
        self.files.update(folders)
        if self.import_code and self.errors == before:
            from yadk.skills import skill_toolset_from_paths  # the toolset: only when loading

            try:
                toolset = skill_toolset_from_paths(folders, **(options or {}))
            except SkillError:
                problems = validate_skill_paths(folders)
            else:
                self._skill_problems(toolset.registry.problems)
                return toolset
        else:
            problems = validate_skill_paths(folders)
        self._skill_problems(problems)
        return None

    def _skills_confined(self, scope: FileScope, at: KeyPath, folder: Path) -> bool:
        """Whether every skill folder ``folder`` holds (it, or its subfolders) stays inside the
        agent folder once symlinks are resolved; reports the first that does not."""
        from yadk._files import FileProblem, confine
        from yadk.skills._validation import expand_skill_paths

        found, _ = expand_skill_paths([folder])
        for skill in found:
            try:
                confine(skill, scope.root)
            except FileProblem as problem:
                shown = os.path.relpath(skill, scope.folder)
                self.error(
                    scope,
                    at,
                    problem.rule,
                    f"Skill folder `{shown}` leads outside the agent folder {scope.root}"
                    f" (to {os.path.realpath(skill)}, through a symlink): it is not read.",
                    "Keep every skill an agent uses inside its folder (copy it there instead of"
                    " linking to it).",
                )
                return False
        return True

    def _skill_problems(self, problems: Any) -> None:
        for p in problems:
            self.report(p.path, p.line, p.column, p.rule, p.message, p.hint, severity=p.severity)

    # --- examples ----------------------------------------------------------------------------

    def example_tool(self, scope: FileScope, at: KeyPath, args: Any, *, shorthand: bool) -> Any:
        """``ExampleTool`` args, or the ``examples:`` shorthand (list, file or provider name)."""
        from yadk.errors import ToolExecutionError
        from yadk.examples._error import ExampleValidationError
        from yadk.examples._files import (
            check_examples_file,
            load_examples_file,
            looks_like_examples_path,
        )
        from yadk.examples._shape import check_examples

        options: dict[str, Any] = {}
        examples_at = at
        if isinstance(args, dict) and (not shorthand or "examples" in args):
            self.unknown_keys(scope, at, args, _BUILTIN_ARGS["ExampleTool"], "`examples`")
            options = {k: v for k, v in args.items() if k != "examples"}
            examples_at = (*at, "examples")
            if "examples" not in args:
                self.error(
                    scope,
                    at,
                    "missing-field",
                    "ExampleTool needs `args.examples`.",
                    "A list of examples, or the dotted name of a BaseExampleProvider instance.",
                )
                return None
            args = args["examples"]
        if "timeout" in options:
            self.expect(
                scope, (*at, "timeout"), options["timeout"], (int, float), "a number of seconds"
            )
        if "cache_size" in options:
            self.expect(scope, (*at, "cache_size"), options["cache_size"], int, "an integer")
        value = args
        try:
            if isinstance(value, str) and shorthand and looks_like_examples_path(value):
                path = self.local_file(scope, examples_at, value, "Examples file")
                if path is None:
                    return None
                self.files.add(path)
                if not self.import_code:  # checking only: no Example models (no pydantic)
                    check_examples_file(path)
                    return None
                value = load_examples_file(path)
            elif isinstance(value, str):
                value = self._provider(scope, examples_at, value)
                if value is None:
                    return None
            elif isinstance(value, list):
                if not self.import_code:
                    check_examples(value)
                    return None
                from yadk.examples._example import coerce_examples

                value = coerce_examples(value)
            else:
                self.expect(
                    scope,
                    examples_at,
                    value,
                    (list, str),
                    "a list of examples, a file path or a provider's dotted name",
                )
                return None
            if not self.import_code:
                return None
            from yadk.tools import ExampleTool  # the engine: only when loading

            return ExampleTool(value, **options)
        except ExampleValidationError as exc:
            self._example_problem(scope, examples_at, exc)
        except (ToolExecutionError, ValueError, TypeError) as exc:
            self.error(scope, examples_at, "invalid-examples", f"{exc}")
        return None

    def _provider(self, scope: FileScope, at: KeyPath, name: str) -> Any:
        from yadk.examples import BaseExampleProvider

        found = self.reference(
            scope, at, name, "object", unresolved_prefix=f"Invalid fully qualified name: {name}. "
        )
        if found is None:
            return None
        if self.import_code:
            wrong = not isinstance(found.obj, BaseExampleProvider)
            got = describe(found.obj)
        else:
            wrong = found.kind in ("class", "function")
            got = f"a {found.kind}"
        if wrong:
            self.error(
                scope,
                at,
                "wrong-kind",
                f"`{found.name}` is {got}: example provider must be an instance "
                "of BaseExampleProvider.",
                "Reference an instance (`store = LexicalExampleStore(...)`), not the class.",
            )
            return None
        return found.obj if self.import_code else []

    def _example_problem(self, scope: FileScope, at: KeyPath, exc: Any) -> None:
        if exc.path:
            # The message repeats the place ("path:line:col: ..."); the diagnostic already has it.
            message = re.sub(rf"^{re.escape(str(exc.path))}(:\d+){{0,2}}: ", "", str(exc))
            self.report(
                exc.path,
                exc.line or 0,
                exc.column or (1 if exc.line else 0),
                "invalid-examples",
                message[:1].upper() + message[1:],
                _EXAMPLE_SHAPE,
            )
            return
        where = at if exc.index is None else (*at, exc.index, *exc.loc)
        self.error(
            scope,
            where,
            "invalid-examples",
            str(exc),
            _EXAMPLE_SHAPE,
            key="unknown field" in str(exc) and where in scope.doc.keys,
        )

    def agent_reference(
        self, scope: FileScope, at: KeyPath, value: Any, *, separate_tree: bool = False
    ) -> Any:
        raise NotImplementedError  # provided by the Loader
