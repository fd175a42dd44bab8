"""``code_executor:`` on an LlmAgent (a yadk addition: google-adk 2.13's YAML rejects the key).

Only ``BuiltInCodeExecutor`` is accepted: Gemini runs the code in Google's sandbox. google-adk's
executors that run model-written code on this machine or in a container are not provided, and
naming one is a located error rather than a silent downgrade.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

from typing import Any

from yadk._model_names import is_gemini_model
from yadk.config._context import FileScope
from yadk.config._refs import LoaderBase
from yadk.config._yaml import KeyPath

__all__ = ["read_code_executor"]

_BUILT_IN = frozenset(
    {
        "BuiltInCodeExecutor",
        "google.adk.code_executors.BuiltInCodeExecutor",
        "google.adk.code_executors.built_in_code_executor.BuiltInCodeExecutor",
        "yadk.code_executors.BuiltInCodeExecutor",
    }
)
# google-adk 2.13's other executors: all run model-written code somewhere yadk does not manage.
_NOT_PROVIDED = frozenset(
    {
        "AgentEngineSandboxCodeExecutor",
        "CloudRunSandboxCodeExecutor",
        "ContainerCodeExecutor",
        "GkeCodeExecutor",
        "UnsafeLocalCodeExecutor",
        "VertexAiCodeExecutor",
    }
)
_HINT = (
    "Write `code_executor: BuiltInCodeExecutor` with a Gemini model (the model runs the code in"
    " Google's sandbox), or give the agent a function tool that does the computation you need."
)


def read_code_executor(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> Any:
    """The agent's executor (a ``BuiltInCodeExecutor``), or ``None`` after reporting why not."""
    name_at = at
    if isinstance(value, dict):
        reader.unknown_keys(scope, at, value, ("name",), "`code_executor`")
        name_at = (*at, "name")
        value = value.get("name")
    if not reader.expect(
        scope, name_at, value, str, "an executor name", "e.g. `code_executor: BuiltInCodeExecutor`."
    ):
        return None
    short = value.rsplit(".", 1)[-1]
    if short in _NOT_PROVIDED:
        reader.error(
            scope,
            name_at,
            "unsupported-code-executor",
            f"`{short}` runs model-written code outside the model; yadk does not provide it"
            " (only BuiltInCodeExecutor, where Gemini runs the code).",
            _HINT,
        )
        return None
    if value not in _BUILT_IN:
        reader.error(
            scope,
            name_at,
            "invalid-value",
            f"`code_executor` must name BuiltInCodeExecutor, got `{value}`.",
            _HINT,
        )
        return None
    if not _gemini_or_unknown(scope):
        model = scope.doc.data.get("model")
        reader.error(
            scope,
            name_at,
            "gemini-only-tool",
            f"Code execution (BuiltInCodeExecutor) runs inside Gemini models; model `{model}`"
            " cannot use it.",
            "Use a Gemini model (`model: gemini-2.5-flash`, any `gemini-*`), or remove"
            " `code_executor`.",
        )
        return None
    if not reader.import_code:
        return None  # validate checks the file; the engine is not loaded
    from yadk.code_executors import BuiltInCodeExecutor

    return BuiltInCodeExecutor()


def _gemini_or_unknown(scope: FileScope) -> bool:
    data = scope.doc.data
    model = data.get("model") if isinstance(data, dict) else None
    return not isinstance(model, str) or "${" in model or is_gemini_model(model)
