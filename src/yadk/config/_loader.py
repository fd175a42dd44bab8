"""The loader: config files to agents, following sub-agent references, collecting every problem.

One ``Loader`` reads a whole agent tree. It works in two modes: with ``import_code`` it imports the
referenced code and builds engine objects; without, it checks everything it can from the files
alone (``yadk validate``). Either way every problem of every file is collected before anything
is raised.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from yadk.config._code_executor import read_code_executor
from yadk.config._content_config import content_config
from yadk.config._context import AgentRecord, FileScope, did_you_mean
from yadk.config._custom import base_kind, extra_field, read_agent_class, unknown_class_references
from yadk.config._dialect import (
    AGENT_CLASS_SPELLINGS,
    LLM_KEYS,
    LOOP_KEYS,
    keys_for,
)
from yadk.config._fields import (
    callbacks,
    instruction,
    model_code,
    model_name,
    schema,
    state_keys,
    static_instruction,
)
from yadk.config._outbound import check_outbound_env
from yadk.config._refs import LoaderBase
from yadk.config._remote import read_remote
from yadk.config._subagents import agent_reference
from yadk.config._tools import example_tool, skills, tools
from yadk.config._workflow import read_workflow
from yadk.errors import AgentDefinitionError

__all__ = ["Loader"]

_CALLBACK_FIELDS = {
    "before_agent_callbacks": "before_agent_callback",
    "after_agent_callbacks": "after_agent_callback",
    "before_model_callbacks": "before_model_callback",
    "after_model_callbacks": "after_model_callback",
    "before_tool_callbacks": "before_tool_callback",
    "after_tool_callbacks": "after_tool_callback",
}
_LLM_ONLY = {k.name: "Only an LlmAgent takes `{}`." for k in LLM_KEYS}
_LOOP_ONLY = {k.name: "Only a LoopAgent takes `{}`." for k in LOOP_KEYS}
_NULLABLE = frozenset(
    {
        *_CALLBACK_FIELDS,
        "code_executor",
        "disallow_transfer_to_parent",
        "disallow_transfer_to_peers",
        "examples",
        "generate_content_config",
        "input_schema",
        "max_iterations",
        "model",
        "model_code",
        "output_key",
        "output_schema",
        "skills",
        "state",
        "static_instruction",
        "sub_agents",
        "tools",
    }
)


class Loader(LoaderBase):
    """Reads the agent tree rooted at a config file (see the module docstring)."""

    # Whether checks may reach the network (`yadk validate --network`: remote agents' cards).
    network: bool = False

    # --- files -------------------------------------------------------------------------------

    def load_file(self, file: Path) -> AgentRecord | None:
        """The agent defined by ``file`` (its problems are recorded either way)."""
        document = self.read_document(file, self.files)
        if document is None:
            return None
        scope = FileScope(document, self.root)
        self.trust_policy(scope)  # its problems are reported whether or not `args` are used
        check_outbound_env(self, scope)
        self.resolver.add_search_dirs([scope.folder, scope.folder.parent])
        self.stack.append(Path(os.path.realpath(file)))
        try:
            return self.agent(scope)
        finally:
            self.stack.pop()

    # --- one agent ---------------------------------------------------------------------------

    def agent(self, scope: FileScope) -> AgentRecord:
        data = scope.doc.data
        record = AgentRecord(name=None, scope=scope, at=())
        if not isinstance(data, dict):
            self.expect(scope, (), data, dict, "a mapping of agent keys (name, instruction, ...)")
            record.ok = False
            return record
        before = self.errors
        kind, cls, extra = read_agent_class(self, scope, data)
        record.kind = kind or "unknown"
        allowed = None if kind is None else [k.name for k in keys_for(base_kind(kind))] + extra
        if kind is not None and allowed is not None:
            hints = {k: v.format(k) for k, v in {**_LLM_ONLY, **_LOOP_ONLY}.items()}
            article = "an" if kind == "LlmAgent" else "a"
            self.unknown_keys(scope, (), data, allowed, f"{article} {kind} config", hints)
            record.misspelled = {
                guess
                for key in data
                if key not in allowed and (guess := did_you_mean(str(key), allowed)) is not None
            }
        # ADK's optional keys accept null for "not set".
        data = {k: v for k, v in data.items() if v is not None or k not in _NULLABLE}
        kwargs: dict[str, Any] = {}
        record.name = _name(self, scope, data, misspelled=record.misspelled)
        if record.name is not None:
            kwargs["name"] = record.name
            self.agent_files.setdefault(record.name, scope.file)
        if "description" in data and self.expect(
            scope, ("description",), data["description"], str, "a string"
        ):
            kwargs["description"] = data["description"]
        for key in ("before_agent_callbacks", "after_agent_callbacks"):
            _callbacks(self, scope, data, key, kwargs)
        if "state" in data:
            record.state_keys = state_keys(self, scope, ("state",), data["state"])
        if kind is None or base_kind(kind) == "LlmAgent":
            written = data.get("agent_class") or ""
            builtin = isinstance(written, str) and AGENT_CLASS_SPELLINGS.get(written) == "LlmAgent"
            _llm(self, scope, data, kwargs, record, required=builtin)
        if "max_iterations" in data and (kind is None or base_kind(kind) == "LoopAgent"):
            value = data["max_iterations"]
            if value is not None and self.expect(
                scope, ("max_iterations",), value, int, "a positive integer"
            ):
                if value < 1:
                    self.error(
                        scope,
                        ("max_iterations",),
                        "invalid-value",
                        f"`max_iterations` must be at least 1, got {value}.",
                        "Leave it out to loop until a sub-agent escalates (exit_loop).",
                    )
                kwargs["max_iterations"] = value
        if kind is not None and base_kind(kind) == "Workflow":
            read_workflow(self, scope, data, kwargs, record)
        if kind == "RemoteA2aAgent":
            read_remote(self, scope, data, kwargs, misspelled=record.misspelled)
        for key in extra:
            if key in data:
                kwargs.update(extra_field(self, scope, cls, key, data[key]))
        if kind is None:
            unknown_class_references(self, scope, data)
        if "sub_agents" in data:
            record.children = _sub_agents(self, scope, data["sub_agents"])
            kwargs["sub_agents"] = [c.agent for c in record.children]
        names = [c.name for c in record.children if c.name]
        # Sibling names that clash are reported for the whole tree (duplicate-agent-name);
        # building would only repeat that as the engine's error.
        record.ok = (
            self.errors == before
            and all(c.ok for c in record.children)
            and len(names) == len(set(names))
        )
        if record.ok and self.import_code and cls is not None:
            record.agent = _build(self, scope, cls, kwargs)
            record.ok = record.agent is not None
        return record


_MODES = ("chat", "single_turn", "task")


def agent_mode(reader: Any, scope: Any, value: Any) -> str | None:
    """An LlmAgent's ``mode:``, or None (reported) when it is not one yadk runs."""
    if value not in _MODES:
        reader.error(
            scope,
            ("mode",),
            "invalid-value",
            f"`mode` must be `chat`, `single_turn` or `task`, got `{value}`.",
            "`single_turn` answers its input once (a workflow node's default); `chat` talks"
            " with the user (a sub-agent's default); `task` is delegated a task by its parent"
            " and chats with the user until it calls finish_task.",
        )
        return None
    return str(value)


