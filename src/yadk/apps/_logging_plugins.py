"""LoggingPlugin (every callback to the console) and DebugLoggingPlugin (every invocation in
full to a YAML file).

PyYAML is imported only when DebugLoggingPlugin writes its file.
"""

from __future__ import annotations

import asyncio
import datetime
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yadk.apps._plugin import BasePlugin

if TYPE_CHECKING:
    from yadk.agents import BaseAgent, CallbackContext, InvocationContext, ToolContext
    from yadk.events import Event
    from yadk.models import LlmRequest, LlmResponse
    from yadk.tools import BaseTool
    from yadk.types import Content

__all__ = ["DebugLoggingPlugin", "LoggingPlugin"]


def content_summary(content: Content | None, limit: int = 200) -> str:
    """``text: 'hi' | function_call: lookup``: what a content holds, texts cut at ``limit``."""
    if content is None or not content.parts:
        return "None"
    shown = []
    for part in content.parts:
        if part.text:
            text = part.text.strip()
            shown.append(f"text: '{text[:limit]}{'...' if len(text) > limit else ''}'")
        elif part.function_call is not None:
            shown.append(f"function_call: {part.function_call.name}")
        elif part.function_response is not None:
            shown.append(f"function_response: {part.function_response.name}")
        else:
            shown.append("other_part")
    return " | ".join(shown)


def _one_line(value: Any) -> str:
    return str(value).replace("\n", "\\n")


def _cut(value: Any, limit: int = 300) -> str:
    text = str(value) if value else "{}"
    return text if len(text) <= limit else text[:limit] + "..."


class LoggingPlugin(BasePlugin):
    """Prints what happens at each callback (messages, agents, model requests and responses,
    tool calls and results, events, errors) to standard output, for following a run in a
    terminal. It changes nothing."""

    def __init__(self, name: str = "logging_plugin") -> None:
        super().__init__(name)

    def _log(self, title: str, **fields: Any) -> None:
        lines = [f"[{self.name}] {title}"]
        lines += [
            f"[{self.name}]    {key.replace('_', ' ').title()}: {_one_line(value)}"
            for key, value in fields.items()
            if value is not None
        ]
        print("\n".join(lines), file=sys.stdout, flush=True)

    def _log_tool(
        self, title: str, tool: BaseTool, tool_context: ToolContext, **fields: Any
    ) -> None:
        self._log(
            title,
            tool_name=tool.name,
            agent=tool_context.agent_name,
            function_call_id=tool_context.function_call_id,
            **fields,
        )

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: Content
    ) -> Content | None:
        self._log(
            "USER MESSAGE RECEIVED",
            invocation_id=invocation_context.invocation_id,
            session_id=invocation_context.session.id,
            user_id=invocation_context.user_id,
            app_name=invocation_context.app_name,
            root_agent=getattr(invocation_context.root_agent, "name", None),
            user_content=content_summary(user_message),
            branch=invocation_context.branch,
        )
        return None

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> None:
        self._log(
            "INVOCATION STARTING",
            invocation_id=invocation_context.invocation_id,
            starting_agent=invocation_context.agent.name,
        )

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        calls = [c.name for c in event.get_function_calls()]
        responses = [r.name for r in event.get_function_responses()]
        self._log(
            "EVENT YIELDED",
            event_id=event.id,
            author=event.author,
            content=content_summary(event.content),
            final_response=event.is_final_response(),
            function_calls=calls or None,
            function_responses=responses or None,
            long_running_tools=sorted(event.long_running_tool_ids or []) or None,
            node_path=event.node_info.path if event.node_info is not None else None,
            error=f"{event.error_code}: {event.error_message}" if event.error_code else None,
        )
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        self._log(
            "INVOCATION COMPLETED",
            invocation_id=invocation_context.invocation_id,
            final_agent=invocation_context.agent.name,
        )

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> Content | None:
        self._log(
            "AGENT STARTING",
            agent_name=callback_context.agent_name,
            invocation_id=callback_context.invocation_id,
            branch=callback_context.branch,
        )
        return None

    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> Content | None:
        self._log(
            "AGENT COMPLETED",
            agent_name=callback_context.agent_name,
            invocation_id=callback_context.invocation_id,
        )
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        instruction = llm_request.system_instruction
        self._log(
            "LLM REQUEST",
            model=llm_request.model or "default",
            agent=callback_context.agent_name,
            system_instruction=(
                f"'{instruction[:200]}{'...' if len(instruction) > 200 else ''}'"
                if instruction
                else None
            ),
            available_tools=sorted(llm_request.tools_dict) or None,
        )
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        if llm_response.error_code:
            self._log(
                "LLM RESPONSE",
                agent=callback_context.agent_name,
                error=f"{llm_response.error_code}: {llm_response.error_message}",
            )
            return None
        self._log(
            "LLM RESPONSE",
            agent=callback_context.agent_name,
            content=content_summary(llm_response.content),
            finish_reason=llm_response.finish_reason,
            token_usage=llm_response.usage_metadata,
        )
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        self._log("LLM ERROR", agent=callback_context.agent_name, error=error)
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        self._log_tool("TOOL STARTING", tool, tool_context, arguments=_cut(tool_args))
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        self._log_tool("TOOL COMPLETED", tool, tool_context, result=_cut(result))
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        self._log_tool(
            "TOOL ERROR", tool, tool_context, arguments=_cut(tool_args), error=_error(error)
        )
        return None


_SECRET_KEY = re.compile(r"(?i)(api[_-]?key|token|secret|password|passwd|credential|auth)")
REDACTED = "[REDACTED]"


