"""Scenarios of LLM agents run as workflow nodes in each ``mode``: what their models are sent.

Each scenario's agents note, before every model call, the system instruction and the contents
of the request (``Scenario.requests``); the recorder stores them beside the events and the test
compares them with yadk's.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from tests.workflow.scenarios import Scenario, scenario


def _line(content: Any) -> str:
    """One content of a model request, as ``role: text | text``."""
    parts = []
    for p in content.parts:
        if p.function_call:
            parts.append(f"call {p.function_call.name}")
        elif p.function_response:
            parts.append(f"response {p.function_response.name}")
        else:
            parts.append(p.text or "?")
    return f"{content.role}: {' | '.join(parts)}"


def _noting(seen: list[dict[str, Any]]) -> Any:
    def note(callback_context: Any, llm_request: Any) -> None:
        system = getattr(llm_request.config, "system_instruction", None) or ""
        seen.append(
            {
                "agent": callback_context.agent_name,
                "system": system if isinstance(system, str) else _line(system),
                "contents": [_line(c) for c in llm_request.contents],
            }
        )

    return note


def _agent(k: Any, name: str, texts: list[Any], seen: list[Any], **extra: Any) -> Any:
    return k.LlmAgent(
        name=name,
        model=k.model(texts),
        instruction=f"You are {name}.",
        description=f"The {name}.",
        before_model_callback=_noting(seen),
        **extra,
    )


@scenario
def mode_after_function(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    writer = _agent(k, "writer", ["A poem about cats."], seen)

    def topic(node_input: str) -> str:
        return f"topic: {node_input}"

    flow = k.Workflow(name="flow", edges=[(k.START, topic, writer)])
    return Scenario(flow, messages=["cats"], requests=seen)


@scenario
def mode_agents_in_sequence(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    drafter = _agent(k, "drafter", ["Draft one."], seen)
    editor = _agent(k, "editor", ["Edited draft."], seen)
    flow = k.Workflow(name="flow", edges=[(k.START, drafter, editor)])
    return Scenario(flow, messages=["write a note"], requests=seen)


@scenario
def mode_agent_in_a_loop(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    guesser = _agent(k, "guesser", ["three", "seven"], seen)

    def check(node_input: str, ctx: Any) -> Any:
        tries = ctx.state.get("tries", 0) + 1
        done = node_input == "seven"
        return k.Event(
            output=node_input if done else f"not {node_input}, again",
            state={"tries": tries},
            route="done" if done else "again",
        )

    def finish(node_input: str) -> str:
        return f"found {node_input}"

    flow = k.Workflow(
        name="loop",
        edges=[(k.START, guesser, check), (check, {"again": guesser, "done": finish})],
    )
    return Scenario(flow, messages=["guess a number"], requests=seen)


@scenario
def mode_second_user_turn(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    answerer = _agent(k, "answerer", ["Paris.", "Rome."], seen)
    flow = k.Workflow(name="flow", edges=[(k.START, answerer)])
    return Scenario(flow, messages=["Capital of France?", "Capital of Italy?"], requests=seen)


@scenario
def mode_chat_node(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    # A chat agent may follow only START (google-adk refuses it after another node).
    chatter = _agent(k, "chatter", ["Hello.", "Again."], seen, mode="chat")

    def after(node_input: str) -> str:
        return f"after: {node_input}"

    flow = k.Workflow(name="flow", edges=[(k.START, chatter, after)])
    return Scenario(flow, messages=["hi there", "once more"], requests=seen)


@scenario
def mode_single_turn_explicit(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    # A single-turn agent is offered no transfer in its instruction, though it has sub-agents.
    helper = _agent(k, "helper", [], seen)
    lead = _agent(k, "lead", ["Led."], seen, mode="single_turn", sub_agents=[helper])

    def topic(node_input: str) -> str:
        return f"topic: {node_input}"

    flow = k.Workflow(name="flow", edges=[(k.START, topic, lead)])
    return Scenario(flow, messages=["lead it"], requests=seen)


@scenario
def mode_agent_with_a_tool(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []

    def lookup(key: str) -> dict[str, str]:
        """Looks a key up."""
        return {"value": f"v-{key}"}

    finder = _agent(
        k, "finder", [{"call": "lookup", "args": {"key": "a"}}, "Found v-a."], seen, tools=[lookup]
    )

    def topic(node_input: str) -> str:
        return f"find {node_input}"

    flow = k.Workflow(name="flow", edges=[(k.START, topic, finder)])
    return Scenario(flow, messages=["a"], requests=seen)


# --- sub-agents a chat agent delegates to (google-adk offers them as tools) ------------------


def _noting_tools(k: Any, seen: list[dict[str, Any]]) -> Any:
    """Notes what ``_noting`` notes, the declarations of the tools offered and the function
    responses the request holds."""
    note_request = _noting(seen)

    def note(callback_context: Any, llm_request: Any) -> None:
        note_request(callback_context, llm_request)
        seen[-1]["tools"] = k.declarations(llm_request)
        seen[-1]["responses"] = [
            {"name": p.function_response.name, "response": p.function_response.response}
            for c in llm_request.contents
            for p in c.parts
            if p.function_response
        ]

    return note


def _tooled(k: Any, name: str, texts: list[Any], seen: list[Any], **extra: Any) -> Any:
    return k.LlmAgent(
        name=name,
        model=k.model(texts),
        instruction=f"You are {name}.",
        description=f"The {name}.",
        before_model_callback=_noting_tools(k, seen),
        **extra,
    )


class Lookup(BaseModel):
    key: str
    exact: bool = False


class Found(BaseModel):
    value: str


@scenario
def mode_single_turn_sub_agent(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    helper = _tooled(k, "helper", ["Helped with x.", "Helped with y."], seen, mode="single_turn")
    chatty = _tooled(k, "chatty", [], seen)
    root = _tooled(
        k,
        "root",
        [
            {"call": "helper", "args": {"request": "do x"}},
            "Done: helped.",
            {"call": "helper", "args": {"request": "do y"}},
            "Done again.",
        ],
        seen,
        sub_agents=[helper, chatty],
    )
    return Scenario(root, messages=["please do x", "now y"], requests=seen)


@scenario
def mode_single_turn_sub_agent_schemas(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    finder = _tooled(
        k,
        "finder",
        ['{"value": "v-a"}'],
        seen,
        mode="single_turn",
        input_schema=Lookup,
        output_schema=Found,
    )
    root = _tooled(
        k,
        "root",
        [
            {"call": "finder", "args": {"exact": "maybe"}},
            {"call": "finder", "args": {"key": "a"}},
            "It is v-a.",
        ],
        seen,
        sub_agents=[finder],
    )
    return Scenario(root, messages=["find a"], requests=seen)


@scenario
def mode_single_turn_sub_agent_with_a_tool(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []

    def lookup(key: str) -> dict[str, str]:
        """Looks a key up."""
        return {"value": f"v-{key}"}

    helper = _tooled(
        k,
        "helper",
        [{"call": "lookup", "args": {"key": "a"}}, "Found v-a.", "Nothing for b."],
        seen,
        mode="single_turn",
        tools=[lookup],
        output_key="helped",
    )
    root = _tooled(
        k,
        "root",
        [
            {"call": "helper", "args": {"request": "find a"}},
            {"call": "helper", "args": {"request": "find b"}},
            "a is v-a; b has nothing.",
        ],
        seen,
        sub_agents=[helper],
    )
    return Scenario(root, messages=["find a and b"], requests=seen)


@scenario
def mode_single_turn_resumed(k: Any) -> Scenario:
    """A single-turn agent whose long-running tool call waits for the user, resumed by the
    call's function response, twice (a second run of the workflow after the first ends)."""
    seen: list[dict[str, Any]] = []

    def approve(amount: int) -> None:
        """Asks a manager to approve a payment; the answer comes later."""
        return None

    payer = _agent(
        k,
        "payer",
        [
            {"call": "approve", "args": {"amount": 5}},
            "Paid 5.",
            {"call": "approve", "args": {"amount": 7}},
            "Paid 7.",
        ],
        seen,
        tools=[k.LongRunningFunctionTool(approve)],
    )

    def topic(node_input: str) -> str:
        return f"pay {node_input}"

    def after(node_input: str) -> str:
        return f"after: {node_input}"

    flow = k.Workflow(name="flow", edges=[(k.START, topic, payer, after)])
    answer = {"status": "approved"}
    return Scenario(flow, messages=["5", answer, "7", answer], requests=seen)


