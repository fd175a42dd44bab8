"""LlmAgent: an agent whose turns come from a model, with instructions, tools and callbacks.

Two helpers are imported when first called, not at the top: ``_search_agent`` and ``_transfer``
import this module, and the model-call flow (``_flow``) is loaded only by a run, not by
``yadk inspect``.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import AsyncGenerator
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, PrivateAttr, field_validator

from yadk._contexts import InvocationContext, ReadonlyContext
from yadk.agents._base_agent import BaseAgent
from yadk.agents._callbacks import as_callback_list
from yadk.agents._sub_agent_tools import SingleTurnAgentTool
from yadk.agents._task import FinishTaskTool, TaskAgentTool, watch_task
from yadk.code_executors import BuiltInCodeExecutor
from yadk.errors import AgentDefinitionError
from yadk.events import Event
from yadk.models import BaseLlm, resolve_model
from yadk.tools import BaseTool, BaseToolset, FunctionTool
from yadk.types import Content

__all__ = ["LlmAgent"]

ToolUnion = BaseTool | BaseToolset | Any


class LlmAgent(BaseAgent):
    """An agent driven by a model.

    ``instruction`` and ``global_instruction`` may be strings (rendered with the session state on
    every model call) or InstructionProviders (called, and their output used verbatim).
    ``static_instruction`` is sent as-is, first, so it can be context-cached.
    """

    model: str | BaseLlm = ""
    instruction: Any = ""
    global_instruction: Any = ""
    static_instruction: str | Content | None = None
    tools: list[Any] = Field(default_factory=list)
    generate_content_config: dict[str, Any] | None = None
    disallow_transfer_to_parent: bool = False
    disallow_transfer_to_peers: bool = False
    include_contents: Literal["default", "none"] = "default"
    # How the agent is delegated to (google-adk's ``mode``): ``chat`` talks with the user and is a
    # transfer target; ``single_turn`` answers its input once, seeing only that input and its own
    # run (as a sub-agent, its parent's model calls it as a tool); ``task``, a sub-agent its
    # parent's model delegates a task to by a call, chats with the user until it calls
    # ``finish_task`` (agents._task). None: chat as a sub-agent, single_turn as a workflow node
    # (``node_mode``).
    mode: Literal["chat", "task", "single_turn"] | None = None
    input_schema: type[BaseModel] | None = None
    output_schema: type[BaseModel] | None = None
    output_key: str | None = None
    before_model_callback: Any = None
    after_model_callback: Any = None
    before_tool_callback: Any = None
    after_tool_callback: Any = None
    # google-adk's ``code_executor``: only BuiltInCodeExecutor (the model runs the code).
    code_executor: BuiltInCodeExecutor | None = None

    _runs_as_node: ClassVar[bool] = True

    _resolved_model: BaseLlm | None = PrivateAttr(default=None)
    # State key -> where the instruction's placeholder for it is written (see
    # agents._placeholder_sources); empty for agents built in Python.
    _placeholder_sources: dict[str, Any] = PrivateAttr(default_factory=dict)
    _function_tools: dict[int, FunctionTool] = PrivateAttr(default_factory=dict)
    # GoogleSearchTool(bypass_multi_tools_limit=True) -> its search sub-agent tool.
    _search_agent_tools: dict[int, Any] = PrivateAttr(default_factory=dict)
    # Sub-agent -> the tool its parent's model calls it by (agents._sub_agent_tools).
    _sub_agent_tools: dict[int, SingleTurnAgentTool | TaskAgentTool] = PrivateAttr(
        default_factory=dict
    )
    _finish_tool: FinishTaskTool | None = PrivateAttr(default=None)
    # The transfer tool for the current targets; its schema is built once, not per model call.
    _transfer_tool: Any = PrivateAttr(default=None)

    @field_validator("instruction", "global_instruction")
    @classmethod
    def _instruction_kind(cls, value: Any) -> Any:
        if value is None:
            return ""
        if not isinstance(value, str) and not callable(value):
            raise ValueError("must be a string or an InstructionProvider (a callable)")
        return value

    @field_validator(
        "before_model_callback",
        "after_model_callback",
        "before_tool_callback",
        "after_tool_callback",
    )
    @classmethod
    def _model_and_tool_callables(cls, value: Any) -> Any:
        for fn in as_callback_list(value):
            if not callable(fn):
                raise ValueError(f"callback {fn!r} is not callable")
        return value

    @field_validator("tools")
    @classmethod
    def _tool_kinds(cls, value: list[Any]) -> list[Any]:
        tools = []
        for tool in value:
            if not isinstance(tool, (BaseTool, BaseToolset)) and not callable(tool):
                # A workflow or a node (google-adk's node-as-tool) offers its own tool.
                as_tool = getattr(tool, "as_tool", None)
                if not callable(as_tool):
                    raise ValueError(
                        f"{tool!r} is not a tool: expected a function, a BaseTool, a"
                        " BaseToolset, a Workflow or a workflow node"
                    )
                tool = as_tool()
            tools.append(tool)
        return tools

    @property
    def node_mode(self) -> str:
        """The mode the agent runs in as a workflow node: its ``mode``, else chat when it is
        another agent's sub-agent, else single_turn (google-adk's rule)."""
        if self.mode is not None:
            return self.mode
        return "chat" if self.parent_agent is not None else "single_turn"

    @field_validator("code_executor", mode="before")
    @classmethod
    def _built_in_executor_only(cls, value: Any) -> Any:
        if value is None or isinstance(value, BuiltInCodeExecutor):
            return value
        kind = type(value).__name__
        if kind == "BuiltInCodeExecutor":  # google-adk's own, from agent code written for it
            return BuiltInCodeExecutor()
        raise ValueError(
            f"{kind} is not supported: yadk runs code only through the model's built-in code"
            " execution (code_executor=BuiltInCodeExecutor()); it never runs model-written code"
            " on this machine"
        )

    @field_validator("generate_content_config", mode="before")
    @classmethod
    def _config_dict(cls, value: Any) -> Any:
        if value is None:
            return None
        if hasattr(value, "model_dump"):
            value = value.model_dump(exclude_none=True)
        if not isinstance(value, dict):
            raise ValueError("must be a mapping of model settings (temperature, ...)")
        if value.get("system_instruction"):
            raise ValueError("System instruction must be set via LlmAgent.instruction.")
        if value.get("tools"):
            raise ValueError("All tools must be set via LlmAgent.tools.")
        return dict(value)

    # --- canonical values -------------------------------------------------------------------

    @property
    def canonical_model(self) -> BaseLlm:
        """The model to call: this agent's, else the nearest ancestor LlmAgent's."""
        if isinstance(self.model, BaseLlm):
            return self.model
        if self.model:
            if self._resolved_model is None or self._resolved_model_name != self.model:
                self._resolved_model = resolve_model(self.model)
                self._resolved_model_name = self.model
            return self._resolved_model
        ancestor = self.parent_agent
        while ancestor is not None:
            if isinstance(ancestor, LlmAgent) and ancestor.model:
                return ancestor.canonical_model
            ancestor = ancestor.parent_agent
        raise AgentDefinitionError(
            f"No model found for agent {self.name!r}: set `model` on it or on an ancestor"
            " LlmAgent (or pass --model to the CLI)."
        )

    _resolved_model_name: str = PrivateAttr(default="")

    async def canonical_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
        """(text, bypass_state_injection): providers' output is used verbatim."""
        return await _resolve_instruction(self.instruction, ctx)

    async def canonical_global_instruction(self, ctx: ReadonlyContext) -> tuple[str, bool]:
        return await _resolve_instruction(self.global_instruction, ctx)

    def tool_units(self) -> list[BaseTool | BaseToolset]:
        """``tools`` with plain functions wrapped as FunctionTools (wrappers are reused), and a
        ``GoogleSearchTool(bypass_multi_tools_limit=True)`` among other tools (or with transfer
        targets) replaced by google-adk's search sub-agent tool."""
        from yadk.agents._search_agent import wrapped_search
        from yadk.agents._transfer import transfer_targets

        delegated = self._delegated_tools()
        # google-adk appends the delegated sub-agents to ``tools``: they count as other tools.
        multiple = len(self.tools) + len(delegated) > 1 or (
            any(getattr(t, "bypass_multi_tools_limit", False) for t in self.tools)
            and bool(transfer_targets(self))
        )
        units: list[BaseTool | BaseToolset] = []
        for tool in self.tools:
            if isinstance(tool, (BaseTool, BaseToolset)):
                units.append(wrapped_search(self, tool, multiple=multiple))
                continue
            wrapped = self._function_tools.get(id(tool))
            if wrapped is None or wrapped.func is not tool:
                wrapped = self._function_tools[id(tool)] = FunctionTool(tool)
            units.append(wrapped)
        units.extend(delegated)
        return units

    def _delegated_tools(self) -> list[BaseTool]:
        """The tools google-adk appends to ``tools``: ``finish_task`` for a task agent, then one
        per ``single_turn`` or ``task`` LlmAgent among ``sub_agents`` (each built once)."""
        tools: list[BaseTool] = []
        if self.mode == "task":
            finish = self._finish_tool
            if finish is None or finish.output_schema is not self.output_schema:
                finish = self._finish_tool = FinishTaskTool(self.output_schema)
            tools.append(finish)
        for sub in self.sub_agents:
            if not isinstance(sub, LlmAgent) or sub.mode not in ("single_turn", "task"):
                continue
            kind = SingleTurnAgentTool if sub.mode == "single_turn" else TaskAgentTool
            tool = self._sub_agent_tools.get(id(sub))
            if tool is None or tool.agent is not sub or type(tool) is not kind:
                tool = self._sub_agent_tools[id(sub)] = kind(sub)
            tools.append(tool)
        return tools

    async def canonical_tools(self, ctx: ReadonlyContext | None = None) -> list[BaseTool]:
        tools: list[BaseTool] = []
        for unit in self.tool_units():
            if isinstance(unit, BaseToolset):
                tools.extend(await unit.get_tools(ctx))
            else:
                tools.append(unit)
        return tools

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        from yadk.agents._flow import run_llm_flow

        if self.mode == "task" and ctx.root_agent is self and ctx.isolation_scope is None:
            # The runner's own task agent (google-adk's root task agent): its path is its
            # scope, and each turn opens on the user's latest message.
            scope = ctx.node_path or self.name
            scoped = dataclasses.replace(ctx, isolation_scope=scope)
            async for event in watch_task(self, run_llm_flow(self, scoped), scope, ctx.node_path):
                yield event
            return
        if self.mode == "task" and not ctx.node_path.endswith(f"{self.name}@{ctx.isolation_scope}"):
            raise AgentDefinitionError(
                f"Agent {self.name!r} has mode='task': yadk runs a task agent as the runner's"
                " root agent or when its parent LlmAgent delegates a task to it (its parent's"
                " model calls it as a tool). As a workflow node or another kind of agent's"
                " sub-agent it is not supported yet: give it mode='chat' or 'single_turn' there."
            )
        async for event in run_llm_flow(self, ctx):
            yield event


async def _resolve_instruction(value: Any, ctx: ReadonlyContext) -> tuple[str, bool]:
    if isinstance(value, str):
        return value, False
    result = value(ctx)
    if inspect.isawaitable(result):
        result = await result
    if not isinstance(result, str):
        raise AgentDefinitionError(
            f"Instruction provider {getattr(value, '__name__', value)!r} returned"
            f" {type(result).__name__}, expected str."
        )
    return result, True
