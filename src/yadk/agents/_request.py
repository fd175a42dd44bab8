"""Request assembly: instructions, history and tools for one model call.

The order matches google-adk 2.13 so configs produce the same request: the root agent's
``global_instruction``, the ``static_instruction``, the ``instruction`` (in the system instruction,
or — when a static instruction exists — as a marked block in contents so the static prefix stays
byte-stable), the identity line (not for a single-turn agent), the transfer block, then whatever tools and toolsets add.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from yadk._contexts import InvocationContext, ReadonlyContext, ToolContext
from yadk.agents._contents_cache import session_contents
from yadk.agents._context_cache import add_cache_info
from yadk.agents._isolation import scoped_task_content
from yadk.agents._llm_agent import LlmAgent
from yadk.agents._placeholder_sources import located_template_error
from yadk.agents._search_agent import search_with_transfer_error
from yadk.agents._set_model_response import offer_set_model_response, uses_set_model_response
from yadk.agents._single_turn import single_turn_contents
from yadk.agents._transfer import transfer_instructions, transfer_targets, transfer_tool
from yadk.code_executors import code_parts_as_text
from yadk.errors import TemplateKeyError
from yadk.models import LlmRequest, insert_before_current_turn
from yadk.templating import inject_session_state
from yadk.tools import BaseToolset
from yadk.types import Content, Part

__all__ = ["build_request", "label_dynamic_instruction"]

INSTRUCTION_BEGIN = "<<<BEGIN_SYSTEM_INSTRUCTION>>>"
INSTRUCTION_END = "<<<END_SYSTEM_INSTRUCTION>>>"
ELIDED_MARKER = "<<<ELIDED_MARKER>>>"
_INSTRUCTION_PREAMBLE = (
    f"The text between {INSTRUCTION_BEGIN} and {INSTRUCTION_END} below is your own system"
    " instruction for this turn and carries the current session state. It is addressed to you."
    " Nothing between those two markers was said by the user, so do not answer it or continue"
    " it as though it were their turn. Anything the user actually said appears outside the"
    " markers, and a real user turn may follow immediately after the end marker."
)


def label_dynamic_instruction(instruction: str) -> str:
    """The dynamic instruction as a marked block; markers inside it are neutralised so state
    values cannot forge the end of the block."""
    fenced = instruction.replace(INSTRUCTION_BEGIN, ELIDED_MARKER).replace(
        INSTRUCTION_END, ELIDED_MARKER
    )
    return f"{_INSTRUCTION_PREAMBLE}\n{INSTRUCTION_BEGIN}\n{fenced}\n{INSTRUCTION_END}"


def _static_text(value: str | Content) -> list[str]:
    if isinstance(value, str):
        return [value]
    return [p.text for p in value.parts if p.text]


async def _render(
    ctx: ReadonlyContext, resolve: Callable[[ReadonlyContext], Awaitable[tuple[str, bool]]]
) -> str:
    """The instruction ``resolve`` gives, with state injected unless it came from a provider."""
    text, bypass = await resolve(ctx)
    if bypass:
        return str(text)
    return await inject_session_state(str(text), ctx)


async def build_request(agent: LlmAgent, ctx: InvocationContext) -> LlmRequest:
    readonly = ReadonlyContext(ctx)
    model = agent.canonical_model
    answer_by_tool = uses_set_model_response(agent)
    request = LlmRequest(
        model=model.model,
        agent_name=agent.name,
        config=dict(agent.generate_content_config or {}),
        output_schema=None if answer_by_tool or agent.mode == "task" else agent.output_schema,
    )
    # A task agent's output is finish_task's arguments, not a constrained answer.
    if agent.output_schema is not None and not answer_by_tool and agent.mode != "task":
        request.config.setdefault("response_mime_type", "application/json")
        request.config.setdefault("response_schema", agent.output_schema.model_json_schema())

    root = agent.root_agent
    if isinstance(root, LlmAgent) and root.global_instruction:
        request.append_instructions([await _render(readonly, root.canonical_global_instruction)])
    if agent.static_instruction:
        request.append_instructions(_static_text(agent.static_instruction))
    dynamic: str | None = None
    if agent.instruction:
        try:
            dynamic = await _render(readonly, agent.canonical_instruction)
        except TemplateKeyError as exc:
            raise located_template_error(agent, exc) from None
        if not agent.static_instruction:
            request.append_instructions([dynamic])

    single_turn = ctx.single_turn_input is not None or agent.mode == "single_turn"
    if not single_turn:  # google-adk tells a single-turn agent no identity
        identity = f'You are an agent. Your internal name is "{agent.name}".'
        if agent.description:
            identity += f' The description about you is "{agent.description}".'
        request.append_instructions([identity])

    if ctx.single_turn_input is not None:
        request.contents = single_turn_contents(
            ctx.session,
            agent_name=agent.name,
            branch=ctx.branch,
            isolation_scope=ctx.isolation_scope,
            node_path=ctx.node_path,
            invocation_id=ctx.invocation_id,
            node_input=ctx.single_turn_input,
            resumed=ctx.single_turn_resumed,
        )
    else:
        request.contents = session_contents(
            ctx.session,
            agent_name=agent.name,
            branch=ctx.branch,
            include_contents=agent.include_contents,
            isolation_scope=ctx.isolation_scope,
        )
    if ctx.isolation_scope is not None:
        task = scoped_task_content(
            ctx.session.events,
            ctx.isolation_scope,
            user_content=ctx.user_content,
            single_turn=single_turn,
        )
        if task is not None:
            request.contents.insert(0, task)
    if dynamic is not None and agent.static_instruction:
        insert_before_current_turn(
            request.contents,
            Content(role="user", parts=[Part(text=label_dynamic_instruction(dynamic))]),
        )

    if answer_by_tool:
        offer_set_model_response(agent, request)

    tool_context = ToolContext(ctx)
    targets = transfer_targets(agent)
    if targets and agent.tools:
        refusal = search_with_transfer_error(agent, request.model)
        if refusal is not None:
            if any(t in agent.sub_agents for t in targets):
                raise ValueError(refusal)
            targets = []  # google-adk: no transfer offered to parent or peers then
    if targets:
        # google-adk offers a single-turn or task agent the tool, unexplained.
        if not single_turn and agent.mode != "task":
            request.append_instructions([transfer_instructions(agent, targets)])
        await transfer_tool(agent, targets).process_llm_request(
            tool_context=tool_context, llm_request=request
        )
    for unit in agent.tool_units():
        if isinstance(unit, BaseToolset):
            await unit.process_llm_request(tool_context=tool_context, llm_request=request)
            for tool in await unit.get_tools(readonly):
                await tool.process_llm_request(tool_context=tool_context, llm_request=request)
        else:
            await unit.process_llm_request(tool_context=tool_context, llm_request=request)
    if agent.code_executor is not None:
        agent.code_executor.process_llm_request(request)
        request.contents = code_parts_as_text(request.contents, agent.code_executor)
    add_cache_info(request, ctx, agent.name)
    return request
