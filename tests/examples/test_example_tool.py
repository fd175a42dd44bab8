"""ExampleTool: the per-request hook, providers (sync, async, failing, slow, cached), config."""

from __future__ import annotations

import asyncio
import logging
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from yadk._contexts import ToolContext
from yadk.config import validate_paths
from yadk.errors import ToolErrorType, ToolExecutionError
from yadk.examples import BaseExampleProvider, Example, convert_examples_to_text
from yadk.examples import _tool as _example_tool
from yadk.examples._tool import ExampleTool, resolve_fully_qualified_name
from yadk.models import LlmRequest
from yadk.testing import tool_context
from yadk.types import Content, ModelContent, Part, UserContent

PRIME = {
    "input": {"role": "user", "parts": [{"text": "Is 7 a prime number?"}]},
    "output": [{"role": "model", "parts": [{"text": "Yes, 7 is a prime number."}]}],
}
PRIME_BLOCK = (
    "<EXAMPLES>\nBegin few-shot\nThe following are examples of user queries and model responses"
    " using the available tools.\n\nEXAMPLE 1:\nBegin example\n[user]\nIs 7 a prime number?\n"
    "[model]\nYes, 7 is a prime number.\nEnd example\n\nEnd few-shot\n<EXAMPLES>"
)
EMPTY_BLOCK = (
    "<EXAMPLES>\nBegin few-shot\nThe following are examples of user queries and model responses"
    " using the available tools.\n\nEnd few-shot\n<EXAMPLES>"
)


def ex(question: str, answer: str) -> Example:
    return Example(input=UserContent(question), output=[ModelContent(answer)])


class Recording(BaseExampleProvider):
    """Returns one example echoing the query; records every query."""

    def __init__(self) -> None:
        self.queries: list[str] = []

    def get_examples(self, query: str) -> list[Example]:
        self.queries.append(query)
        return [ex(query, "ok")]


class AsyncRecording(Recording):
    async def get_examples(self, query: str) -> list[Example]:  # type: ignore[override]
        await asyncio.sleep(0)
        self.queries.append(query)
        return [ex(query, "async ok")]


async def run_hook(
    tool: ExampleTool,
    user: Content | str | None = "hello",
    *,
    model: str | None = "gemini-2.5-flash",
    system_instruction: str = "",
) -> LlmRequest:
    request = LlmRequest(model=model, system_instruction=system_instruction)
    ctx: ToolContext = tool_context(user_content=user)
    await tool.process_llm_request(tool_context=ctx, llm_request=request)
    return request


def test_identity_matches_adk() -> None:
    tool = ExampleTool([PRIME])
    assert (tool.name, tool.description, tool.declaration()) == (
        "example_tool",
        "example tool",
        None,
    )
    assert repr(tool) == "ExampleTool(1 examples)"
    assert repr(ExampleTool(Recording())) == "ExampleTool(Recording)"


async def test_static_list_is_appended_after_the_instruction() -> None:
    request = await run_hook(ExampleTool([PRIME]), system_instruction="Help the user.")
    assert request.system_instruction == "Help the user.\n\n" + PRIME_BLOCK
    assert request.tools_dict == {}


@pytest.mark.parametrize(
    "user",
    [
        None,
        "",
        Content(role="user", parts=[]),
        Content(role="user", parts=[Part.from_bytes(data=b"\x00", mime_type="audio/wav")]),
    ],
    ids=["no-message", "empty-text", "no-parts", "audio"],
)
async def test_static_list_is_always_added(user: Content | str | None) -> None:
    request = await run_hook(ExampleTool([PRIME]), user)
    assert request.system_instruction == PRIME_BLOCK


async def test_empty_static_list_still_adds_the_frame() -> None:
    request = await run_hook(ExampleTool([]))
    assert request.system_instruction == EMPTY_BLOCK


async def test_static_rendering_is_cached_per_model(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str | None] = []

    def counting(examples: Any, model: str | None) -> str:
        calls.append(model)
        return convert_examples_to_text(examples, model)

    monkeypatch.setattr(_example_tool, "convert_examples_to_text", counting)
    tool = ExampleTool([PRIME])
    for model in ["gemini-2.5-flash", "gpt-4o", "gemini-2.5-flash", "gpt-4o", None, None]:
        await run_hook(tool, model=model)
    assert calls == ["gemini-2.5-flash", "gpt-4o", None]
    tool.examples = [PRIME, PRIME]
    request = await run_hook(tool)
    assert calls[-1] == "gemini-2.5-flash" and request.system_instruction.count("EXAMPLE 2:") == 1