def redacted(value: Any, key: str = "") -> Any:
    """``value`` as plain YAML data, with ``temp:`` state and keys naming secrets blanked."""
    bare = key.split(":", 1)[1] if key.startswith(("app:", "user:")) else key
    if key.startswith("temp:") or (bare and _SECRET_KEY.search(bare)):
        return REDACTED
    if isinstance(value, dict):
        return {str(k): redacted(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [redacted(v) for v in value]
    if hasattr(value, "model_dump"):
        return redacted(value.model_dump(mode="json", exclude_none=True))
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


class DebugLoggingPlugin(BasePlugin):
    """Records each invocation in full (user message, agents, model requests and responses,
    tool calls and results, events, errors, and the session state at the end) and appends it
    to ``output_path`` as one YAML document (``---``). The file holds whole prompts, so it is
    created readable by its owner only; ``temp:`` state and keys naming secrets are redacted.
    The file is written off the event loop when the invocation ends."""

    def __init__(
        self,
        *,
        name: str = "debug_logging_plugin",
        output_path: str | os.PathLike[str] = "adk_debug.yaml",
        include_session_state: bool = True,
        include_system_instruction: bool = True,
    ) -> None:
        super().__init__(name)
        self.output_path = Path(output_path)
        self.include_session_state = include_session_state
        self.include_system_instruction = include_system_instruction
        self._runs: dict[str, dict[str, Any]] = {}

    def _add(self, invocation_id: str, entry: str, **data: Any) -> None:
        run = self._runs.get(invocation_id)
        if run is None:
            return
        record = {"timestamp": datetime.datetime.now().isoformat(), "entry_type": entry}
        record.update({k: redacted(v, k) for k, v in data.items() if v is not None})
        run["entries"].append(record)

    def _add_tool(self, entry: str, tool: BaseTool, tool_context: ToolContext, **data: Any) -> None:
        self._add(
            tool_context.invocation_id,
            entry,
            agent_name=tool_context.agent_name,
            tool_name=tool.name,
            function_call_id=tool_context.function_call_id,
            **data,
        )

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: Content
    ) -> Content | None:
        self._start(invocation_context)
        self._add(invocation_context.invocation_id, "user_message", content=user_message)
        return None

    def _start(self, ctx: InvocationContext) -> None:
        self._runs.setdefault(
            ctx.invocation_id,
            {
                "invocation_id": ctx.invocation_id,
                "session_id": ctx.session.id,
                "app_name": ctx.app_name,
                "user_id": ctx.user_id,
                "start_time": datetime.datetime.now().isoformat(),
                "entries": [],
            },
        )

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> None:
        self._start(invocation_context)
        self._add(
            invocation_context.invocation_id,
            "invocation_start",
            agent_name=invocation_context.agent.name,
            branch=invocation_context.branch,
        )

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        actions = {
            "state_delta": event.actions.state_delta or None,
            "artifact_delta": event.actions.artifact_delta or None,
            "transfer_to_agent": event.actions.transfer_to_agent,
            "escalate": event.actions.escalate or None,
        }
        self._add(
            invocation_context.invocation_id,
            "event",
            event_id=event.id,
            author=event.author,
            content=event.content,
            is_final_response=event.is_final_response(),
            partial=event.partial,
            branch=event.branch,
            actions={k: v for k, v in actions.items() if v is not None} or None,
            usage_metadata=event.usage_metadata,
            error_code=event.error_code,
            error_message=event.error_message,
            long_running_tool_ids=sorted(event.long_running_tool_ids or []) or None,
            node_path=event.node_info.path if event.node_info is not None else None,
        )
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        await self._finish(invocation_context)

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        self._add(invocation_context.invocation_id, "run_error", error=_error(error))
        await self._finish(invocation_context)

    async def _finish(self, ctx: InvocationContext) -> None:
        if self.include_session_state:
            self._add(
                ctx.invocation_id,
                "session_state_snapshot",
                state=dict(ctx.session.state),
                event_count=len(ctx.session.events),
            )
        self._add(ctx.invocation_id, "invocation_end")
        run = self._runs.pop(ctx.invocation_id, None)
        if run is not None:
            await asyncio.to_thread(_append_yaml, self.output_path, run)

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> Content | None:
        self._add(
            callback_context.invocation_id,
            "agent_start",
            agent_name=callback_context.agent_name,
            branch=callback_context.branch,
        )
        return None

    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> Content | None:
        self._add(
            callback_context.invocation_id, "agent_end", agent_name=callback_context.agent_name
        )
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        self._add(
            callback_context.invocation_id,
            "llm_request",
            agent_name=callback_context.agent_name,
            model=llm_request.model,
            system_instruction=(
                llm_request.system_instruction if self.include_system_instruction else None
            ),
            contents=llm_request.contents,
            tools=sorted(llm_request.tools_dict) or None,
        )
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        self._add(
            callback_context.invocation_id,
            "llm_response",
            agent_name=callback_context.agent_name,
            content=llm_response.content,
            finish_reason=llm_response.finish_reason,
            usage_metadata=llm_response.usage_metadata,
            error_code=llm_response.error_code,
            error_message=llm_response.error_message,
        )
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        self._add(
            callback_context.invocation_id,
            "llm_error",
            agent_name=callback_context.agent_name,
            error=_error(error),
        )
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        self._add_tool("tool_call", tool, tool_context, args=tool_args)
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> dict[str, Any] | None:
        self._add_tool("tool_response", tool, tool_context, result=result)
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        self._add_tool("tool_error", tool, tool_context, args=tool_args, error=_error(error))
        return None


def _error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _append_yaml(path: Path, document: dict[str, Any]) -> None:
    import yaml

    text = "---\n" + yaml.safe_dump(
        document, default_flow_style=False, allow_unicode=True, sort_keys=False, width=120
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as out:
        out.write(text)
