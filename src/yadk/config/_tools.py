"""Reading ``tools:`` entries and the yadk ``skills:`` / ``examples:`` keys into tool objects.

Built-in names (``ExampleTool``, ``SkillToolset``, ``AgentTool``, ``exit_loop``,
``transfer_to_agent`` and their google-adk spellings) take ``args:`` checked against what each
accepts. Any other name is a dotted reference to a function, a tool or toolset instance, or a tool
class / factory (which gets ``args:`` only under the trust policy).

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from yadk._files import FileProblem, confine
from yadk.config._context import FileScope, did_you_mean
from yadk.config._dialect import ADK_ONLY_TOOLS, BUILTIN_TOOL_SPELLINGS
from yadk.config._fields import args_mapping, args_trusted, call_factory, local_file
from yadk.config._gemini_tools import gemini_only, google_search_tool, search_with_sub_agents
from yadk.config._mcp import MCP_ARGS, mcp_toolset
from yadk.config._names import describe
from yadk.config._refs import LoaderBase, adk_object_problem
from yadk.config._subagents import agent_reference
from yadk.config._yaml import KeyPath
from yadk.errors import SkillError, ToolDeclarationError, ToolExecutionError

__all__ = [
    "agent_tool",
    "builtin_tool",
    "code_tool",
    "declarable",
    "example_tool",
    "function_tool",
    "skill_toolset",
    "skills",
    "tool",
    "tools",
]

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


def tools(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> list[Any] | None:
    if not reader.expect(
        scope,
        at,
        value,
        list,
        "a list of tools",
        "e.g. `tools: [{name: my_agent.tools.search}]`.",
    ):
        return None
    before = reader.errors
    built: list[Any] = []
    for index, entry in enumerate(value):
        found = tool(reader, scope, (*at, index), entry)
        if found is not None:
            built.append(found)
    return built if reader.errors == before else None


def tool(reader: LoaderBase, scope: FileScope, at: KeyPath, entry: Any) -> Any:
    """One ``tools:`` entry: ``{name, args}`` or a plain name."""
    if isinstance(entry, str):
        entry, name_at = {"name": entry}, at
    elif isinstance(entry, dict):
        reader.unknown_keys(scope, at, entry, ("args", "name"), "a tool entry")
        name_at = (*at, "name")
        if "name" not in entry:
            reader.error(
                scope,
                at,
                "missing-field",
                "A tool entry needs `name`.",
                "e.g. `- name: my_agent.tools.search`.",
            )
            return None
    else:
        reader.expect(scope, at, entry, (str, dict), "a tool name or a mapping with `name`")
        return None
    name = entry["name"]
    if not reader.expect(scope, name_at, name, str, "a tool name (a string)"):
        return None
    args_at = (*at, "args")
    args = args_mapping(reader, scope, args_at, entry.get("args"))
    if args is None:
        return None
    builtin = BUILTIN_TOOL_SPELLINGS.get(name)
    if builtin is not None:
        return builtin_tool(reader, scope, args_at, builtin, args)
    if "." not in name:
        _unknown_short_name(reader, scope, name_at, name)
        return None
    if name.rsplit(".", 1)[-1] in ADK_ONLY_TOOLS and name.startswith("google.adk."):
        _unknown_short_name(reader, scope, name_at, name.rsplit(".", 1)[-1])
        return None
    built = code_tool(reader, scope, name_at, args_at, name, args)
    if built is not None:  # traced spans name where the tool was declared
        from yadk._tracing import set_config_location

        set_config_location(built, f"{scope.file}:{scope.doc.where(name_at)[0]}")
    return built


def _unknown_short_name(reader: LoaderBase, scope: FileScope, at: KeyPath, name: str) -> None:
    if name in ADK_ONLY_TOOLS:
        hint = (
            "Write the tool as a BaseTool or BaseToolset subclass (or a function) in your "
            "agent package and reference it by dotted name (e.g. `name: .tools.my_tool`)."
            if name[:1].isupper()
            else "Write it as a function in your agent package and reference it by dotted "
            f"name (e.g. `name: .tools.{name}`)."
        )
        reader.error(
            scope,
            at,
            "unsupported-tool",
            f"`{name}` is a google-adk built-in tool that yadk does not provide.",
            hint,
        )
        return
    guess = did_you_mean(name, _SHORT_NAMES)
    reader.error(
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


def node_tool(
    reader: LoaderBase,
    scope: FileScope,
    name_at: KeyPath,
    args_at: KeyPath,
    name: str,
    as_tool: Any,
    args: dict[str, Any],
) -> Any:
    """A workflow or workflow node named as a tool: the agent calls it (google-adk's
    node-as-tool)."""
    if args:
        reader.error(
            scope,
            args_at,
            "invalid-args",
            f"`{name}` is a workflow or a workflow node, so it cannot take `args`.",
            "Remove `args:`; the model's call gives the node its input.",
        )
        return None
    try:
        return as_tool()
    except ValueError as exc:
        reader.error(
            scope,
            name_at,
            "wrong-kind",
            f"`{name}` cannot be called as a tool: {exc}",
            "Give it an input_schema (a pydantic model), or annotate its entry node's"
            " node_input, so the model knows what to send.",
        )
        return None


def code_tool(
    reader: LoaderBase,
    scope: FileScope,
    name_at: KeyPath,
    args_at: KeyPath,
    name: str,
    args: dict[str, Any],
) -> Any:
    found = reader.reference(scope, name_at, name, "object")
    if found is None:
        return None
    if not reader.import_code:
        if found.kind == "value" and args:
            reader.error(
                scope,
                args_at,
                "invalid-args",
                f"`{found.name}` is an object, so it cannot take `args`.",
                "Remove `args:`, or reference a tool class or factory function.",
            )
            return None
        args_trusted(reader, scope, args_at, found.name, found, args)
        return None
    from yadk.tools import BaseTool, BaseToolset

    obj = found.obj
    if isinstance(obj, (BaseTool, BaseToolset)):
        if args:
            reader.error(
                scope,
                args_at,
                "invalid-args",
                f"`{found.name}` is already a tool, so it cannot take `args`.",
                "Remove `args:`, or reference a tool class or factory function.",
            )
            return None
        return obj
    is_class = isinstance(obj, type)
    as_tool = getattr(obj, "as_tool", None)
    if not is_class and not callable(obj) and callable(as_tool):
        return node_tool(reader, scope, name_at, args_at, found.name, as_tool, args)
    adk = adk_object_problem(found.name, obj, "a function, a tool, a toolset, or a tool class")
    if adk is not None:
        reader.error(scope, name_at, "adk-object", *adk)
        return None
    if not callable(obj) or (is_class and not issubclass(obj, (BaseTool, BaseToolset))):
        reader.error(
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
        return obj if declarable(reader, obj) else None
    # A tool class, or a factory function given args.
    if not args_trusted(reader, scope, args_at, found.name, found, args):
        return None
    made = call_factory(reader, scope, args_at, found.name, obj, args)
    if made is not None and not isinstance(made, (BaseTool, BaseToolset)) and not callable(made):
        reader.error(
            scope,
            name_at,
            "wrong-kind",
            f"`{found.name}(**args)` returned {describe(made)}, expected a tool or a toolset.",
        )
        return None
    return made


# --- built-ins ---------------------------------------------------------------------------


def builtin_tool(
    reader: LoaderBase, scope: FileScope, at: KeyPath, name: str, args: dict[str, Any]
) -> Any:
    allowed = _BUILTIN_ARGS[name]
    if args and not allowed:
        reader.error(scope, at, "invalid-args", f"`{name}` takes no `args`.", "Remove `args:`.")
        return None
    before = reader.errors
    reader.unknown_keys(scope, at, args, allowed, f"`{name}` args")
    if reader.errors != before:
        return None
    if name == "ExampleTool":
        return example_tool(reader, scope, at, args, shorthand=False)
    if name == "SkillToolset":
        return skill_toolset(reader, scope, at, args)
    if name == "AgentTool":
        return agent_tool(reader, scope, at, args)
    if name == "MCPToolset":
        return mcp_toolset(reader, scope, at, args)
    if name in ("FunctionTool", "LongRunningFunctionTool"):
        return function_tool(reader, scope, at, name, args)
    if name == "GoogleSearchTool":
        return google_search_tool(reader, scope, at, args)
    if name in ("google_search", "url_context"):
        gemini_only(reader, scope, at[:-1], name)
        if name == "google_search":
            search_with_sub_agents(reader, scope, at[:-1], name, bypass=False)
    if not reader.import_code:
        return None
    from yadk import tools

    return getattr(tools, name)


def function_tool(
    reader: LoaderBase, scope: FileScope, at: KeyPath, name: str, args: dict[str, Any]
) -> Any:
    """``FunctionTool`` / ``LongRunningFunctionTool`` with ``args: {func: pkg.mod.fn}``."""
    if "func" not in args:
        reader.error(
            scope,
            at,
            "missing-field",
            f"{name} needs `args.func`, the dotted name of the function.",
            "e.g. `args: {func: my_agent.tools.ask_for_approval}`.",
        )
        return None
    func_at = (*at, "func")
    if not reader.expect(scope, func_at, args["func"], str, "a dotted name (a string)"):
        return None
    found = reader.reference(scope, func_at, args["func"], "callback")
    if found is None or not reader.import_code or not declarable(reader, found.obj):
        return None
    from yadk import tools

    return getattr(tools, name)(found.obj)


def declarable(reader: LoaderBase, func: Any) -> bool:
    """Whether a function tool's declaration can be built; if not, the error is reported
    at the function's ``def`` line, with the message ``run`` would give."""
    from yadk.tools import FunctionTool

    try:
        FunctionTool(func).check_declaration()
    except ToolDeclarationError as exc:
        reader.report(exc.file or "", exc.line, 1, "tool-declaration", exc.problem, exc.hint)
        return False
    return True


