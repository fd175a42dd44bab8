"""``yadk inspect``: the exact request an agent's first model call would receive, no model called.

What only some agents need (a workflow's graph, MCP listings, a stored session, the text form of
the request) is imported when needed, off the start of the common case.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from yadk._contexts import Context, InvocationContext, RunConfig, new_invocation_id
from yadk.agents import BaseAgent, LlmAgent, build_request, run_callbacks
from yadk.artifacts import BaseArtifactService, InMemoryArtifactService
from yadk.cli._common import (
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    agent_path,
    llm_agents,
    load_agent,
    parse_artifacts,
    parse_state,
)
from yadk.errors import AgentDefinitionError, TemplateKeyError, YadkError
from yadk.events import Event
from yadk.models import BaseLlm, LlmRequest, LlmResponse, resolve_model
from yadk.sessions import BaseSessionService, InMemorySessionService, Session
from yadk.types import Part, UserContent

__all__ = ["Inspection", "execute", "inspect_agent", "inspect_session"]

_APP = "yadk_inspect"
_USER = "user"


@dataclass
class Inspection:
    """The request, plus notes about why it might differ from a real run."""

    request: LlmRequest
    notes: list[str] = field(default_factory=list)


def execute(args: argparse.Namespace) -> int:
    path = agent_path(args.agent)
    state = parse_state(args.state)
    artifacts = parse_artifacts(args.artifact)
    root = load_agent(path)
    if args.session_id is not None:
        from yadk.cli._inspect_stored import execute_stored

        return execute_stored(root, args)
    graph = _graph(root, args)
    if graph is not None:
        print(graph, end="")
        return EXIT_OK
    if args.format == "mermaid":
        raise CommandError(
            f"--format mermaid draws a workflow's graph; agent {root.name!r} is not a Workflow",
            exit_code=EXIT_USAGE,
        )
    inspection = asyncio.run(
        inspect_agent(
            root,
            state=state,
            message=args.message,
            artifacts=artifacts,
            agent_name=args.agent_name,
            model=args.model,
            callbacks=not args.no_callbacks,
            mcp=not args.no_mcp,
        )
    )
    if args.json:
        print(json.dumps(inspection.request.to_dict(), indent=2, ensure_ascii=False))
    else:
        from yadk.cli._request_text import request_text

        print(request_text(inspection.request), end="")
    sys.stdout.flush()
    from yadk._secrets import mask_secrets

    for note in inspection.notes:
        print(mask_secrets(f"yadk inspect: note: {note}"), file=sys.stderr)
    return EXIT_OK


def _graph(root: BaseAgent, args: argparse.Namespace) -> str | None:
    """A workflow's graph, as text or Mermaid, when the root is a workflow and no agent of it
    was asked for (``--agent``/``--message``/``--state`` build a model request instead)."""
    if "yadk.workflow" not in sys.modules:  # no workflow was loaded: skip importing the package
        return None
    from yadk.workflow import Workflow

    if not isinstance(root, Workflow) or args.agent_name or args.message or args.state:
        return None
    from yadk.workflow import graph_mermaid, graph_text

    return graph_mermaid(root) if args.format == "mermaid" else graph_text(root)


@contextlib.asynccontextmanager
async def mcp_tools_listed(
    target: LlmAgent, *, enabled: bool, notes: list[str]
) -> AsyncIterator[None]:
    """The target's MCP toolsets started (a failure to start is a note), or, when not
    ``enabled``, left out of the request; every toolset closed afterwards."""
    if "yadk.tools.mcp" not in sys.modules:  # no MCP toolset can exist: skip importing it
        yield
        return
    from yadk.tools import McpToolset, close_toolsets

    toolsets = [t for t in target.tools if isinstance(t, McpToolset)]
    if not toolsets:
        yield
        return
    saved = list(target.tools)
    try:
        if not enabled:
            target.tools = [t for t in saved if not isinstance(t, McpToolset)]
            for toolset in toolsets:
                notes.append(
                    f"the tools of MCP server {toolset.connection.describe()} are not listed (--no-mcp)"
                )
        else:
            for toolset in toolsets:
                try:
                    await toolset.list_server_tools()
                except YadkError as exc:
                    notes.append(f"{exc.message} Its tools are missing from this request.")
        yield
    finally:
        target.tools = saved
        await close_toolsets(target)


class _NamedModel(BaseLlm):
    """Stands in for a model that inspect never calls: requests only need its name, and a name
    needs no API key, SDK import or script file."""

    def __init__(self, name: str) -> None:
        self.model = name
        self.output_schema_with_tools = _takes_schema_with_tools(name)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        raise AgentDefinitionError("yadk inspect never calls a model")
        yield  # pragma: no cover - makes this an async generator


def _takes_schema_with_tools(name: str) -> bool:
    """Whether the named model takes a response schema beside tools (so the request shows the
    schema, not ``set_model_response``); a name that does not resolve is taken as not."""
    if not name or name.startswith("scripted:"):
        return False  # a script file need not exist to inspect
    try:
        return resolve_model(name).output_schema_with_tools
    except Exception:
        return False


def _target(root: BaseAgent, name: str | None) -> LlmAgent:
    candidates = llm_agents(root)
    if name is None:
        if not candidates:
            raise CommandError(
                f"agent {root.name!r} has no LlmAgent in its tree: nothing calls a model"
            )
        return candidates[0]
    found = root.find_agent(name) or next((a for a in candidates if a.name == name), None)
    if isinstance(found, LlmAgent):
        return found
    names = ", ".join(a.name for a in candidates) or "(none)"
    what = "is not an LlmAgent" if found is not None else "is not in the agent tree"
    raise CommandError(f"--agent {name}: {what}; LlmAgents: {names}", exit_code=EXIT_USAGE)


def _name_models(root: BaseAgent, target: LlmAgent, model: str | None, notes: list[str]) -> None:
    for agent in llm_agents(root):
        if model is not None:
            agent.model = _NamedModel(model)
        elif isinstance(agent.model, str) and agent.model:
            agent.model = _NamedModel(agent.model)
    try:
        _ = target.canonical_model
    except AgentDefinitionError:
        target.model = _NamedModel("")
        notes.append(
            f"agent {target.name!r} has no model (set `model:` on it or an ancestor, or pass"
            " --model); the request is shown without one"
        )


async def inspect_agent(
    root: BaseAgent,
    *,
    state: dict[str, Any] | None = None,
    message: str | None = None,
    artifacts: dict[str, Part] | None = None,
    agent_name: str | None = None,
    model: str | None = None,
    callbacks: bool = True,
    mcp: bool = True,
) -> Inspection:
    """Build the request the first model call of ``agent_name`` (default: the first LlmAgent to
    run) would receive. Model names are never resolved and no model is called; callbacks that
    run before the model (agent and model callbacks) do run unless ``callbacks=False``. MCP
    servers are started to list their tools (and stopped after) unless ``mcp=False``."""
    notes: list[str] = []
    target = _target(root, agent_name)
    _name_models(root, target, model, notes)
    async with mcp_tools_listed(target, enabled=mcp, notes=notes):
        return await _inspect(
            root,
            target,
            state=state,
            message=message,
            artifacts=artifacts,
            callbacks=callbacks,
            notes=notes,
        )


async def _inspect(
    root: BaseAgent,
    target: LlmAgent,
    *,
    state: dict[str, Any] | None,
    message: str | None,
    artifacts: dict[str, Part] | None,
    callbacks: bool,
    notes: list[str],
) -> Inspection:
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name=_APP, user_id=_USER, state=state)
    for key, value in (state or {}).items():
        if key.startswith("temp:"):  # dropped by create_session, but live inside an invocation
            session.state[key] = value
    artifact_service = InMemoryArtifactService()
    for name, part in (artifacts or {}).items():
        await artifact_service.save_artifact(
            app_name=_APP, user_id=_USER, session_id=session.id, filename=name, artifact=part
        )
    content = UserContent(message) if message is not None else None
    ctx = InvocationContext(
        invocation_id=new_invocation_id(),
        agent=root,
        session=session,
        session_service=sessions,
        artifact_service=artifact_service,
        user_content=content,
        run_config=RunConfig(),
        root_agent=root,
    )
    if content is not None:
        user_event = Event(invocation_id=ctx.invocation_id, author="user", content=content)
        await sessions.append_event(session, user_event)
    try:
        if callbacks:
            await _before_agent_callbacks(root, target, ctx, notes)
        target_ctx = ctx.for_agent(target)
        request = await build_request(target, target_ctx)
        if callbacks and target.before_model_callback:
            answer = await run_callbacks(
                "before_model_callback",
                target.before_model_callback,
                callback_context=Context(target_ctx),
                llm_request=request,
            )
            if answer is not None:
                notes.append(
                    f"a before_model_callback of {target.name!r} answered instead of the"
                    " model: a real run would not send this request"
                )
    except TemplateKeyError as exc:
        raise CommandError(_missing_hint(exc.message)) from None
    except YadkError as exc:
        raise CommandError(exc.message) from None
    return Inspection(request=request, notes=notes)


async def inspect_session(
    root: BaseAgent,
    session: Session,
    *,
    session_service: BaseSessionService,
    artifact_service: BaseArtifactService,
    next_agent: BaseAgent | None = None,
) -> Inspection:
    """The request the next model call of a live ``session`` would receive (``/request`` at the
    prompt): its history and state as they are, for ``next_agent`` (the agent that answers the
    next message; default the first LlmAgent to run). Nothing is appended, no callback runs and
    no model is called."""
    notes = ["callbacks were not run; the next user message is not part of the request"]
    target = _target(next_agent or root, None)
    ctx = InvocationContext(
        invocation_id=new_invocation_id(),
        agent=root,
        session=session,
        session_service=session_service,
        artifact_service=artifact_service,
        user_content=None,
        run_config=RunConfig(),
        root_agent=root,
    )
    try:
        request = await build_request(target, ctx.for_agent(target))
    except YadkError as exc:
        raise CommandError(exc.message) from None
    return Inspection(request=request, notes=notes)


async def _before_agent_callbacks(
    root: BaseAgent, target: LlmAgent, ctx: InvocationContext, notes: list[str]
) -> None:
    chain: list[BaseAgent] = []
    agent: BaseAgent | None = target
    while agent is not None:
        chain.append(agent)
        agent = agent.parent_agent
    for agent in reversed(chain):
        agent_ctx = ctx.for_agent(agent)
        event = await agent._before_agent(agent_ctx)
        if event is not None:
            await ctx.session_service.append_event(ctx.session, event)
        if agent_ctx.end_invocation:
            notes.append(
                f"the before_agent_callback of {agent.name!r} answered for the agent: a real"
                " run would not call the model"
            )


_STATE_KEY = re.compile(r"Context variable not found: `([^`]*)`")
_ARTIFACT = re.compile(r"Artifact '([^']*)' not found")


def _missing_hint(message: str) -> str:
    match = _STATE_KEY.search(message)
    if match:
        key = match.group(1)
        # A located error carries the run-time hint; here the fix is an option, unless the
        # hint is a likely typo.
        message, _, hint = message.partition("\n  hint: ")
        typo = f" {hint}" if hint.startswith("Did you mean") else ""
        return (
            f'{message}{typo} Give it a value with --state \'{{"{key}": "..."}}\''
            f" (or write `{{{key}?}}` in the instruction to make it optional)."
        )
    match = _ARTIFACT.search(message)
    if match:
        return f"{message} Provide it with --artifact {match.group(1)}=FILE."
    return message