async def test_examples_property_is_a_copy() -> None:
    tool = ExampleTool([PRIME])
    examples = tool.examples
    assert isinstance(examples, list)
    examples.clear()
    assert (await run_hook(tool)).system_instruction == PRIME_BLOCK
    assert tool.static_examples is not None and len(tool.static_examples) == 1
    assert tool.provider is None


async def test_two_tools_add_two_blocks() -> None:
    request = LlmRequest(model=None)
    ctx = tool_context(user_content="hi")
    for tool in (ExampleTool([PRIME]), ExampleTool([])):
        await tool.process_llm_request(tool_context=ctx, llm_request=request)
    assert request.system_instruction == PRIME_BLOCK + "\n\n" + EMPTY_BLOCK


@pytest.mark.parametrize(
    ("parts", "query"),
    [
        ([Part(text="Is 7 prime?")], "Is 7 prime?"),
        ([Part(text="first"), Part(text="second")], "first second"),
        ([Part(text="plan", thought=True), Part(text="answer me")], "answer me"),
        (
            [Part.from_bytes(data=b"x", mime_type="image/png"), Part(text="what is this")],
            "what is this",
        ),
        ([Part(text=""), Part(text="x")], "x"),
    ],
)
async def test_provider_query_is_the_user_text(parts: list[Part], query: str) -> None:
    provider = Recording()
    request = await run_hook(ExampleTool(provider), Content(role="user", parts=parts))
    assert provider.queries == [query]
    assert request.system_instruction == convert_examples_to_text(
        [ex(query, "ok")], "gemini-2.5-flash"
    )


async def test_async_provider() -> None:
    provider = AsyncRecording()
    request = await run_hook(ExampleTool(provider), "roll a die", model="gpt-4o")
    assert provider.queries == ["roll a die"]
    assert request.system_instruction == convert_examples_to_text(
        [ex("roll a die", "async ok")], "gpt-4o"
    )


@pytest.mark.parametrize("user", [None, "", Content(role="user", parts=[])])
async def test_provider_with_empty_query_adds_nothing(user: Content | str | None) -> None:
    provider = Recording()
    request = await run_hook(ExampleTool(provider), user, system_instruction="base")
    assert (request.system_instruction, provider.queries) == ("base", [])


async def test_non_text_turn_is_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    tool = ExampleTool(Recording())
    audio = Content(role="user", parts=[Part.from_bytes(data=b"\x00", mime_type="audio/wav")])
    with caplog.at_level(logging.WARNING, logger="yadk.tools.example_tool"):
        for _ in range(3):
            request = await run_hook(tool, audio)
    assert request.system_instruction == ""
    assert [r.getMessage() for r in caplog.records] == [
        (
            "ExampleTool with provider Recording: the user message has no text (audio, image or "
            "other non-text parts), so no examples were added for this turn. Providers are queried "
            "with the message text; use a static example list for non-text agents."
        )
    ]


async def test_provider_is_called_once_per_turn_without_cache() -> None:
    provider = Recording()
    tool = ExampleTool(provider)
    for _ in range(3):
        await run_hook(tool, "same")
    assert provider.queries == ["same", "same", "same"]


async def test_cache_keeps_recent_queries() -> None:
    provider = Recording()
    tool = ExampleTool(provider, cache_size=2)
    for query in ["a", "b", "a", "c", "b", "a"]:
        request = await run_hook(tool, query)
        assert request.system_instruction == convert_examples_to_text(
            [ex(query, "ok")], "gemini-2.5-flash"
        )
    # "a" and "b" are cached; "c" evicts "b" (least recently used), so "b" is fetched again,
    # which evicts "a".
    assert provider.queries == ["a", "b", "c", "b", "a"]


async def test_cache_is_per_model() -> None:
    provider = Recording()
    tool = ExampleTool(provider, cache_size=4)
    for model in ["gemini-2.5-flash", "gpt-4o", "gemini-2.5-flash", "gpt-4o"]:
        await run_hook(tool, "q", model=model)
    assert provider.queries == ["q", "q"]