def _name(
    reader: LoaderBase, scope: FileScope, data: dict[str, Any], *, misspelled: set[str]
) -> str | None:
    if "name" not in data:
        if "name" in misspelled:
            return None
        reader.error(
            scope,
            (),
            "missing-field",
            "The agent has no `name`.",
            "Add `name: my_agent` (letters, digits and underscores).",
        )
        return None
    name = data["name"]
    if not reader.expect(scope, ("name",), name, str, "a string"):
        return None
    if not (name.isidentifier() and name.isascii()):
        fixed = "".join(c if c.isalnum() else "_" for c in name)
        reader.error(
            scope,
            ("name",),
            "invalid-name",
            f"Agent name `{name}` is not a valid identifier.",
            f"Use letters, digits and underscores, not starting with a digit (e.g. `{fixed}`).",
        )
        return None
    if name == "user":
        reader.error(
            scope,
            ("name",),
            "invalid-name",
            "Agent name `user` is reserved for the end user's messages.",
            "Choose another name.",
        )
        return None
    return str(name)


def _llm(
    reader: LoaderBase,
    scope: FileScope,
    data: dict[str, Any],
    kwargs: dict[str, Any],
    record: AgentRecord,
    *,
    required: bool,
) -> None:
    if "model" in data and "model_code" in data:
        reader.error(
            scope,
            ("model_code",),
            "conflicting-fields",
            "Set `model` or `model_code`, not both.",
            "Keep the one you mean.",
            key=True,
        )
    elif "model" in data:
        kwargs["model"] = model_name(reader, scope, ("model",), data["model"])
        record.model = data["model"] if isinstance(data["model"], str) else ""
    elif "model_code" in data:
        kwargs["model"] = model_code(reader, scope, ("model_code",), data["model_code"])
        record.model = ""
    record.builtin_llm = required
    if "instruction" in data:
        source = instruction(reader, scope, ("instruction",), data["instruction"])
        if source is not None:
            kwargs["instruction"] = source.text
            record.instructions.append(source)
    elif required and "instruction" not in record.misspelled:
        named = f" `{data['name']}`" if isinstance(data.get("name"), str) else ""
        reader.error(
            scope,
            (),
            "missing-field",
            f"LlmAgent{named} has no `instruction`.",
            "Add `instruction: ...` or `instruction: {file: prompts/main.md}`.",
        )
    if "static_instruction" in data:
        kwargs["static_instruction"] = static_instruction(
            reader, scope, ("static_instruction",), data["static_instruction"]
        )
    for key in ("disallow_transfer_to_parent", "disallow_transfer_to_peers"):
        if key in data and reader.expect(scope, (key,), data[key], bool, "true or false"):
            kwargs[key] = data[key]
    if "output_key" in data and reader.expect(
        scope, ("output_key",), data["output_key"], str, "a state key (a string)"
    ):
        kwargs["output_key"] = record.output_key = data["output_key"]
    if "include_contents" in data:
        value = data["include_contents"]
        if value not in ("default", "none"):
            reader.error(
                scope,
                ("include_contents",),
                "invalid-value",
                f"`include_contents` must be `default` or `none`, got `{value}`.",
                "`none` sends only the current turn; `default` the whole history.",
            )
        else:
            kwargs["include_contents"] = value
    if data.get("mode") is not None:
        mode = agent_mode(reader, scope, data["mode"])
        if mode is not None:
            kwargs["mode"] = record.mode = mode
    for key in ("input_schema", "output_schema"):
        if key in data:
            kwargs[key] = schema(reader, scope, (key,), data[key])
    if data.get("code_executor") is not None:
        executor = read_code_executor(reader, scope, ("code_executor",), data["code_executor"])
        if executor is not None:
            kwargs["code_executor"] = executor
    if "generate_content_config" in data:
        kwargs["generate_content_config"] = content_config(
            reader, scope, ("generate_content_config",), data["generate_content_config"]
        )
    for key in (
        "before_model_callbacks",
        "after_model_callbacks",
        "before_tool_callbacks",
        "after_tool_callbacks",
    ):
        _callbacks(reader, scope, data, key, kwargs)
    built: list[Any] = []
    if "tools" in data:
        built.extend(tools(reader, scope, ("tools",), data["tools"]) or [])
    if "skills" in data:
        built.append(skills(reader, scope, ("skills",), data["skills"]))
    if "examples" in data:
        built.append(example_tool(reader, scope, ("examples",), data["examples"], shorthand=True))
    kwargs["tools"] = [t for t in built if t is not None]


