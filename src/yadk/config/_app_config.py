"""``app.yaml`` beside ``root_agent.yaml`` (a yadk addition): the settings of google-adk's
``App`` written declaratively, read key by key through one table (``APP_KEYS``).

    name: shop
    plugins:
      - name: LoggingPlugin                     # a built-in, by google-adk's name
      - name: my_agents.plugins.AuditPlugin     # a dotted name, args under the trust policy
        args: {level: full}
      - name: company_guard                     # an installed plugin (entry-point group yadk.plugins)
    events_compaction_config: {compaction_interval: 5, overlap_size: 1}
    context_cache_config: {ttl_seconds: 600}
    resumability_config: {is_resumable: true}
    budget:                                     # a yadk addition: token and cost limits
      max_tokens_per_invocation: 20000
      max_cost: 0.5
      prices: {"*": {input_per_million: 0.3, output_per_million: 2.5}}

Every problem is located (file, line, column) with a did-you-mean, in ``yadk validate`` as at
load. Without ``import_code`` nothing is built: names are checked against sources and the
entry points' names.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yadk._files import FileProblem, confine
from yadk._model_names import backend_for
from yadk.config._app_settings import AppKey, budget_prices, settings_reader, summarizer_name
from yadk.config._context import FileScope, did_you_mean
from yadk.config._fields import args_mapping, args_trusted, call_factory
from yadk.config._refs import LoaderBase
from yadk.config._yaml import KeyPath

__all__ = [
    "APP_FILE_NAMES",
    "APP_KEYS",
    "BUILTIN_PLUGINS",
    "AppSpec",
    "app_file",
    "build_app",
    "plugin_entry_points",
    "read_app_file",
]

APP_FILE_NAMES = ("app.yaml", "app.yml")
ENTRY_POINT_GROUP = "yadk.plugins"

# google-adk's built-in plugins: the arguments each takes from YAML (data only; a callable
# argument such as ContextFilterPlugin's custom_filter is for Python).
BUILTIN_PLUGINS: dict[str, tuple[str, ...]] = {
    "LoggingPlugin": ("name",),
    "DebugLoggingPlugin": (
        "name",
        "output_path",
        "include_session_state",
        "include_system_instruction",
    ),
    "GlobalInstructionPlugin": ("global_instruction", "name"),
    "ContextFilterPlugin": ("num_invocations_to_keep", "remove_amount", "name"),
    "ReflectAndRetryToolPlugin": (
        "name",
        "max_retries",
        "throw_exception_if_retry_exceeded",
        "tracking_scope",
    ),
    "SaveFilesAsArtifactsPlugin": ("name", "attach_file_reference"),
}
# Other spellings of the built-ins: yadk's and google-adk's module paths.
_BUILTIN_SPELLINGS = {
    **{f"yadk.apps.{name}": name for name in BUILTIN_PLUGINS},
    **{f"google.adk.plugins.{name}": name for name in BUILTIN_PLUGINS},
    "google.adk.plugins.logging_plugin.LoggingPlugin": "LoggingPlugin",
    "google.adk.plugins.debug_logging_plugin.DebugLoggingPlugin": "DebugLoggingPlugin",
    "google.adk.plugins.global_instruction_plugin.GlobalInstructionPlugin": (
        "GlobalInstructionPlugin"
    ),
    "google.adk.plugins.context_filter_plugin.ContextFilterPlugin": "ContextFilterPlugin",
    "google.adk.plugins.reflect_retry_tool_plugin.ReflectAndRetryToolPlugin": (
        "ReflectAndRetryToolPlugin"
    ),
    "google.adk.plugins.save_files_as_artifacts_plugin.SaveFilesAsArtifactsPlugin": (
        "SaveFilesAsArtifactsPlugin"
    ),
}


@dataclasses.dataclass
class AppSpec:
    """What an app.yaml says: ``settings`` are ``App`` keyword arguments (built objects when
    the load imports code, else ``None`` placeholders)."""

    file: Path
    name: str | None = None
    settings: dict[str, Any] = dataclasses.field(default_factory=dict)


def app_file(folder: Path) -> Path | None:
    """The app.yaml of an agent folder, if it has one."""
    for name in APP_FILE_NAMES:
        if (folder / name).is_file():
            return folder / name
    return None


def read_app_file(
    reader: LoaderBase, file: Path, models: Sequence[tuple[str, str]] = ()
) -> AppSpec | None:
    """The settings ``file`` declares; every problem goes to ``reader``. ``models``, the
    ``(agent, model:)`` pairs of the agent tree, are given by ``yadk validate``, for the
    warnings a load leaves to the App it builds."""
    document = reader.read_document(file, reader.files)
    if document is None:
        return None
    scope = FileScope(document, file.parent)
    if not reader.expect(scope, (), document.data, dict, "a mapping of app settings"):
        return None
    spec = AppSpec(file)
    reader.unknown_keys(scope, (), document.data, tuple(APP_KEYS), "app.yaml")
    for key, value in document.data.items():
        read = APP_KEYS.get(key)
        if read is not None:
            spec.settings[key] = read(reader, scope, (key,), value)
    spec.name = spec.settings.pop("name", None)
    if spec.settings.get("context_cache_config") is not None:
        _uncached_models(reader, scope, models)
    return spec


def _uncached_models(
    reader: LoaderBase, scope: FileScope, models: Sequence[tuple[str, str]]
) -> None:
    """Context caching is Gemini's: one warning naming the agents whose model is another
    backend's (their calls go out whole). ``yadk validate`` reports it here, located; a load
    builds the App, which says the same once, in the log."""
    others = [
        f"{agent} ({model})"
        for agent, model in models
        if backend_for(model) not in (None, "gemini")
        # LiteLLM names that may run on the Gemini backend (vertex_ai/ does) are not named
        and not model.split(":", 1)[-1].startswith(("vertex_ai/", "gemini/"))
    ]
    if others:
        reader.warn(
            scope,
            ("context_cache_config",),
            "cache-not-gemini",
            "context_cache_config applies to Gemini models only; these agents' calls are not"
            f" cached: {', '.join(others)}.",
            "Nothing to fix if that is expected; caching applies to the Gemini agents only.",
        )


def build_app(spec: AppSpec | None, agent: Any, *, default_name: str) -> Any:
    """The ``App`` for ``agent`` with ``spec``'s settings (``default_name``, the folder's name,
    when app.yaml names none, or there is no app.yaml)."""
    from yadk.apps import App

    settings = {k: v for k, v in (spec.settings if spec else {}).items() if v is not None}
    name = (spec.name if spec else None) or default_name
    return App(name=name, root_agent=agent, **settings)


# --- the keys ---------------------------------------------------------------------------------


def _name(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> Any:
    if not reader.expect(scope, at, value, str, "an app name (a string)"):
        return None
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", value) or value == "user":
        reader.error(
            scope,
            at,
            "invalid-name",
            f"`{value}` is not a valid app name.",
            "Start with a letter and use only letters, digits, `_` and `-` (`user` is reserved).",
        )
        return None
    return value


def _plugins(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> Any:
    if not reader.expect(
        scope, at, value, list, "a list of plugins", "e.g. `plugins: [{name: LoggingPlugin}]`."
    ):
        return None
    built: list[Any] = []
    names: dict[str, KeyPath] = {}
    for index, entry in enumerate(value):
        plugin = _plugin(reader, scope, (*at, index), entry)
        if plugin is None:
            continue
        name = getattr(plugin, "name", None)
        if isinstance(name, str) and name in names:
            reader.error(
                scope,
                (*at, index),
                "duplicate-plugin",
                f"Two plugins are named `{name}`; plugin names must be unique in an app.",
                "Give one of them another name: `args: {name: other_name}`.",
            )
            continue
        if isinstance(name, str):
            names[name] = (*at, index)
        built.append(plugin)
    return built if reader.import_code else None


def _plugin(reader: LoaderBase, scope: FileScope, at: KeyPath, entry: Any) -> Any:
    named_entry = entry
    if isinstance(entry, dict):
        reader.unknown_keys(scope, at, entry, ("name", "args"), "a plugin entry")
        named_entry = {k: v for k, v in entry.items() if k == "name"}
    named = reader.code_name(scope, at, named_entry, "a plugin")
    if named is None:
        return None
    name_at, name = named
    args_at = (*at, "args")
    args = args_mapping(
        reader, scope, args_at, entry.get("args") if isinstance(entry, dict) else None
    )
    if args is None:
        return None
    builtin = _BUILTIN_SPELLINGS.get(name, name if name in BUILTIN_PLUGINS else None)
    if builtin is not None:
        return _builtin(reader, scope, args_at, builtin, args)
    if "." not in name:
        return _installed(reader, scope, name_at, args_at, name, args)
    found = reader.reference(scope, name_at, name, "object")
    if found is None:
        return None
    if not reader.import_code:
        args_trusted(reader, scope, args_at, found.name, found, args)
        return None
    obj = found.obj
    if not isinstance(obj, type) and _is_plugin(obj):
        if args:
            reader.error(
                scope,
                args_at,
                "invalid-args",
                f"`{found.name}` is already a plugin, so it cannot take `args`.",
                "Remove `args:`, or reference the plugin's class.",
            )
            return None
        return obj
    if not callable(obj) or not args_trusted(reader, scope, args_at, found.name, found, args):
        if not callable(obj):
            _not_a_plugin(reader, scope, name_at, found.name, obj)
        return None
    made = call_factory(reader, scope, args_at, found.name, obj, args)
    if made is not None and not _is_plugin(made):
        _not_a_plugin(reader, scope, name_at, f"{found.name}(**args)", made)
        return None
    return made


def _builtin(
    reader: LoaderBase, scope: FileScope, at: KeyPath, name: str, args: dict[str, Any]
) -> Any:
    before = reader.errors
    reader.unknown_keys(scope, at, args, BUILTIN_PLUGINS[name], f"`{name}` args")
    if "output_path" in args:
        output = _output_path(reader, scope, (*at, "output_path"), args["output_path"])
        if output is not None:
            args = {**args, "output_path": output}
    if reader.errors != before or not reader.import_code:
        return None
    import yadk.apps

    return call_factory(reader, scope, at, name, getattr(yadk.apps, name), args)


def _output_path(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> Path | None:
    """A file the plugin writes: relative to app.yaml and inside the agent folder."""
    if not reader.expect(scope, at, value, str, "a file path relative to app.yaml"):
        return None
    if os.path.isabs(value):
        reader.error(
            scope,
            at,
            "path-absolute",
            f"output_path `{value}` is an absolute path.",
            f"Write it relative to {scope.folder}.",
        )
        return None
    try:
        return confine(scope.folder / value, scope.root)
    except FileProblem as problem:
        reader.error(scope, at, problem.rule, f"output_path: {problem.message}", problem.hint)
        return None


def plugin_entry_points() -> dict[str, Any]:
    """The installed plugins: entry points of the ``yadk.plugins`` group, by name (not
    loaded)."""
    from importlib_metadata import entry_points

    return {entry.name: entry for entry in entry_points(group=ENTRY_POINT_GROUP)}


def _installed(
    reader: LoaderBase,
    scope: FileScope,
    name_at: KeyPath,
    args_at: KeyPath,
    name: str,
    args: dict[str, Any],
) -> Any:
    """A plugin a package installed under the ``yadk.plugins`` entry-point group. Installing it
    is the trust: it may take ``args``."""
    installed = plugin_entry_points()
    entry = installed.get(name)
    if entry is None:
        known = [*BUILTIN_PLUGINS, *sorted(installed)]
        guess = did_you_mean(name, known)
        reader.error(
            scope,
            name_at,
            "unknown-plugin",
            f"`{name}` is neither a built-in plugin nor an installed one.",
            f"Did you mean `{guess}`?"
            if guess
            else "Built-ins: "
            + ", ".join(BUILTIN_PLUGINS)
            + (f"; installed: {', '.join(sorted(installed))}" if installed else "")
            + ". Anything else is a dotted name such as `my_agent.plugins.AuditPlugin`.",
        )
        return None
    if not reader.import_code:
        return None
    try:
        obj = entry.load()
    except Exception as exc:
        reader.error(
            scope,
            name_at,
            "plugin-load-failed",
            f"Installed plugin `{name}` ({entry.value}) failed to load:"
            f" {type(exc).__name__}: {exc}.",
            "Fix or reinstall the package that provides it, or uninstall it.",
        )
        return None
    if _is_plugin(obj) and not isinstance(obj, type):
        return obj
    made = call_factory(reader, scope, args_at, name, obj, args) if callable(obj) else obj
    if made is not None and not _is_plugin(made):
        _not_a_plugin(reader, scope, name_at, name, made)
        return None
    return made


def _is_plugin(obj: Any) -> bool:
    from yadk.apps import BasePlugin

    return isinstance(obj, BasePlugin)


def _not_a_plugin(reader: LoaderBase, scope: FileScope, at: KeyPath, name: str, obj: Any) -> None:
    reader.error(
        scope,
        at,
        "wrong-kind",
        f"`{name}` is a {type(obj).__name__}, expected a plugin (a yadk.apps.BasePlugin).",
        "Reference a BasePlugin subclass (with `args:` for its constructor) or an instance.",
    )


# One entry per app.yaml key; a new setting is one reader here.
APP_KEYS: dict[str, AppKey] = {
    "name": _name,
    "plugins": _plugins,
    "events_compaction_config": settings_reader("EventsCompactionConfig", summarizer_name),
    "context_cache_config": settings_reader("ContextCacheConfig"),
    "resumability_config": settings_reader("ResumabilityConfig"),
    # --- yadk additions ---
    "budget": settings_reader("Budget", budget_prices),
}