class Failing(BaseExampleProvider):
    def get_examples(self, query: str) -> list[Example]:
        raise ConnectionError("store unreachable")


class OwnTimeout(BaseExampleProvider):
    def get_examples(self, query: str) -> list[Example]:
        raise TimeoutError("socket timed out")


class SlowSync(BaseExampleProvider):
    def get_examples(self, query: str) -> list[Example]:
        time.sleep(0.5)
        return []


class SlowAsync(BaseExampleProvider):
    async def get_examples(self, query: str) -> list[Example]:
        await asyncio.sleep(5)
        return []


class ReturnsGarbage(BaseExampleProvider):
    def get_examples(self, query: str) -> list[Example]:
        return [{"input": "?"}]  # type: ignore[list-item]


class ReturnsDicts(BaseExampleProvider):
    def get_examples(self, query: str) -> list[Example]:
        return [PRIME]  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("provider", "timeout", "error_type", "message"),
    [
        (
            Failing(),
            None,
            ToolErrorType.INTERNAL_ERROR,
            "Example provider Failing failed for query 'hi': ConnectionError: store unreachable",
        ),
        (
            Failing(),
            1.0,
            ToolErrorType.INTERNAL_ERROR,
            "Example provider Failing failed for query 'hi': ConnectionError: store unreachable",
        ),
        (
            OwnTimeout(),
            1.0,
            ToolErrorType.INTERNAL_ERROR,
            "Example provider OwnTimeout failed for query 'hi': TimeoutError: socket timed out",
        ),
        (
            SlowSync(),
            0.05,
            ToolErrorType.TIMEOUT,
            (
                "Example provider SlowSync did not return within 0.05 s for query 'hi'; make it "
                "faster, raise ExampleTool's timeout, or cache its results (cache_size)."
            ),
        ),
        (
            SlowAsync(),
            0.05,
            ToolErrorType.TIMEOUT,
            (
                "Example provider SlowAsync did not return within 0.05 s for query 'hi'; make it "
                "faster, raise ExampleTool's timeout, or cache its results (cache_size)."
            ),
        ),
        (
            ReturnsGarbage(),
            None,
            ToolErrorType.INTERNAL_ERROR,
            (
                "Example provider ReturnsGarbage returned invalid examples for query 'hi': example 0: "
                "input: expected a Content mapping such as {role: user, parts: [{text: ...}]} "
                "(and 1 more problem)"
            ),
        ),
    ],
)
async def test_provider_failures_name_the_provider(
    provider: BaseExampleProvider, timeout: float | None, error_type: ToolErrorType, message: str
) -> None:
    with pytest.raises(ToolExecutionError) as info:
        await run_hook(ExampleTool(provider, timeout=timeout), "hi")
    assert (info.value.error_type, info.value.message) == (error_type, message)


async def test_provider_within_timeout_and_dict_results() -> None:
    request = await run_hook(ExampleTool(ReturnsDicts(), timeout=5), "hi", model=None)
    assert request.system_instruction == PRIME_BLOCK
    provider = AsyncRecording()
    request = await run_hook(ExampleTool(provider, timeout=5), "hi", model=None)
    assert provider.queries == ["hi"]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (
            (Recording,),
            {},
            "ExampleTool got the class Recording; pass an instance: Recording(...).",
        ),
        (([],), {"timeout": 0}, "ExampleTool timeout must be a positive number of seconds, got 0."),
        (([],), {"cache_size": -1}, "ExampleTool cache_size must be 0 (no cache) or more, got -1."),
    ],
)
def test_constructor_errors(args: tuple[Any, ...], kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolExecutionError) as info:
        ExampleTool(*args, **kwargs)
    assert (info.value.error_type, info.value.message) == (ToolErrorType.BAD_REQUEST, message)


def test_invalid_examples_raise_example_error() -> None:
    with pytest.raises(ValueError, match=r"^example 1: output: field required$"):
        ExampleTool([PRIME, {"input": PRIME["input"]}])


# -- from_config / from_shorthand --------------------------------------------------------------

PROVIDERS_MODULE = "yadk_test_fewshot_providers"


