"""Workflow scenarios run twice: in google-adk 2.13 (record_adk.py) and in yadk (the tests).

Each scenario is a function of a ``kit`` holding one framework's names (``Workflow``, ``START``,
``Event``, ...), so the same graph runs in both and the recorded event sequences compare.
Functions inside are plain Python and import nothing framework-specific.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel


@dataclass
class Scenario:
    agent: Any
    # A dict message answers the waiting question as that function response, as is.
    messages: list[Any] = field(default_factory=lambda: ["hi"])
    state: dict[str, Any] = field(default_factory=dict)
    # What the scenario's agents noted of each model request (scenarios_modes.py), compared
    # beside the events when set.
    requests: list[Any] | None = None


SCENARIOS: dict[str, Callable[[Any], Scenario]] = {}


def scenario(fn: Callable[[Any], Scenario]) -> Callable[[Any], Scenario]:
    SCENARIOS[fn.__name__] = fn
    return fn


class Order(BaseModel):
    item: str
    qty: int = 1


@scenario
def chain_values(k: Any) -> Scenario:
    def upper(node_input: str) -> str:
        return node_input.upper()

    def exclaim(node_input: str) -> str:
        return node_input + "!"

    def count(node_input: str, ctx: Any) -> dict[str, Any]:
        ctx.state["length"] = len(node_input)
        return {"text": node_input, "n": len(node_input)}

    return Scenario(k.Workflow(name="flow", edges=[(k.START, upper, exclaim, count)]))


@scenario
def events_and_state(k: Any) -> Scenario:
    def greet(node_input: str, topic: str) -> Any:
        return k.Event(output=f"{topic}:{node_input}", state={"greeted": True})

    def many(node_input: str):  # type: ignore[no-untyped-def]
        yield k.Event(message="first message")
        yield k.Event(state={"step": 1})
        yield k.Event(output=node_input + " done")

    async def agen(node_input: str):  # type: ignore[no-untyped-def]
        yield k.Event(state={"async": "yes"})
        yield "from async gen: " + node_input

    return Scenario(
        k.Workflow(name="flow", edges=[(k.START, greet, many, agen)]),
        state={"topic": "weather"},
    )


@scenario
def routes(k: Any) -> Scenario:
    def classify(node_input: str) -> Any:
        return k.Event(output=node_input, route="question" if "?" in node_input else "other")

    def answer(node_input: str) -> str:
        return "answer to " + node_input

    def fallback(node_input: str) -> str:
        return "noted " + node_input

    return Scenario(
        k.Workflow(
            name="router",
            edges=[(k.START, classify, {"question": answer, k.DEFAULT_ROUTE: fallback})],
        ),
        messages=["why?", "fine"],
    )


@scenario
def route_to_several(k: Any) -> Scenario:
    def pick(node_input: str) -> Any:
        return k.Event(output=node_input, route=["a", "b"])

    def a(node_input: str) -> str:
        return "a:" + node_input

    def b(node_input: str) -> str:
        return "b:" + node_input

    def c(node_input: str) -> str:
        return "c:" + node_input

    join = k.JoinNode(name="join")
    return Scenario(
        k.Workflow(
            name="multi",
            edges=[
                (k.START, pick, {"a": a, "b": b, "c": c}),
                ((a, b), join),
            ],
        )
    )


@scenario
def edge_objects(k: Any) -> Scenario:
    def first(node_input: str) -> Any:
        return k.Event(output=1, route=True)

    def yes(node_input: int) -> int:
        return node_input + 1

    def no(node_input: int) -> int:
        return node_input - 1

    first, yes, no = k.node(first), k.node(yes), k.node(no)
    return Scenario(
        k.Workflow(
            name="edges",
            edges=[
                k.Edge(from_node=k.START, to_node=first),
                k.Edge(from_node=first, to_node=yes, route=True),
                k.Edge(from_node=first, to_node=no, route=False),
            ],
        )
    )


@scenario
def fan_out_join(k: Any) -> Scenario:
    def split(node_input: str) -> str:
        return node_input

    def left(node_input: str) -> str:
        return "L" + node_input

    def middle(node_input: str) -> str:
        return "M" + node_input

    def right(node_input: str) -> str:
        return "R" + node_input

    def merge(node_input: dict[str, str]) -> str:
        return ",".join(f"{key}={node_input[key]}" for key in sorted(node_input))

    join = k.JoinNode(name="gather")
    return Scenario(
        k.Workflow(
            name="fan",
            edges=[(k.START, split, (left, middle, right), join, merge)],
        )
    )


@scenario
def loop_back(k: Any) -> Scenario:
    def start(node_input: str, ctx: Any) -> int:
        ctx.state["count"] = 0
        return 0

    def step(node_input: int, ctx: Any) -> Any:
        count = node_input + 1
        return k.Event(output=count, state={"count": count}, route="again" if count < 3 else "done")

    def finish(node_input: int) -> str:
        return f"looped {node_input}"

    return Scenario(
        k.Workflow(
            name="loop",
            edges=[(k.START, start, step), (step, {"again": step, "done": finish})],
        )
    )


@scenario
def nested(k: Any) -> Scenario:
    def inner_a(node_input: str) -> str:
        return "ia:" + node_input

    def inner_b(node_input: str) -> Any:
        return k.Event(output="ib:" + node_input, state={"inner": True})

    inner = k.Workflow(name="inner", edges=[(k.START, inner_a, inner_b)])

    def outer_end(node_input: str) -> str:
        return "end:" + node_input

    return Scenario(k.Workflow(name="outer", edges=[(k.START, inner, outer_end)]))


@scenario
def pydantic_input(k: Any) -> Scenario:
    def make(node_input: str) -> dict[str, Any]:
        return {"item": node_input, "qty": 2}

    def take(node_input: Order) -> str:
        return f"{node_input.qty} x {node_input.item}"

    def parse_json(node_input: str) -> str:
        return '{"item": "tea", "qty": 3}'

    def take_json(node_input: Order) -> Order:
        return node_input

    def show(node_input: dict[str, Any]) -> str:
        return f"{node_input['qty']} x {node_input['item']}"

    return Scenario(
        k.Workflow(name="typed", edges=[(k.START, make, take, parse_json, take_json, show)])
    )


@scenario
def parallel_worker(k: Any) -> Scenario:
    def items(node_input: str) -> list[str]:
        return ["x", "y", "z"]

    @k.node(parallel_worker=True)
    def work(node_input: str) -> str:
        return node_input * 2

    def total(node_input: list[str]) -> str:
        return "+".join(node_input)

    return Scenario(k.Workflow(name="pw", edges=[(k.START, items, work, total)]))


@scenario
def node_error(k: Any) -> Scenario:
    def ok(node_input: str) -> str:
        return "ok"

    def boom(node_input: str) -> str:
        raise ValueError("boom went the node")

    def never(node_input: str) -> str:
        return "never"

    return Scenario(k.Workflow(name="failing", edges=[(k.START, ok, boom, never)]))


@scenario
def retries(k: Any) -> Scenario:
    def flaky(node_input: str, ctx: Any) -> str:
        if ctx.attempt_count < 3:
            raise ConnectionError(f"attempt {ctx.attempt_count} failed")
        return f"worked on attempt {ctx.attempt_count}"

    node = k.node(
        flaky,
        retry_config=k.RetryConfig(max_attempts=4, initial_delay=0.0, jitter=0.0),
    )
    return Scenario(k.Workflow(name="retrying", edges=[(k.START, node)]))


@scenario
def llm_agents(k: Any) -> Scenario:
    writer = k.LlmAgent(
        name="writer",
        model=k.model(["A draft about cats."]),
        instruction="Write about the input.",
    )

    def after(node_input: str) -> str:
        return "reviewed: " + str(node_input)

    return Scenario(k.Workflow(name="pipeline", edges=[(k.START, writer, after)]))


@scenario
def output_schema_agent(k: Any) -> Scenario:
    extractor = k.LlmAgent(
        name="extractor",
        model=k.model(['{"item": "apples", "qty": 5}']),
        instruction="Extract the order.",
        output_schema=Order,
    )

    def total(node_input: Order) -> str:
        return f"order: {node_input.qty} {node_input.item}"

    return Scenario(k.Workflow(name="orders", edges=[(k.START, extractor, total)]))


@scenario
def human_input(k: Any) -> Scenario:
    def draft(node_input: str) -> str:
        return "draft of " + node_input

    @k.node(rerun_on_resume=True)
    def approve(node_input: str, ctx: Any):  # type: ignore[no-untyped-def]
        answer = ctx.resume_inputs.get("approval")
        if answer is None:
            yield k.RequestInput(interrupt_id="approval", message="Approve " + node_input + "?")
            return
        yield k.Event(output=f"{node_input} -> {answer}", state={"approved": answer})

    def publish(node_input: str) -> str:
        return "published " + node_input

    return Scenario(
        k.Workflow(name="review", edges=[(k.START, draft, approve, publish)]),
        messages=["essay", "yes"],
    )


@scenario
def human_input_plain(k: Any) -> Scenario:
    def ask(node_input: str):  # type: ignore[no-untyped-def]
        yield k.RequestInput(message="What is your name?")

    def hello(node_input: Any) -> str:
        return f"hello {node_input}"

    return Scenario(
        k.Workflow(name="asker", edges=[(k.START, ask, hello)]),
        messages=["start", "Ada"],
    )


def _confirmed_flow(k: Any, name: str) -> Any:
    @k.node(require_confirmation=True)
    def delete_file(node_input: str, ctx: Any) -> str:
        ctx.state["deleted"] = node_input
        return "deleted " + node_input

    def after(node_input: Any) -> str:
        return f"after: {node_input}"

    return k.Workflow(name=name, edges=[(k.START, delete_file, after)])


@scenario
def confirmation_approved(k: Any) -> Scenario:
    return Scenario(
        _confirmed_flow(k, "confirming"),
        messages=["notes.txt", {"confirmed": True}],
    )


@scenario
def confirmation_rejected(k: Any) -> Scenario:
    return Scenario(
        _confirmed_flow(k, "confirming"),
        messages=["notes.txt", {"confirmed": False}],
    )


@scenario
def confirmation_predicate(k: Any) -> Scenario:
    def risky(node_input: str) -> bool:
        return node_input.startswith("rm")

    @k.node(require_confirmation=risky)
    def shell(node_input: str) -> str:
        return "ran " + node_input

    return Scenario(
        k.Workflow(name="guarded", edges=[(k.START, shell)]),
        messages=["ls", "rm -rf x", {"confirmed": True}],
    )


@scenario
def typed_output(k: Any) -> Scenario:
    def make(node_input: str) -> Order:
        return {"item": node_input}  # type: ignore[return-value]

    def show(node_input: Any) -> str:
        return f"{node_input}"

    return Scenario(k.Workflow(name="typed_out", edges=[(k.START, make, show)]))


@scenario
def typed_output_mismatch(k: Any) -> Scenario:
    def make(node_input: str) -> Order:
        return {"qty": "many"}  # type: ignore[return-value]

    return Scenario(k.Workflow(name="typed_bad", edges=[(k.START, make)]))


@scenario
def answer_schema(k: Any) -> Scenario:
    def ask(node_input: str):  # type: ignore[no-untyped-def]
        yield k.RequestInput(message="How many?", response_schema=int)

    def double(node_input: int) -> int:
        return node_input * 2

    def ask_json(node_input: int):  # type: ignore[no-untyped-def]
        yield k.RequestInput(message="Details?")

    def show(node_input: Any) -> str:
        return f"{type(node_input).__name__}: {node_input}"

    return Scenario(
        k.Workflow(name="asking", edges=[(k.START, ask, double, ask_json, show)]),
        messages=["start", "21", '{"a": [1, 2]}'],
    )


@scenario
def answer_schema_model(k: Any) -> Scenario:
    def ask(node_input: str):  # type: ignore[no-untyped-def]
        yield k.RequestInput(message="Which order?", response_schema=Order)

    def show(node_input: Any) -> str:
        return f"{type(node_input).__name__}: {node_input}"

    return Scenario(
        k.Workflow(name="ordering", edges=[(k.START, ask, show)]),
        messages=["start", {"item": "pen", "qty": "4"}],
    )


class Counter(BaseModel):
    count: int = 0
    label: str = ""


@scenario
def state_schema_checked(k: Any) -> Scenario:
    def bump(node_input: str, ctx: Any) -> str:
        ctx.state["count"] = 1
        ctx.state["label"] = node_input
        return "bumped"

    def wrong(node_input: str, ctx: Any) -> str:
        ctx.state["count"] = "lots"
        return "never"

    return Scenario(
        k.Workflow(name="schemed", edges=[(k.START, bump, wrong)], state_schema=Counter)
    )


@scenario
def state_schema_unknown_key(k: Any) -> Scenario:
    def write(node_input: str, ctx: Any) -> str:
        ctx.state["app:free"] = "prefixed keys pass"
        ctx.state["other"] = 1
        return "never"

    return Scenario(k.Workflow(name="schemed", edges=[(k.START, write)], state_schema=Counter))


RouteName = Literal["small", "big"]


# Graphs google-adk refuses to build: each a function of the kit returning the edges (or the
# Workflow's keyword arguments, edges among them).
INVALID: dict[str, Callable[[Any], Any]] = {}

_CYCLE = re.compile(r"(cycle detected: )([^.]+)(\.)")


def canonical_message(message: str) -> str:
    """``message`` with the cycle it names rotated to start at its least node name: google-adk
    starts the cycle at whichever node its set iteration meets first, which varies between
    runs, so both the recorder and the comparison name ``a -> b -> a`` for ``b -> a -> b``."""

    def rotate(found: re.Match[str]) -> str:
        nodes = found.group(2).split(" -> ")[:-1]
        first = nodes.index(min(nodes))
        ring = nodes[first:] + nodes[:first]
        return f"{found.group(1)}{' -> '.join([*ring, ring[0]])}{found.group(3)}"

    return _CYCLE.sub(rotate, message)


def invalid(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    INVALID[fn.__name__] = fn
    return fn


def _fns() -> tuple[Any, Any, Any]:
    def a(node_input: Any) -> Any:
        return node_input

    def b(node_input: Any) -> Any:
        return node_input

    def c(node_input: Any) -> Any:
        return node_input

    return a, b, c


@invalid
def unreachable(k: Any) -> list[Any]:
    a, b, c = _fns()
    return [(k.START, a), (b, c)]


@invalid
def unconditional_cycle(k: Any) -> list[Any]:
    a, b, c = _fns()
    return [(k.START, a, b, c, a)]


@invalid
def routed_edge_from_start(k: Any) -> list[Any]:
    a, _, _ = _fns()
    return [k.Edge(from_node=k.START, to_node=k.node(a), route="x")]


@invalid
def duplicate_names(k: Any) -> list[Any]:
    a, _, _ = _fns()
    return [(k.START, k.node(a), k.node(a, name="a"))]


@invalid
def empty_routing_map(k: Any) -> list[Any]:
    a, _, _ = _fns()
    return [(k.START, a, {})]


@invalid
def consecutive_routing_maps(k: Any) -> list[Any]:
    a, b, c = _fns()
    return [(k.START, a, {"x": b}, {"y": c})]


@invalid
def state_param_not_in_schema(k: Any) -> dict[str, Any]:
    def uses(node_input: Any, missing_key: str) -> Any:
        return node_input

    return {"edges": [(k.START, uses)], "state_schema": Counter}


@invalid
def default_route_in_a_list(k: Any) -> list[Any]:
    a, b, _ = _fns()
    fa, fb = k.node(a), k.node(b)
    return [(k.START, fa), k.Edge(from_node=fa, to_node=fb, route=["x", k.DEFAULT_ROUTE])]


@invalid
def chat_agent_after_a_node(k: Any) -> list[Any]:
    a, _, _ = _fns()
    chatter = k.LlmAgent(name="chatter", model=k.model([]), mode="chat")
    return [(k.START, a, chatter)]
