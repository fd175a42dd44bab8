"""Gemini's built-in tools in ``tools:``: the model they need, and google-adk's rules for
``google_search`` next to agents to transfer to.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

from typing import Any

from yadk._model_names import is_gemini_model, supports_search_with_functions
from yadk.config._context import FileScope
from yadk.config._refs import LoaderBase
from yadk.config._yaml import KeyPath

__all__ = ["gemini_only", "google_search_tool", "search_with_sub_agents"]


def google_search_tool(
    reader: LoaderBase, scope: FileScope, at: KeyPath, args: dict[str, Any]
) -> Any:
    """``GoogleSearchTool`` with google-adk's ``args`` (``bypass_multi_tools_limit``, ``model``)."""
    before = reader.errors
    if "bypass_multi_tools_limit" in args:
        reader.expect(
            scope,
            (*at, "bypass_multi_tools_limit"),
            args["bypass_multi_tools_limit"],
            bool,
            "true or false",
        )
    if args.get("model") is not None:
        reader.expect(scope, (*at, "model"), args["model"], str, "a model name (a string)")
    if not isinstance(args.get("model"), str):
        gemini_only(reader, scope, at[:-1], "GoogleSearchTool")
    bypass = args.get("bypass_multi_tools_limit") is True
    search_with_sub_agents(reader, scope, at[:-1], "GoogleSearchTool", bypass=bypass)
    if reader.errors != before or not reader.import_code:
        return None
    from yadk.tools import GoogleSearchTool

    return GoogleSearchTool(
        bypass_multi_tools_limit=bool(args.get("bypass_multi_tools_limit", False)),
        model=args.get("model"),
    )


def gemini_only(reader: LoaderBase, scope: FileScope, at: KeyPath, name: str) -> None:
    """A Gemini built-in tool on an agent whose model (as written) is not a Gemini model."""
    data = scope.doc.data
    model = data.get("model") if isinstance(data, dict) else None
    if not isinstance(model, str) or "${" in model or is_gemini_model(model):
        return
    reader.error(
        scope,
        (*at, "name") if (*at, "name") in scope.doc.values else at,
        "gemini-only-tool",
        f"`{name}` runs inside Gemini models; model `{model}` cannot use it.",
        "Use a Gemini model (`model: gemini-2.5-flash`, any `gemini-*`), or give this agent"
        " a search function tool instead.",
    )


def search_with_sub_agents(
    reader: LoaderBase, scope: FileScope, at: KeyPath, name: str, *, bypass: bool
) -> None:
    """google-adk refuses a search without ``bypass_multi_tools_limit`` on an agent with
    sub-agents when the model is before Gemini 3; say so at load instead of at run time."""
    data = scope.doc.data
    if bypass or not isinstance(data, dict) or not data.get("sub_agents"):
        return
    model = data.get("model")
    if not isinstance(model, str) or "${" in model or supports_search_with_functions(model):
        return
    reader.error(
        scope,
        (*at, "name") if (*at, "name") in scope.doc.values else at,
        "search-with-sub-agents",
        f"`{name}` cannot go with the transfer to `sub_agents` on model `{model}`: Gemini"
        " models before 3 reject a built-in search together with function calls.",
        "Write the search as `name: GoogleSearchTool` with `args: {bypass_multi_tools_limit:"
        " true}` (it then runs as a search sub-agent called as a tool), or use a Gemini 3"
        " model.",
    )