def _callbacks(
    reader: LoaderBase, scope: FileScope, data: dict[str, Any], key: str, kwargs: dict[str, Any]
) -> None:
    if key in data and data[key] is not None:
        found = callbacks(reader, scope, (key,), data[key])
        if found:
            kwargs[_CALLBACK_FIELDS[key]] = found


def _sub_agents(reader: LoaderBase, scope: FileScope, value: Any) -> list[AgentRecord]:
    if not reader.expect(
        scope,
        ("sub_agents",),
        value,
        list,
        "a list of agent references",
        "e.g. `sub_agents: [{config_path: helper.yaml}]`.",
    ):
        return []
    children = []
    for index, entry in enumerate(value):
        child = agent_reference(reader, scope, ("sub_agents", index), entry)
        if child is None:
            child = AgentRecord(name=None, scope=scope, at=("sub_agents", index), ok=False)
        children.append(child)
    return children


def _build(reader: LoaderBase, scope: FileScope, cls: Any, kwargs: dict[str, Any]) -> Any:
    from yadk._tracing import set_config_location

    try:
        agent = cls(**kwargs)
        # Traced spans name where the agent was declared: its file and the line of its name.
        set_config_location(agent, f"{scope.file}:{scope.doc.where(('name',))[0]}")
        return agent
    except AgentDefinitionError as exc:
        reader.error(scope, (), "invalid-agent", f"{exc}")
    except Exception as exc:
        reader.error(
            scope,
            (),
            "invalid-agent",
            f"Building {cls.__name__} failed: {type(exc).__name__}: {exc}.",
            "The error comes from the class's own code (its validators or __init__).",
        )
    return None
