"""Whole-tree model checks: an LlmAgent with no model of its own or above it (``missing-model``),
a model name no backend serves (``no-model-backend``, an error) or that a backend takes by
pattern but does not know (``unknown-model``, a warning), and a built-in backend whose API key is
not in the environment (``api-key-missing``; Gemini on Vertex AI with a project needs none).

Both are warnings: ``yadk run`` and ``yadk dev`` refuse to start on them (unless ``--model``
replaces every model), ``yadk validate`` only warns, since CI machines have no keys. The key check
knows the built-in backends by name, without importing them (validate stays engine-free); a test
keeps ``BACKEND_KEYS`` equal to what the backends read.

Installed plugins' entry points and the model registry are read only when a name needs them, off
``import yadk.config``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from yadk._model_names import (
    BARE_NAMES,
    BUILTIN_PROVIDERS,
    backend_for,
    did_you_mean,
    litellm_problem,
    unknown_to_its_family,
)
from yadk.config._context import AgentRecord, Reporter
from yadk.config._diagnostics import Severity

__all__ = [
    "BACKEND_KEYS",
    "ENVIRONMENT_RULES",
    "NameCheck",
    "check_model_names",
    "check_models",
    "key_problem",
]

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


def _backend(model: str) -> str | None:
    backend = backend_for(model)
    if backend == "litellm":  # LiteLLM's openai/, gemini/, anthropic/ read the same keys
        backend = model.partition("/")[0]
    return backend if backend in BACKEND_KEYS and not model.endswith(":") else None


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
    if backend == "gemini" and _vertex_with_project(env):
        return None  # Application Default Credentials, no key
    named = " or ".join(variables)
    return (
        f"{label} model `{model}` needs an API key, and {named} is not set.",
        f"Set {variables[0]} in the environment or in a `.env` file in the agent folder"
        " (`yadk run` and `yadk dev` load it); they refuse to start without a key, while"
        " validate only warns.",
    )


def _vertex_with_project(env: Mapping[str, str]) -> bool:
    """Gemini on Vertex AI with a project (the rule models/_vertex.py applies)."""
    use_vertex = env.get("GOOGLE_GENAI_USE_VERTEXAI", "").strip().lower() in ("true", "1")
    return use_vertex and bool(env.get("GOOGLE_CLOUD_PROJECT"))


def check_models(reporter: Reporter, trees: Sequence[AgentRecord]) -> None:
    """Report agents left without a model and built-in models without their API key."""
    keys_reported: set[str] = set()
    for tree in trees:
        _walk(reporter, tree, inherited=False, keys_reported=keys_reported)


def check_model_names(reporter: Reporter, trees: Sequence[AgentRecord]) -> None:
    """Report ``model:`` names no backend serves (an error) or that a backend takes by pattern
    but does not know (a warning). Skipped when ``--model`` replaces every model."""
    names = NameCheck(reporter)
    pending = list(trees)
    while pending:
        record = pending.pop()
        if record.model and record.scope is not None and not record.from_code:
            names.check(record, record.model)
        pending.extend(record.children)


class NameCheck:
    """Checks ``model:`` names against the backends; plugins are looked up only when a name
    no built-in backend serves comes up (listing them reads every installed package's
    metadata; loading them imports their code)."""

    def __init__(self, reporter: Reporter) -> None:
        self.reporter = reporter
        self._plugins: list[str] | None = None

    def plugins(self) -> list[str]:
        if self._plugins is None:
            from importlib_metadata import entry_points

            self._plugins = sorted({e.name for e in entry_points(group="yadk.models")})
        return self._plugins

    def check(self, record: AgentRecord, model: str) -> None:
        assert record.scope is not None
        found = self.problem(model)
        if found is None:
            return
        severity, rule, message, hint = found
        report = self.reporter.error if severity == "error" else self.reporter.warn
        report(record.scope, ("model",), rule, message, hint)

    def problem(self, model: str) -> tuple[Severity, str, str, str] | None:
        """(severity, rule, message, hint) for a model name no backend serves (an error) or
        that a backend takes by pattern but does not know (a warning); None when it runs."""
        if "${" in model or model.startswith("scripted:"):
            return None  # resolved at run time / checked as a file
        providers = [*BUILTIN_PROVIDERS, *self.plugins()] if ":" in model else BUILTIN_PROVIDERS
        backend = backend_for(model, providers)
        litellm = "/" in model and ":" not in model and not model.startswith("projects/")
        problem = litellm_problem(model) if backend == "litellm" or litellm else None
        if problem is not None and not self._a_plugin_serves(model):
            return (
                "error",
                "no-model-backend",
                f"No model backend serves `{model}`.",
                f"{problem} See the LiteLLM provider table in docs/models.md.",
            )
        if backend is None and not self._a_plugin_serves(model):
            close = did_you_mean(model, providers)
            return (
                "error",
                "no-model-backend",
                f"No model backend serves `{model}`.",
                (f"Did you mean `{close}`? " if close else "")
                + f"Bare names: {BARE_NAMES}; or write PROVIDER:NAME"
                f" with a provider of {', '.join(providers)} (`openai:` also reaches any"
                " OpenAI-compatible server); model plugins add providers through the"
                " 'yadk.models' entry-point group.",
            )
        warning = unknown_to_its_family(model)
        if warning is None:
            return None
        close = did_you_mean(model.partition(":")[2] or model)
        hint = (
            f"Did you mean `{close}`?"
            if close
            else "Check the name against the service's list of models."
        )
        return "warning", "unknown-model", warning, hint

    def _a_plugin_serves(self, model: str) -> bool:
        if ":" in model or not self.plugins():
            return False
        from yadk.models import serves  # plugins may register bare-name patterns

        return serves(model)


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
