"""What a model name says about the model (google-adk's tests on names), with no imports:
the config checker uses these without loading the engine."""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "BARE_NAMES",
    "BARE_PATTERNS",
    "BUILTIN_PROVIDERS",
    "LITELLM_ARGS",
    "LITELLM_CLASS_NAMES",
    "LITELLM_PROVIDERS",
    "SUGGESTED_MODELS",
    "backend_for",
    "did_you_mean",
    "is_gemini_model",
    "litellm_problem",
    "supports_search_with_functions",
    "unknown_to_its_family",
]

_GEMINI = re.compile(r"^gemini-")
_GEMINI_VERSION = re.compile(r"^gemini-(\d+)")


def is_gemini_model(model: str | None) -> bool:
    """google-adk's test: the model name (after any ``provider/`` path) starts with ``gemini-``.
    yadk's offline ``ScriptedModel`` (named ``scripted...``) passes too, so configs using
    Gemini's built-in tools run in tests."""
    if not model:
        return False
    if model.startswith("scripted"):
        return True
    return _GEMINI.match(model.rsplit("/", 1)[-1].removeprefix("gemini:")) is not None


def supports_search_with_functions(model: str | None) -> bool:
    """Gemini 3 and later accept a built-in search next to function declarations."""
    name = (model or "").rsplit("/", 1)[-1]
    found = _GEMINI_VERSION.match(name)
    return found is not None and int(found.group(1)) >= 3


# --- which backend serves a name: the rules `yadk validate` and the model registry share ------

# The built-in backends, as `provider:NAME` prefixes.
BUILTIN_PROVIDERS = ("anthropic", "gemini", "openai", "scripted")
# The LiteLLM provider prefixes yadk serves (models/_litellm.py maps them onto its backends).
LITELLM_PROVIDERS = (
    "anthropic",
    "azure",
    "deepseek",
    "gemini",
    "groq",
    "hosted_vllm",
    "mistral",
    "ollama",
    "ollama_chat",
    "openai",
    "openrouter",
    "vertex_ai",
)
# Bare names the built-in backends take, by pattern (the registry registers the same patterns).
BARE_PATTERNS = {
    # Vertex AI resource names too: tuned and Model Garden endpoints, publisher models.
    "gemini": (
        r"gemini-.*"
        r"|projects/.+/locations/.+/(?:endpoints/.+|publishers/google/models/gemini.+)"
    ),
    "anthropic": r"claude-.*",
    # google-adk 2.13 serves these two on its OpenAILlm: yadk on its OpenAI backend.
    "openai": r"gpt-.*|o\d+-.*",
    # LiteLLM's provider/NAME strings google-adk's registry sends to LiteLlm, for the providers
    # yadk serves (yadk.models.litellm_model maps them onto its backends).
    "litellm": rf"(?:{'|'.join(LITELLM_PROVIDERS)})/.+",
}
# How messages list the bare names above.
BARE_NAMES = (
    "gemini-* (Gemini), claude-* (Anthropic), gpt-* and o3-mini-like (OpenAI), LiteLLM's"
    " PROVIDER/NAME (openai/gpt-4o-mini)"
)

# The model families each pattern backend is known to serve; a name its pattern takes but no
# family matches still runs (the service decides), so it is a warning, never an error.
_GEMINI_KNOWN = re.compile(
    r"gemini-(?:(?:1\.0|1\.5|2\.0|2\.5|3|3\.0|3\.1)-(?:pro|flash|flash-lite|flash-8b)"
    r"(?:-[a-z0-9.-]+)?|(?:pro|flash|flash-lite)-latest|live-[a-z0-9.-]+|exp-[a-z0-9.-]+"
    r"|embedding-[a-z0-9.-]+)"
)
_CLAUDE_KNOWN = re.compile(
    r"claude-(?:(?:opus|sonnet|haiku)-\d(?:-\d)?|\d(?:-\d)?-(?:opus|sonnet|haiku))"
    r"(?:-\d{8}|-latest)?(?:@\d{8})?"
)
_OPENAI_KNOWN = re.compile(
    r"(?:gpt-(?:3\.5|4|4o|4\.1|4\.5|5|5\.\d)|o\d)(?:-(?:mini|nano|pro|turbo|preview|chat|audio"
    r"|realtime|search|codex|instruct|latest|\d{4}-\d{2}-\d{2}|\d{4}|\d{2}k))*"
)
_KNOWN = {"gemini": _GEMINI_KNOWN, "anthropic": _CLAUDE_KNOWN, "openai": _OPENAI_KNOWN}
# What "did you mean" offers: the current names of each family.
SUGGESTED_MODELS = (
    "gemini-2.5-flash",
    "gemini-2.5-pro",
    "gemini-2.5-flash-lite",
    "gemini-2.0-flash",
    "gemini-2.0-flash-lite",
    "gemini-3-pro-preview",
    "gemini-3-flash-preview",
    "gemini-flash-latest",
    "claude-sonnet-4-5",
    "claude-opus-4-1",
    "claude-haiku-4-5",
    "claude-3-7-sonnet-latest",
    "claude-3-5-haiku-latest",
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-5",
    "gpt-5-mini",
    "o3-mini",
    "o4-mini",
)
_LABELS = {"gemini": "Gemini", "anthropic": "Anthropic", "openai": "OpenAI"}


