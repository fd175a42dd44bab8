"""Whole-tree model checks: an LlmAgent with no model of its own or above it (``missing-model``),
and a built-in backend whose API key is not in the environment (``api-key-missing``).

Both are warnings: ``yadk run`` and ``yadk dev`` refuse to start on them (unless ``--model``
replaces every model), ``yadk validate`` only warns, since CI machines have no keys. The key check
knows the built-in backends by name, without importing them (validate stays engine-free); a test
keeps ``BACKEND_KEYS`` equal to what the backends read.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence

from yadk.config._context import AgentRecord, Reporter

__all__ = ["BACKEND_KEYS", "ENVIRONMENT_RULES", "check_models", "key_problem"]

# Rules whose outcome depends on the machine, not the config: `validate --strict` does not fail
# on them.
ENVIRONMENT_RULES = frozenset({"api-key-missing"})

# backend -> (how messages name it, the API key variables in order, the base-URL variable whose
# presence means another server, which may need no key)
BACKEND_KEYS: Mapping[str, tuple[str, tuple[str, ...], str]] = {
    "gemini": ("Gemini", ("GOOGLE_API_KEY", "GEMINI_API_KEY"), "YADK_GEMINI_BASE_URL"),
    "openai": ("OpenAI", ("OPENAI_API_KEY",), "OPENAI_BASE_URL"),
    "anthropic": ("Anthropic", ("ANTHROPIC_API_KEY",), "ANTHROPIC_BASE_URL"),
}
_BUILTIN_KINDS = frozenset({"LlmAgent", "SequentialAgent", "ParallelAgent", "LoopAgent"})
_BARE = ((re.compile(r"gemini-.*"), "gemini"), (re.compile(r"claude-.*"), "anthropic"))


def _backend(model: str) -> str | None:
    provider, sep, rest = model.partition(":")
    if sep:
        return provider if provider in BACKEND_KEYS and rest else None
    return next((backend for regex, backend in _BARE if regex.fullmatch(model)), None)


def key_problem(model: str, environ: Mapping[str, str] | None = None) -> tuple[str, str] | None:
    """(message, hint) when ``model`` names a built-in backend whose API key is not set; None
    when it is set, when a base URL points elsewhere, or for other models."""
    env = os.environ if environ is None else environ
    backend = _backend(model)
    if backend is None:
        return None
    label, variables, base_url = BACKEND_KEYS[backend]
    if env.get(base_url) or any(env.get(name) for name in variables):
        return None
    named = " or ".join(variables)
    return (
        f"{label} model `{model}` needs an API key, and {named} is not set.",
        f"Set {variables[0]} in the environment or in a `.env` file in the agent folder"
        " (`yadk run` and `yadk dev` load it); they refuse to start without a key, while"
        " validate only warns.",
    )


def check_models(reporter: Reporter, trees: Sequence[AgentRecord]) -> None:
    """Report agents left without a model and built-in models without their API key."""
    keys_reported: set[str] = set()
    for tree in trees:
        _walk(reporter, tree, inherited=False, keys_reported=keys_reported)


def _walk(
    reporter: Reporter, record: AgentRecord, *, inherited: bool, keys_reported: set[str]
) -> None:
    # A custom agent class may set a model in Python, for itself and the agents below it.
    custom = record.kind not in _BUILTIN_KINDS
    has_model = inherited or record.model is not None or custom
    if record.scope is not None and not record.from_code:
        if record.builtin_llm and not has_model and record.name is not None:
            reporter.warn(
                record.scope,
                ("name",),
                "missing-model",
                f"Agent `{record.name}` has no model: it sets no `model:`, and no LlmAgent"
                " above it does.",
                "Add `model: NAME` (e.g. `model: gemini-2.5-flash`) to it or to an agent above"
                " it, or pass `--model NAME` to yadk run / dev.",
            )
        if record.model:
            backend = _backend(record.model)
            problem = key_problem(record.model)
            if problem is not None and backend not in keys_reported:
                keys_reported.add(backend or "")
                reporter.warn(record.scope, ("model",), "api-key-missing", *problem)
    for child in record.children:
        _walk(reporter, child, inherited=has_model, keys_reported=keys_reported)