@pytest.fixture
def providers_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    (tmp_path / f"{PROVIDERS_MODULE}.py").write_text(
        textwrap.dedent(
            """
            from yadk.examples import BaseExampleProvider, LexicalExampleStore


            class Fixed(BaseExampleProvider):
                def get_examples(self, query):
                    return []


            provider = Fixed()
            store = LexicalExampleStore([
                {"input": {"role": "user", "parts": [{"text": "Is 7 prime?"}]},
                 "output": [{"role": "model", "parts": [{"text": "Yes."}]}]},
            ])
            not_a_provider = 42
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield PROVIDERS_MODULE
    sys.modules.pop(PROVIDERS_MODULE, None)


AGENT_YAML = """\
name: support_agent
model: gemini-2.5-flash
tools:
  - name: ExampleTool
    args:
      examples:
        - input: {role: user, parts: [{text: "Is 7 a prime number?"}]}
          output: [{role: model, parts: [{text: "Yes, 7 is a prime number."}]}]
"""


async def test_from_config_inline_list_from_yaml() -> None:
    args = yaml.safe_load(AGENT_YAML)["tools"][0]["args"]
    tool = ExampleTool.from_config(args)
    assert (await run_hook(tool)).system_instruction == PRIME_BLOCK


async def test_from_config_provider_by_dotted_name(providers_module: str) -> None:
    tool = ExampleTool.from_config({"examples": f"{providers_module}.store", "timeout": 2})
    assert type(tool.provider).__name__ == "LexicalExampleStore" and tool.timeout == 2
    request = await run_hook(tool, "is 7 prime", model=None)
    assert request.system_instruction == PRIME_BLOCK.replace(
        "Is 7 a prime number?", "Is 7 prime?"
    ).replace("Yes, 7 is a prime number.", "Yes.")


@pytest.mark.parametrize(
    ("examples", "error", "message"),
    [
        ("{mod}.missing", ValueError, "Invalid fully qualified name: {mod}.missing"),
        (
            "no_such_module_xyz.provider",
            ValueError,
            "Invalid fully qualified name: no_such_module_xyz.provider",
        ),
        ("provider", ValueError, "Invalid fully qualified name: provider"),
        ("os.environ", ValueError, "Invalid fully qualified name: os.environ"),
        (
            "{mod}.not_a_provider",
            ToolExecutionError,
            "Example provider must be an instance of BaseExampleProvider.",
        ),
        (
            "{mod}.Fixed",
            ToolExecutionError,
            "Example provider must be an instance of BaseExampleProvider.",
        ),
        (
            {"input": "x"},
            ToolExecutionError,
            (
                "Example tool config must be a list of examples or a fully-qualified name to a "
                "BaseExampleProvider object in code."
            ),
        ),
    ],
)
def test_from_config_errors(
    providers_module: str, examples: Any, error: type[Exception], message: str
) -> None:
    if isinstance(examples, str):
        examples = examples.format(mod=providers_module)
    with pytest.raises(error) as info:
        ExampleTool.from_config({"examples": examples})
    assert str(info.value) == message.format(mod=providers_module)
    if isinstance(info.value, ToolExecutionError):
        assert info.value.error_type is ToolErrorType.BAD_REQUEST
    else:
        assert info.value.__cause__ is not None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {},
            (
                "ExampleTool needs args.examples: a list of examples or the fully-qualified name of "
                "a BaseExampleProvider instance."
            ),
        ),
        (
            {"examples": [], "example": []},
            ("Unknown ExampleTool argument(s): example; expected examples, timeout, cache_size."),
        ),
    ],
)
def test_from_config_argument_errors(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolExecutionError) as info:
        ExampleTool.from_config(args)
    assert (info.value.error_type, info.value.message) == (ToolErrorType.BAD_REQUEST, message)


def test_from_config_uses_the_given_resolver() -> None:
    provider = Recording()
    seen: list[str] = []

    def resolve(name: str) -> Any:
        seen.append(name)
        return provider

    tool = ExampleTool.from_config({"examples": "my.provider"}, resolve=resolve)
    assert tool.provider is provider and seen == ["my.provider"]


def test_default_resolver() -> None:
    assert resolve_fully_qualified_name("yadk.examples.Example") is Example


@pytest.mark.parametrize("name", ["examples.yaml", "data/examples.jsonl", "EXAMPLES.YML"])
async def test_from_shorthand_file(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    if name.endswith(".jsonl"):
        path.write_text(
            '{"input": {"role": "user", "parts": [{"text": "Is 7 a prime number?"}]}, '
            '"output": [{"role": "model", "parts": [{"text": "Yes, 7 is a prime number."}]}]}\n',
            encoding="utf-8",
        )
    else:
        path.write_text(yaml.safe_dump([PRIME]), encoding="utf-8")
    tool = ExampleTool.from_shorthand(name, base_dir=tmp_path)
    assert (await run_hook(tool)).system_instruction == PRIME_BLOCK


async def test_from_shorthand_inline_provider_and_options(providers_module: str) -> None:
    inline = ExampleTool.from_shorthand([PRIME])
    assert (await run_hook(inline)).system_instruction == PRIME_BLOCK
    by_name = ExampleTool.from_shorthand(f"{providers_module}.provider")
    assert type(by_name.provider).__name__ == "Fixed"
    with_options = ExampleTool.from_shorthand(
        {"examples": f"{providers_module}.provider", "timeout": 1.5, "cache_size": 8}
    )
    assert (with_options.timeout, with_options.cache_size) == (1.5, 8)


def test_from_shorthand_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as info:
        ExampleTool.from_shorthand("nope.yaml", base_dir=tmp_path)
    assert str(info.value) == f"{tmp_path / 'nope.yaml'}: examples file not found."


# -- end to end --------------------------------------------------------------------------------


async def test_agent_sends_the_block_to_the_model() -> None:
    from yadk import LlmAgent, Runner
    from yadk.models import ScriptedModel

    model = ScriptedModel([{"text": "Yes."}], name="gemini-2.5-flash")
    agent = LlmAgent(
        name="math_agent",
        model=model,
        instruction="Answer maths questions.",
        tools=[ExampleTool([PRIME])],
    )
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session.id, new_message="Is 9 prime?"
        )
    ]
    assert events[-1].content is not None and events[-1].content.parts[0].text == "Yes."
    [request] = model.requests
    assert request.system_instruction.startswith("Answer maths questions.\n\n")
    assert request.system_instruction.endswith("\n\n" + PRIME_BLOCK)
    assert "example_tool" not in request.tools_dict


async def test_failing_provider_fails_the_turn_with_a_clear_event() -> None:
    from yadk import LlmAgent, Runner
    from yadk.models import ScriptedModel

    model = ScriptedModel([{"text": "unused"}])
    agent = LlmAgent(name="a", model=model, tools=[ExampleTool(Failing())])
    runner = Runner(app_name="app", agent=agent)
    session = await runner.session_service.create_session(app_name="app", user_id="u")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    ]
    assert events[-1].error_message == (
        "Example provider Failing failed for query 'hi': ConnectionError: store unreachable"
    )
    assert model.requests == []


@pytest.mark.parametrize(
    ("value", "is_path"),
    [
        ("examples.yaml", True),
        ("few/shots.jsonl", True),
        ("data.JSON", True),
        ("my_agent.examples.store", False),
        ("provider", False),
    ],
)
def test_looks_like_examples_path(value: str, is_path: bool) -> None:
    assert _example_tool.looks_like_examples_path(value) is is_path


# Names a config may not reach: the default resolver refuses the same ones, by the same rule.
BLOCKED_PROVIDER_NAMES = ["os.path", "json.loads", "yaml.SafeLoader", "yadk.config.load_agent"]


@pytest.mark.parametrize("name", BLOCKED_PROVIDER_NAMES)
def test_the_default_resolver_follows_the_config_trust_policy(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError) as info:
        ExampleTool.from_config({"examples": name})
    assert str(info.value) == f"Invalid fully qualified name: {name}"
    blocked = name.split(".")[0] if not name.startswith("yadk.") else "yadk.config"
    assert str(info.value.__cause__) == f"{blocked!r} cannot be referenced from config"

    config = tmp_path / "root_agent.yaml"
    config.write_text(f"name: a\ninstruction: hi\nexamples: {name}\n", encoding="utf-8")
    diagnostics = validate_paths([config])
    assert [(d.line, d.is_error) for d in diagnostics] == [(3, True)]
    assert blocked in diagnostics[0].message