def backend_for(name: str, providers: Iterable[str] = BUILTIN_PROVIDERS) -> str | None:
    """The provider that serves ``name`` among ``providers`` and the built-in patterns, or
    None. ``provider:NAME`` needs a registered provider; a bare name, a matching pattern."""
    provider, sep, _ = name.partition(":")
    if sep:
        return provider if provider in set(providers) else None
    return next(
        (backend for backend, pattern in BARE_PATTERNS.items() if re.fullmatch(pattern, name)),
        None,
    )


def unknown_to_its_family(name: str) -> str | None:
    """A warning when a pattern backend takes ``name`` but no family it is known to serve
    matches (``gemini-9.9-ultra``); None for known names and for other backends."""
    provider, sep, rest = name.partition(":")
    model = rest if sep else name
    backend = provider if sep else backend_for(name)
    if backend not in _KNOWN or not model or "/" in model:
        return None  # endpoint and resource names (projects/...) are the service's to check
    if sep and backend == "openai":
        return None  # `openai:NAME` reaches any OpenAI-compatible server, with its own names
    if _KNOWN[backend].fullmatch(model):
        return None
    label = _LABELS[backend]
    article = "an" if label[0] in "AEIOU" else "a"
    return (
        f"`{name}` is not {article} {label} model yadk knows; it will be sent as is, and the"
        " service may refuse it."
    )


def did_you_mean(name: str, providers: Iterable[str] = BUILTIN_PROVIDERS) -> str | None:
    """The closest model name or provider prefix to a name no backend serves."""
    import difflib  # only when a name is wrong: commands that start fast do not load it

    provider, sep, rest = name.partition(":")
    if sep:
        close = difflib.get_close_matches(provider, sorted(set(providers)), n=1, cutoff=0.6)
        return f"{close[0]}:{rest}" if close else None
    close = difflib.get_close_matches(name, SUGGESTED_MODELS, n=1, cutoff=0.75)
    return close[0] if close else None


# --- google-adk's LiteLlm ------------------------------------------------------------------

# The names a config may give google-adk's LiteLlm class by.
LITELLM_CLASS_NAMES = frozenset(
    {"LiteLlm", "google.adk.models.LiteLlm", "google.adk.models.lite_llm.LiteLlm"}
)
LITELLM_ARGS = ("model", "api_base", "api_key", "api_version", "vertex_project", "vertex_location")


def litellm_problem(model: object) -> str | None:
    """Why ``LiteLlm(model=...)`` cannot run, or None."""
    if not isinstance(model, str) or not model:
        return "`model` must be a LiteLLM model string such as openai/gpt-4o-mini."
    provider, sep, name = model.partition("/")
    if sep and not name:
        return f"`{model}` names no model after `{provider}/`."
    if sep and provider not in LITELLM_PROVIDERS:
        return (
            f"LiteLLM provider `{provider}` is not served by yadk; it serves "
            + ", ".join(f"{p}/" for p in LITELLM_PROVIDERS)
            + "."
        )
    if provider == "vertex_ai" and not name.startswith(("gemini", "projects/")):
        return (
            f"`{model}`: yadk serves Vertex AI's Gemini models (vertex_ai/gemini-2.5-flash) and"
            " endpoint resource names (vertex_ai/projects/.../endpoints/...); partner models on"
            " Vertex (Claude, Llama, ...) are not served: use anthropic/NAME or an"
            " OpenAI-compatible provider instead."
        )
    return None