def agent_tool(reader: LoaderBase, scope: FileScope, at: KeyPath, args: dict[str, Any]) -> Any:
    if "agent" not in args:
        reader.error(
            scope,
            at,
            "missing-field",
            "AgentTool needs `args.agent`.",
            "e.g. `args: {agent: {config_path: helper.yaml}}` or `{agent: {code: pkg.agent}}`.",
        )
        return None
    for flag in ("skip_summarization", "include_plugins"):
        if flag in args:
            reader.expect(scope, (*at, flag), args[flag], bool, "true or false")
    record = agent_reference(reader, scope, (*at, "agent"), args["agent"], separate_tree=True)
    if record is None or record.agent is None or not reader.import_code:
        return None
    from yadk.tools import AgentTool

    return AgentTool(
        record.agent,
        skip_summarization=bool(args.get("skip_summarization", False)),
        include_plugins=bool(args.get("include_plugins", True)),
    )


def skill_toolset(reader: LoaderBase, scope: FileScope, at: KeyPath, args: dict[str, Any]) -> Any:
    options = {k: v for k, v in args.items() if k != "skills"}
    if "allow_scripts" in options:
        where = (*at, "allow_scripts")
        if (
            reader.expect(scope, where, options["allow_scripts"], bool, "true or false")
            and (options["allow_scripts"])
        ):
            options["allow_scripts"] = reader.code_execution_allowed(
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
            reader.expect(scope, (*at, key), options[key], (int, float), "a number")
    if "skills" not in args:
        reader.error(
            scope,
            at,
            "missing-field",
            "SkillToolset needs `args.skills`.",
            "e.g. `args: {skills: [skills/code-review]}` (folders relative to this file).",
        )
        return None
    return skills(reader, scope, (*at, "skills"), args["skills"], options)


def skills(
    reader: LoaderBase,
    scope: FileScope,
    at: KeyPath,
    value: Any,
    options: dict[str, Any] | None = None,
) -> Any:
    """``skills:`` (yadk): skill folders or folders of skills, relative to the config."""
    entries = [value] if isinstance(value, str) else value
    if not reader.expect(scope, at, entries, list, "a folder path or a list of folder paths"):
        return None
    before = reader.errors
    folders: list[Path] = []
    from yadk.skills import expand_skill_paths, validate_skill_paths

    for index, entry in enumerate(entries):
        where = at if isinstance(value, str) else (*at, index)
        if reader.expect(scope, where, entry, str, "a folder path (a string)"):
            folder = local_file(reader, scope, where, entry, "Skill folder")
            # A skill outside the agent folder is not read, not even to check it.
            if folder is not None and _skills_confined(reader, scope, where, folder):
                folders.append(folder)
    found, _ = expand_skill_paths(folders)
    reader.files.update(found)
    reader.files.update(folders)
    if reader.import_code and reader.errors == before:
        from yadk.skills import skill_toolset_from_paths  # the toolset: only when loading

        try:
            toolset = skill_toolset_from_paths(folders, **(options or {}))
        except SkillError:
            problems = validate_skill_paths(folders)
        else:
            _skill_problems(reader, toolset.registry.problems)
            return toolset
    else:
        problems = validate_skill_paths(folders)
    _skill_problems(reader, problems)
    return None


def _skills_confined(reader: LoaderBase, scope: FileScope, at: KeyPath, folder: Path) -> bool:
    """Whether every skill folder ``folder`` holds (it, or its subfolders) stays inside the
    agent folder once symlinks are resolved; reports the first that does not."""
    from yadk.skills import expand_skill_paths

    found, _ = expand_skill_paths([folder])
    for skill in found:
        try:
            confine(skill, scope.root)
        except FileProblem as problem:
            shown = os.path.relpath(skill, scope.folder)
            reader.error(
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


def _skill_problems(reader: LoaderBase, problems: Any) -> None:
    for p in problems:
        reader.report(p.path, p.line, p.column, p.rule, p.message, p.hint, severity=p.severity)


# --- examples ----------------------------------------------------------------------------


def example_tool(
    reader: LoaderBase, scope: FileScope, at: KeyPath, args: Any, *, shorthand: bool
) -> Any:
    """``ExampleTool`` args, or the ``examples:`` shorthand (list, file or provider name)."""
    from yadk.examples import (
        ExampleValidationError,
        check_examples,
        check_examples_file,
        load_examples_file,
        looks_like_examples_path,
    )

    options: dict[str, Any] = {}
    examples_at = at
    if isinstance(args, dict) and (not shorthand or "examples" in args):
        reader.unknown_keys(scope, at, args, _BUILTIN_ARGS["ExampleTool"], "`examples`")
        options = {k: v for k, v in args.items() if k != "examples"}
        examples_at = (*at, "examples")
        if "examples" not in args:
            reader.error(
                scope,
                at,
                "missing-field",
                "ExampleTool needs `args.examples`.",
                "A list of examples, or the dotted name of a BaseExampleProvider instance.",
            )
            return None
        args = args["examples"]
    if "timeout" in options:
        reader.expect(
            scope, (*at, "timeout"), options["timeout"], (int, float), "a number of seconds"
        )
    if "cache_size" in options:
        reader.expect(scope, (*at, "cache_size"), options["cache_size"], int, "an integer")
    value = args
    try:
        if isinstance(value, str) and shorthand and looks_like_examples_path(value):
            path = local_file(reader, scope, examples_at, value, "Examples file")
            if path is None:
                return None
            reader.files.add(path)
            if not reader.import_code:  # checking only: no Example models (no pydantic)
                check_examples_file(path)
                return None
            value = load_examples_file(path)
        elif isinstance(value, str):
            value = _provider(reader, scope, examples_at, value)
            if value is None:
                return None
        elif isinstance(value, list):
            if not reader.import_code:
                check_examples(value)
                return None
            from yadk.examples import coerce_examples

            value = coerce_examples(value)
        else:
            reader.expect(
                scope,
                examples_at,
                value,
                (list, str),
                "a list of examples, a file path or a provider's dotted name",
            )
            return None
        if not reader.import_code:
            return None
        from yadk.tools import ExampleTool  # the engine: only when loading

        return ExampleTool(value, **options)
    except ExampleValidationError as exc:
        _example_problem(reader, scope, examples_at, exc)
    except (ToolExecutionError, ValueError, TypeError) as exc:
        reader.error(scope, examples_at, "invalid-examples", f"{exc}")
    return None


def _provider(reader: LoaderBase, scope: FileScope, at: KeyPath, name: str) -> Any:
    from yadk.examples import BaseExampleProvider

    found = reader.reference(
        scope, at, name, "object", unresolved_prefix=f"Invalid fully qualified name: {name}. "
    )
    if found is None:
        return None
    if reader.import_code:
        wrong = not isinstance(found.obj, BaseExampleProvider)
        got = describe(found.obj)
    else:
        wrong = found.kind in ("class", "function")
        got = f"a {found.kind}"
    if wrong:
        reader.error(
            scope,
            at,
            "wrong-kind",
            f"`{found.name}` is {got}: example provider must be an instance "
            "of BaseExampleProvider.",
            "Reference an instance (`store = LexicalExampleStore(...)`), not the class.",
        )
        return None
    return found.obj if reader.import_code else []


def _example_problem(reader: LoaderBase, scope: FileScope, at: KeyPath, exc: Any) -> None:
    if exc.path:
        # The message repeats the place ("path:line:col: ..."); the diagnostic already has it.
        message = re.sub(rf"^{re.escape(str(exc.path))}(:\d+){{0,2}}: ", "", str(exc))
        reader.report(
            exc.path,
            exc.line or 0,
            exc.column or (1 if exc.line else 0),
            "invalid-examples",
            message[:1].upper() + message[1:],
            _EXAMPLE_SHAPE,
        )
        return
    where = at if exc.index is None else (*at, exc.index, *exc.loc)
    reader.error(
        scope,
        where,
        "invalid-examples",
        str(exc),
        _EXAMPLE_SHAPE,
        key="unknown field" in str(exc) and where in scope.doc.keys,
    )
