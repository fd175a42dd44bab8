"""ExampleTool: appends rendered few-shot examples to the system instruction of every request."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yadk._blocked_modules import blocked_module
from yadk.errors import ToolErrorType, ToolExecutionError
from yadk.examples._example import BaseExampleProvider, Example, coerce_examples
from yadk.examples._files import load_examples_file, looks_like_examples_path
from yadk.examples._render import convert_examples_to_text
from yadk.tools import BaseTool

if TYPE_CHECKING:
    from yadk._contexts import ToolContext
    from yadk.models import LlmRequest
    from yadk.types import Content

__all__ = ["ExampleTool", "looks_like_examples_path", "resolve_fully_qualified_name"]

logger = logging.getLogger("yadk.tools.example_tool")

_CONFIG_KEYS = ("examples", "timeout", "cache_size")


def resolve_fully_qualified_name(name: str) -> Any:
    """Import ``pkg.mod.attr`` and return ``attr``; the default resolver of ``from_config``.

    What may be named is what a config may name (``blocked_module``, the rule the config trust
    policy always enforces): not the standard library (too much of it executes
    arbitrary code, as ADK also says), nor YAML machinery that builds objects from text.
    Any failure raises ``ValueError("Invalid fully qualified name: <name>")`` with the cause
    chained.
    """
    try:
        module_path, attribute = name.rsplit(".", 1)
        blocked = blocked_module(name)
        if blocked is not None:
            raise ValueError(f"{blocked!r} cannot be referenced from config")
        return getattr(importlib.import_module(module_path), attribute)
    except Exception as exc:
        raise ValueError(f"Invalid fully qualified name: {name}") from exc


class ExampleTool(BaseTool):
    """Adds few-shot examples to the system instruction before every model call.

    ``examples`` is a list of ``Example`` objects or google-genai shaped dicts (validated at once),
    or a ``BaseExampleProvider`` asked per turn with the text of the current user message.
    The model is never offered this tool: ``declaration()`` is ``None``.

    A static list is rendered once per model name and always added. A provider is called once per
    turn; with an empty query (no user text) nothing is added. ``timeout`` (seconds) bounds each
    provider call; ``cache_size`` keeps the rendered block of that many recent queries. A provider
    that raises or times out fails the turn with a ``ToolExecutionError`` naming the provider.
    """

    name = "example_tool"
    description = "example tool"

    def __init__(
        self,
        examples: Sequence[Example | Mapping[str, Any]] | BaseExampleProvider,
        *,
        timeout: float | None = None,
        cache_size: int = 0,
    ) -> None:
        super().__init__()
        if timeout is not None and timeout <= 0:
            raise ToolExecutionError(
                f"ExampleTool timeout must be a positive number of seconds, got {timeout!r}.",
                error_type=ToolErrorType.BAD_REQUEST,
            )
        if cache_size < 0:
            raise ToolExecutionError(
                f"ExampleTool cache_size must be 0 (no cache) or more, got {cache_size!r}.",
                error_type=ToolErrorType.BAD_REQUEST,
            )
        self.timeout = timeout
        self.cache_size = cache_size
        self._static: list[Example] | None = None
        self._provider: BaseExampleProvider | None = None
        self._rendered: dict[str | None, str] = {}
        self._query_cache: OrderedDict[tuple[str, str | None], str] = OrderedDict()
        self._warned_non_text = False
        self.examples = examples

    @property
    def examples(self) -> list[Example] | BaseExampleProvider:
        """The static examples (a copy: assign to change them) or the provider."""
        if self._provider is not None:
            return self._provider
        return list(self._static or [])

    @examples.setter
    def examples(
        self, examples: Sequence[Example | Mapping[str, Any]] | BaseExampleProvider
    ) -> None:
        self._rendered.clear()
        self._query_cache.clear()
        if isinstance(examples, BaseExampleProvider):
            self._provider, self._static = examples, None
            return
        if isinstance(examples, type) and issubclass(examples, BaseExampleProvider):
            raise ToolExecutionError(
                f"ExampleTool got the class {examples.__name__}; pass an instance: "
                f"{examples.__name__}(...).",
                error_type=ToolErrorType.BAD_REQUEST,
            )
        self._provider, self._static = None, coerce_examples(examples)

    @property
    def provider(self) -> BaseExampleProvider | None:
        """The provider, or ``None`` when the examples are a static list."""
        return self._provider

    @property
    def static_examples(self) -> list[Example] | None:
        """The static list (a copy), or ``None`` when a provider chooses per turn."""
        return None if self._static is None else list(self._static)

    # -- construction from config --------------------------------------------------------------

    @classmethod
    def from_config(
        cls,
        args: Mapping[str, Any],
        *,
        resolve: Callable[[str], Any] = resolve_fully_qualified_name,
    ) -> ExampleTool:
        """Build from a config's ``args`` mapping, as ADK's ``ExampleTool.from_config`` does.

        ``args["examples"]`` is a list of example mappings, or the dotted name of a
        ``BaseExampleProvider`` **instance**. ``resolve`` turns the name into the object (the
        config layer passes its trust-policy-aware resolver); an unresolvable name raises
        ``ValueError("Invalid fully qualified name: ...")``, anything that is not a provider
        instance ``ToolExecutionError`` (``BAD_REQUEST``). yadk also accepts ``timeout`` and
        ``cache_size``.
        """
        unknown = sorted(set(args) - set(_CONFIG_KEYS))
        if unknown:
            raise ToolExecutionError(
                f"Unknown ExampleTool argument(s): {', '.join(unknown)}; expected "
                f"{', '.join(_CONFIG_KEYS)}.",
                error_type=ToolErrorType.BAD_REQUEST,
            )
        if "examples" not in args:
            raise ToolExecutionError(
                "ExampleTool needs args.examples: a list of examples or the fully-qualified "
                "name of a BaseExampleProvider instance.",
                error_type=ToolErrorType.BAD_REQUEST,
            )
        examples = args["examples"]
        options = {k: args[k] for k in ("timeout", "cache_size") if k in args}
        if isinstance(examples, str):
            return cls(_resolve_provider(examples, resolve), **options)
        if isinstance(examples, list):
            return cls(examples, **options)
        raise ToolExecutionError(
            "Example tool config must be a list of examples or a fully-qualified name to a "
            "BaseExampleProvider object in code.",
            error_type=ToolErrorType.BAD_REQUEST,
        )

    @classmethod
    def from_shorthand(
        cls,
        value: Any,
        *,
        base_dir: str | os.PathLike[str] | None = None,
        resolve: Callable[[str], Any] = resolve_fully_qualified_name,
    ) -> ExampleTool:
        """Build from the yadk agent-level ``examples:`` key.

        ``value`` is an inline list, a path to a ``.yaml``/``.yml``/``.json``/``.jsonl`` file of
        examples (relative paths resolve against ``base_dir``, the config's folder), or the
        dotted name of a provider instance. Strings ending in one of those suffixes or containing
        a path separator are paths; any other string is a dotted name. A mapping
        ``{examples: ..., timeout: ..., cache_size: ...}`` passes the options along.
        """
        options: dict[str, Any] = {}
        if isinstance(value, Mapping):
            options = {k: v for k, v in value.items() if k != "examples"}
            value = value.get("examples")
        if isinstance(value, str) and looks_like_examples_path(value):
            path = Path(value)
            if not path.is_absolute() and base_dir is not None:
                path = Path(base_dir) / path
            return cls.from_config({"examples": load_examples_file(path), **options})
        return cls.from_config({"examples": value, **options}, resolve=resolve)

    # -- the per-request hook -----------------------------------------------------------------

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Append the rendered examples block to ``llm_request``'s system instruction."""
        model = llm_request.model
        if self._provider is None:
            block = self._rendered.get(model)
            if block is None:
                block = self._rendered[model] = convert_examples_to_text(self._static or [], model)
            llm_request.append_instructions([block])
            return
        query = self._query(tool_context.user_content)
        if not query:
            return
        key = (query, model)
        block = self._query_cache.get(key)
        if block is None:
            examples = await self._call_provider(query)
            block = convert_examples_to_text(examples, model)
            if self.cache_size:
                self._query_cache[key] = block
                if len(self._query_cache) > self.cache_size:
                    self._query_cache.popitem(last=False)
        else:
            self._query_cache.move_to_end(key)
        llm_request.append_instructions([block])

    def _query(self, content: Content | None) -> str:
        if content is None or not content.parts:
            return ""
        query = " ".join(p.text for p in content.parts if p.text and not p.thought)
        if not query and not self._warned_non_text:
            self._warned_non_text = True
            logger.warning(
                "ExampleTool with provider %s: the user message has no text (audio, image or "
                "other non-text parts), so no examples were added for this turn. Providers are "
                "queried with the message text; use a static example list for non-text agents.",
                type(self._provider).__name__,
            )
        return query

    async def _call_provider(self, query: str) -> list[Example]:
        provider = self._provider
        assert provider is not None
        name = type(provider).__name__
        try:
            if self.timeout is None:
                result = await _maybe_await(provider.get_examples(query))
            else:
                result = await asyncio.wait_for(_call_off_loop(provider, query), self.timeout)
        except TimeoutError as exc:
            if self.timeout is None or not _is_wait_for_timeout(exc):
                raise _provider_failed(name, query, exc) from exc
            raise ToolExecutionError(
                f"Example provider {name} did not return within {self.timeout:g} s for query "
                f"{query!r}; make it faster, raise ExampleTool's timeout, or cache its results "
                "(cache_size).",
                error_type=ToolErrorType.TIMEOUT,
            ) from None
        except Exception as exc:
            raise _provider_failed(name, query, exc) from exc
        try:
            return coerce_examples(result)
        except ValueError as exc:
            raise ToolExecutionError(
                f"Example provider {name} returned invalid examples for query {query!r}: {exc}",
                error_type=ToolErrorType.INTERNAL_ERROR,
            ) from exc

    def __repr__(self) -> str:
        source = (
            type(self._provider).__name__
            if self._provider is not None
            else f"{len(self._static or [])} examples"
        )
        return f"ExampleTool({source})"


async def _maybe_await(value: Any) -> Any:
    return (await value) if inspect.isawaitable(value) else value


async def _call_off_loop(provider: BaseExampleProvider, query: str) -> Any:
    if inspect.iscoroutinefunction(provider.get_examples):
        return await _maybe_await(provider.get_examples(query))
    # A sync provider runs in a thread so the timeout can fire while it blocks.
    return await _maybe_await(await asyncio.to_thread(provider.get_examples, query))


def _is_wait_for_timeout(exc: TimeoutError) -> bool:
    # wait_for raises a bare TimeoutError from the CancelledError it injected; a provider's own
    # TimeoutError (e.g. a socket timeout) carries its own message or cause.
    return not exc.args and isinstance(exc.__cause__, asyncio.CancelledError)


def _provider_failed(name: str, query: str, exc: BaseException) -> ToolExecutionError:
    return ToolExecutionError(
        f"Example provider {name} failed for query {query!r}: {type(exc).__name__}: {exc}",
        error_type=ToolErrorType.INTERNAL_ERROR,
    )


def _resolve_provider(name: str, resolve: Callable[[str], Any]) -> BaseExampleProvider:
    provider = resolve(name)
    if not isinstance(provider, BaseExampleProvider):
        raise ToolExecutionError(
            "Example provider must be an instance of BaseExampleProvider.",
            error_type=ToolErrorType.BAD_REQUEST,
        )
    return provider
