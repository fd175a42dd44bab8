"""The three eval file formats google-adk reads, checked key by key with located diagnostics.

- EvalSet JSON (``*.evalset.json``): ``{"eval_set_id", "eval_cases": [{"eval_id",
  "conversation": [invocation...], "session_input"}]}``, snake_case or camelCase keys; an
  invocation's ``intermediate_data`` is ``tool_uses`` or ``invocation_events``.
- The older list format: ``[{"name", "data": [{"query", "expected_tool_use": [{"tool_name",
  "tool_input"}], "reference"}], "initial_session": {"state"}}]``.
- AgentEvaluator's flat ``*.test.json``: ``[{"query", "expected_tool_use", "reference"}]``, one
  case named after the file.

Where google-adk accepts extra keys silently (an eval case, a session input) an unknown key is a
warning; everywhere else it is an error with a did-you-mean.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from yadk.config import Diagnostic, KeyPath
from yadk.eval._located import (
    Fields,
    JsonFile,
    anything,
    did_you_mean,
    is_list,
    is_number,
    is_object,
    is_opt_list,
    is_opt_number,
    is_opt_object,
    is_opt_str,
    is_str,
    kind,
    read_json,
    to_camel,
)
from yadk.eval._model import EvalCase, EvalSet, Invocation, ToolCall
from yadk.eval._rubrics import check_shared_ids, read_rubrics
from yadk.types import Content, Part

__all__ = ["load_eval_set_file"]

_EVAL_SET: Fields = {
    "eval_set_id": (is_str, "a string"),
    "name": (is_opt_str, "a string"),
    "description": (is_opt_str, "a string"),
    "eval_cases": (is_list, "a list of eval cases"),
    "creation_timestamp": (is_number, "a number"),
}
_EVAL_CASE: Fields = {
    "eval_id": (is_str, "a string"),
    "conversation": (is_opt_list, "a list of invocations"),
    "conversation_scenario": (anything, "an object"),
    "session_input": (is_opt_object, "an object"),
    "creation_timestamp": (is_number, "a number"),
    "rubrics": (is_opt_list, "a list"),
    "final_session_state": (is_opt_object, "an object"),
}
_INVOCATION: Fields = {
    "invocation_id": (is_str, "a string"),
    "user_content": (is_object, "a content object"),
    "final_response": (is_opt_object, "a content object"),
    "intermediate_data": (is_opt_object, "an object"),
    "creation_timestamp": (is_number, "a number"),
    "duration": (is_opt_number, "a number"),
    "model_duration": (is_opt_number, "a number"),
    "tool_duration": (is_opt_number, "a number"),
    "rubrics": (is_opt_list, "a list"),
    "app_details": (is_opt_object, "an object"),
}
_TOOL_USES: Fields = {
    "tool_uses": (is_list, "a list of function calls"),
    "tool_responses": (is_list, "a list of function responses"),
    "intermediate_responses": (is_list, "a list"),
}
_EVENTS: Fields = {"invocation_events": (is_list, "a list of events")}
_EVENT: Fields = {
    "author": (is_str, "a string"),
    "content": (is_opt_object, "a content object"),
    "grounding_metadata": (anything, "an object"),
    "usage_metadata": (anything, "an object"),
    "model_version": (is_opt_str, "a string"),
}
_FUNCTION_CALL: Fields = {
    "id": (is_opt_str, "a string"),
    "name": (is_str, "a string"),
    "args": (is_opt_object, "an object"),
    "partial_args": (anything, "a list"),
    "will_continue": (anything, "a boolean"),
}
_SESSION_INPUT: Fields = {
    "app_name": (is_str, "a string"),
    "user_id": (is_str, "a string"),
    "session_id": (is_opt_str, "a string"),
    "state": (is_object, "an object"),
}
_OLD_CASE: Fields = {
    "name": (is_str, "a string"),
    "data": (is_list, "a list of queries"),
    "initial_session": (is_object, "an object"),
}
_OLD_SESSION: Fields = {
    "state": (is_object, "an object"),
    "app_name": (is_str, "a string"),
    "user_id": (is_str, "a string"),
}
_QUERY: Fields = {
    "query": (is_str, "a string"),
    "expected_tool_use": (is_list, "a list of tool uses"),
    "reference": (is_str, "a string"),
    "expected_intermediate_agent_responses": (is_list, "a list"),
    "mock_tool_output": (anything, "anything"),
}
_OLD_TOOL_USE: Fields = {
    "tool_name": (is_str, "a string"),
    "tool_input": (is_object, "an object"),
    "mock_tool_output": (anything, "anything"),
}


def load_eval_set_file(path: Path) -> tuple[EvalSet | None, list[Diagnostic]]:
    """The eval set in ``path`` (any of the three formats) and every problem found; the set is
    ``None`` when there are errors."""
    file, found = read_json(path, what="the eval set")
    if file is None:
        return None, found
    eval_set = _parse(file)
    found.extend(file.diagnostics())
    if file.has_errors:
        return None, found
    return eval_set, found


def _parse(file: JsonFile) -> EvalSet | None:
    data = file.data
    if isinstance(data, dict):
        return _eval_set(file, data)
    if isinstance(data, list) and data:
        first = data[0]
        if isinstance(first, dict) and (
            "query" in first or ("data" not in first and "name" not in first)
        ):
            return _flat(file, data)
        return _old_list(file, data)
    if isinstance(data, list):
        file.problem((), "empty-eval-set", "The eval set has no cases.", _FORMATS_HINT)
        return None
    file.problem(
        (),
        "wrong-type",
        f"An eval set must be an object or a list, not {kind(data)}.",
        _FORMATS_HINT,
    )
    return None


_FORMATS_HINT = (
    'Write an EvalSet ({"eval_set_id": ..., "eval_cases": [...]}), the list format '
    '([{"name": ..., "data": [{"query": ...}]}]) or a test file ([{"query": ...}]).'
)


def _eval_set(file: JsonFile, data: dict[str, Any]) -> EvalSet | None:
    top = file.check_object(
        data, (), what="eval set", fields=_EVAL_SET, required=("eval_set_id", "eval_cases")
    )
    if top is None:
        return None
    cases: list[EvalCase] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(top.get("eval_cases", [])):
        at = (_key(data, "eval_cases"), index)
        case = _eval_case(file, raw, at)
        if case is None:
            continue
        if case.eval_id in seen:
            file.problem(
                (*at, _key(raw, "eval_id")),
                "duplicate-eval-id",
                f"Eval case `{case.eval_id}` appears twice (first as case {seen[case.eval_id] + 1}).",
                "Give every case its own `eval_id`; `EVALSET:ID` selects cases by it.",
            )
        seen.setdefault(case.eval_id, index)
        cases.append(case)
    if "eval_cases" in top and not top["eval_cases"]:
        file.problem((_key(data, "eval_cases"),), "empty-eval-set", "The eval set has no cases.")
    return EvalSet(
        eval_set_id=top.get("eval_set_id", file.path.name),
        path=file.path,
        cases=cases,
        file_format="evalset",
        name=top.get("name"),
        description=top.get("description"),
    )


def _key(data: Any, name: str) -> str:
    """The spelling (snake_case or camelCase) ``data`` uses for field ``name``."""
    if isinstance(data, dict) and name not in data and to_camel(name) in data:
        return to_camel(name)
    return name


def _eval_case(file: JsonFile, raw: Any, at: KeyPath) -> EvalCase | None:
    case = file.check_object(
        raw, at, what="eval case", fields=_EVAL_CASE, required=("eval_id",), unknown="warning"
    )
    if case is None:
        return None
    if "conversation_scenario" in case:
        file.problem(
            (*at, _key(raw, "conversation_scenario")),
            "unsupported",
            "Eval cases with a `conversation_scenario` need google-adk's LLM user simulator, "
            "which yadk eval does not run.",
            "Write the conversation out as `conversation` (or save one with "
            "`yadk run --save-evalcase`).",
        )
        return None
    if case.get("conversation") is None:
        file.problem(
            at, "missing-key", "An eval case needs `conversation` (a list of invocations)."
        )
        return None
    conversation = []
    for index, item in enumerate(case["conversation"]):
        invocation = _invocation(file, item, (*at, _key(raw, "conversation"), index))
        if invocation is not None:
            conversation.append(invocation)
    result = EvalCase(eval_id=case.get("eval_id", ""), conversation=conversation)
    if case.get("rubrics"):
        result.rubrics = read_rubrics(file, case["rubrics"], (*at, _key(raw, "rubrics")))
        check_shared_ids(file, result.rubrics, conversation, (*at, _key(raw, "conversation")))
    session = case.get("session_input")
    if session is not None:
        checked = file.check_object(
            session,
            (*at, _key(raw, "session_input")),
            what="session input",
            fields=_SESSION_INPUT,
            required=("app_name", "user_id"),
            unknown="warning",
        )
        if checked is not None:
            result.state = dict(checked.get("state", {}))
            result.app_name = checked.get("app_name", "")
            result.user_id = checked.get("user_id", "")
            result.session_id = checked.get("session_id")
    return result


def _content(file: JsonFile, raw: Any, at: KeyPath) -> Content | None:
    try:
        return Content.model_validate(raw)
    except ValidationError as exc:
        for error in exc.errors():
            location = tuple(part for part in error["loc"] if part != "function-after")
            message, hint = f"Invalid content: {error['msg']}.", _CONTENT_HINT
            if error["type"] == "extra_forbidden" and location:
                message = f"Unknown key `{location[-1]}` in a content."
                hint = did_you_mean(str(location[-1]), _CONTENT_KEYS)
            file.problem((*at, *location), "invalid-content", message, hint, on_key=True)
        return None


_CONTENT_HINT = 'A content is {"role": "user", "parts": [{"text": "..."}]}.'
_CONTENT_KEYS = sorted({*Content.model_fields, *Part.model_fields, "name", "args", "response"})


def _invocation(file: JsonFile, raw: Any, at: KeyPath) -> Invocation | None:
    checked = file.check_object(
        raw, at, what="invocation", fields=_INVOCATION, required=("user_content",)
    )
    if checked is None or "user_content" not in checked:
        return None
    user = _content(file, checked["user_content"], (*at, _key(raw, "user_content")))
    final = None
    if checked.get("final_response") is not None:
        final = _content(file, checked["final_response"], (*at, _key(raw, "final_response")))
    tool_uses: list[ToolCall] = []
    intermediate = checked.get("intermediate_data")
    if intermediate is not None:
        tool_uses = _intermediate(file, intermediate, (*at, _key(raw, "intermediate_data")))
    if user is None:
        return None
    rubrics = checked.get("rubrics") or []
    return Invocation(
        user_content=user,
        final_response=final,
        tool_uses=tool_uses,
        invocation_id=checked.get("invocation_id", ""),
        intermediate=intermediate,
        rubrics=read_rubrics(file, rubrics, (*at, _key(raw, "rubrics"))) if rubrics else [],
    )


def _intermediate(file: JsonFile, raw: dict[str, Any], at: KeyPath) -> list[ToolCall]:
    if _key(raw, "invocation_events") in raw:
        checked = file.check_object(raw, at, what="intermediate data", fields=_EVENTS)
        calls: list[ToolCall] = []
        for index, event in enumerate((checked or {}).get("invocation_events", [])):
            calls.extend(_event_calls(file, event, (*at, _key(raw, "invocation_events"), index)))
        return calls
    fields = {**_TOOL_USES, **_EVENTS}
    checked = file.check_object(raw, at, what="intermediate data", fields=fields)
    uses = (checked or {}).get("tool_uses", [])
    return [
        call
        for index, item in enumerate(uses)
        if (call := _function_call(file, item, (*at, _key(raw, "tool_uses"), index))) is not None
    ]


def _event_calls(file: JsonFile, raw: Any, at: KeyPath) -> list[ToolCall]:
    event = file.check_object(
        raw, at, what="invocation event", fields=_EVENT, required=("author",), unknown=None
    )
    if event is None or event.get("content") is None:
        return []
    content_at = (*at, _key(raw, "content"))
    if _content(file, event["content"], content_at) is None:
        return []
    parts = event["content"].get("parts") or []
    calls = []
    for index, part in enumerate(parts if isinstance(parts, list) else []):
        if isinstance(part, dict):
            key = _key(part, "function_call")
            if isinstance(part.get(key), dict):
                call = _function_call(file, part[key], (*content_at, "parts", index, key))
                if call is not None:
                    calls.append(call)
    return calls


def _function_call(file: JsonFile, raw: Any, at: KeyPath) -> ToolCall | None:
    checked = file.check_object(
        raw, at, what="function call", fields=_FUNCTION_CALL, required=("name",)
    )
    if checked is None or "name" not in checked:
        return None
    return ToolCall(checked["name"], checked.get("args"), source=at)


def _old_list(file: JsonFile, data: list[Any]) -> EvalSet:
    cases = []
    for index, raw in enumerate(data):
        checked = file.check_object(
            raw, (index,), what="eval case", fields=_OLD_CASE, required=("name", "data")
        )
        if checked is None or "name" not in checked or "data" not in checked:
            continue
        case = EvalCase(
            eval_id=checked["name"],
            conversation=_queries(file, checked["data"], (index, "data")),
        )
        session = checked.get("initial_session")
        if session:
            fields = file.check_object(
                session, (index, "initial_session"), what="initial session", fields=_OLD_SESSION
            )
            if fields is not None:
                case.state = dict(fields.get("state", {}))
                case.app_name = fields.get("app_name", "")
                case.user_id = fields.get("user_id", "")
        cases.append(case)
    return EvalSet(eval_set_id=file.path.stem, path=file.path, cases=cases, file_format="list")


def _flat(file: JsonFile, data: list[Any]) -> EvalSet:
    case = EvalCase(eval_id=file.path.name, conversation=_queries(file, data, ()))
    return EvalSet(eval_set_id=file.path.name, path=file.path, cases=[case], file_format="test")


def _queries(file: JsonFile, rows: list[Any], at: KeyPath) -> list[Invocation]:
    invocations = []
    for index, raw in enumerate(rows):
        row = file.check_object(raw, (*at, index), what="query", fields=_QUERY, required=("query",))
        if row is None or "query" not in row:
            continue
        calls = []
        for number, use in enumerate(row.get("expected_tool_use", [])):
            where = (*at, index, "expected_tool_use", number)
            tool = file.check_object(
                use,
                where,
                what="tool use",
                fields=_OLD_TOOL_USE,
                required=("tool_name", "tool_input"),
            )
            if tool is not None and "tool_name" in tool and "tool_input" in tool:
                calls.append(ToolCall(tool["tool_name"], tool["tool_input"], source=where))
        invocations.append(
            Invocation(
                user_content=Content(role="user", parts=[Part(text=row["query"])]),
                final_response=Content(role="model", parts=[Part(text=row.get("reference", ""))]),
                tool_uses=calls,
            )
        )
    return invocations