@scenario
def mode_single_turn_confirmed(k: Any) -> Scenario:
    """A single-turn agent's tool asks for confirmation; the agent resumes when confirmed."""
    seen: list[dict[str, Any]] = []

    def pay(amount: int) -> dict[str, Any]:
        """Pays an amount."""
        return {"paid": amount}

    payer = _agent(
        k,
        "payer",
        [{"call": "pay", "args": {"amount": 5}}, "Paid 5."],
        seen,
        tools=[k.FunctionTool(pay, require_confirmation=True)],
    )

    def topic(node_input: str) -> str:
        return f"pay {node_input}"

    def after(node_input: str) -> str:
        return f"after: {node_input}"

    flow = k.Workflow(name="flow", edges=[(k.START, topic, payer, after)])
    return Scenario(flow, messages=["5", {"confirmed": True}], requests=seen)


@scenario
def mode_task_sub_agent(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    booker = _tooled(
        k,
        "booker",
        ["For how many?", {"call": "finish_task", "args": {"result": "Booked for 4."}}],
        seen,
        mode="task",
        output_key="booking",
    )
    root = _tooled(
        k,
        "root",
        [
            {"call": "booker", "args": {"request": "book a table"}},
            "Your table is booked.",
            "Bye.",
        ],
        seen,
        sub_agents=[booker],
    )
    return Scenario(root, messages=["book me a table", "4", "thanks"], requests=seen)


class Booking(BaseModel):
    guests: int
    day: str = "today"


class Booked(BaseModel):
    table: int
    note: str | None = None


@scenario
def mode_task_sub_agent_schemas(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []

    def free_table(guests: int) -> dict[str, int]:
        """Finds a free table."""
        return {"table": guests + 10}

    booker = _tooled(
        k,
        "booker",
        [
            {"call": "free_table", "args": {"guests": 4}},
            {"call": "finish_task", "args": {"table": "fourteen"}},
            {"call": "finish_task", "args": {"table": 14}},
        ],
        seen,
        mode="task",
        input_schema=Booking,
        output_schema=Booked,
        tools=[free_table],
    )
    helper = _tooled(k, "helper", [], seen)
    root = _tooled(
        k,
        "root",
        [{"call": "booker", "args": {"guests": 4}}, "Table 14 is yours."],
        seen,
        sub_agents=[booker, helper],
    )
    return Scenario(root, messages=["a table for 4"], requests=seen)


@scenario
def mode_single_turn_resumed_dynamic(k: Any) -> Scenario:
    """A single-turn agent run with ``ctx.run_node`` waits on its long-running call: the node
    that ran it waits too, and both go on when the call is answered."""
    seen: list[dict[str, Any]] = []

    def approve(amount: int) -> None:
        """Asks a manager to approve a payment; the answer comes later."""
        return None

    payer = _agent(
        k,
        "payer",
        [{"call": "approve", "args": {"amount": 5}}, "Paid 5."],
        seen,
        tools=[k.LongRunningFunctionTool(approve)],
    )

    @k.node(rerun_on_resume=True)
    async def orchestrate(ctx: Any, node_input: str):  # type: ignore[no-untyped-def]
        paid = await ctx.run_node(payer, node_input=f"pay {node_input}")
        yield f"orchestrated: {paid}"

    flow = k.Workflow(name="flow", edges=[(k.START, orchestrate)])
    return Scenario(flow, messages=["5", {"status": "approved"}], requests=seen)


@scenario
def mode_single_turn_resumed_pending(k: Any) -> Scenario:
    """A single-turn agent's long-running tool answers "pending" at once: the agent goes on in
    that turn, yet its node waits for the call's answer all the same."""
    seen: list[dict[str, Any]] = []

    def approve(amount: int) -> dict[str, str]:
        """Asks a manager to approve a payment; the answer comes later."""
        return {"status": "pending"}

    payer = _agent(
        k,
        "payer",
        [{"call": "approve", "args": {"amount": 5}}, "Waiting.", "Paid 5."],
        seen,
        tools=[k.LongRunningFunctionTool(approve)],
    )

    def after(node_input: str) -> str:
        return f"after: {node_input}"

    flow = k.Workflow(name="flow", edges=[(k.START, payer, after)])
    return Scenario(flow, messages=["pay 5", {"status": "approved"}], requests=seen)


@scenario
def mode_task_root_agent(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    # google-adk runs a task agent at the root under its node's scope (booker@1): each turn
    # opens with the user's latest message, then the scope's events; it stops at finish_task.
    booker = _tooled(
        k,
        "booker",
        [
            "For how many?",
            {"call": "finish_task", "args": {"result": "Booked for 4."}},
            "Anything else?",
        ],
        seen,
        mode="task",
        output_key="booking",
    )
    return Scenario(booker, messages=["book me a table", "4", "thanks"], requests=seen)


@scenario
def mode_task_delegates_a_task(k: Any) -> Scenario:
    seen: list[dict[str, Any]] = []
    # booker (a task) delegates to checker (a task) and calls finish_task in the same turn:
    # that finish_task is refused; checker asks the user, and both finish on the next turn.
    checker = _tooled(
        k,
        "checker",
        ["Which date?", {"call": "finish_task", "args": {"result": "Free on Monday."}}],
        seen,
        mode="task",
    )
    booker = _tooled(
        k,
        "booker",
        [
            [
                {"call": "checker", "args": {"request": "check"}},
                {"call": "finish_task", "args": {"result": "early"}},
            ],
            {"call": "finish_task", "args": {"result": "Booked Monday."}},
        ],
        seen,
        mode="task",
        sub_agents=[checker],
    )
    root = _tooled(
        k,
        "root",
        [{"call": "booker", "args": {"request": "book"}}, "Booked for Monday."],
        seen,
        sub_agents=[booker],
    )
    return Scenario(root, messages=["book a table", "monday"], requests=seen)
