"""Reading the value of each agent key: instructions (inline or from a file), the model, schemas,
callbacks and the ``state:`` declaration (model settings: ``_content_config``).

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from yadk._files import FileProblem, check_path, read_text
from yadk._model_names import LITELLM_ARGS, LITELLM_CLASS_NAMES, litellm_problem
from yadk.config._context import FileScope, TextSource, did_you_mean, inside
from yadk.config._refs import LoaderBase
from yadk.config._scripted import check_scripted_file
from yadk.config._trust import declared_args
from yadk.config._yaml import KeyPath
from yadk.errors import ModelError

__all__ = [
    "args_mapping",
    "args_trusted",
    "call_factory",
    "callbacks",
    "instruction",
    "litellm",
    "local_file",
    "model_code",
    "model_name",
    "read_text_file",
    "schema",
    "state_keys",
    "static_instruction",
    "yaml_repr",
]

_SCRIPT_FORMAT = "See the scripted model format in docs/models.md."


def local_file(
    reader: LoaderBase, scope: FileScope, at: KeyPath, relative: str, what: str
) -> Path | None:
    """``relative`` resolved against the config's folder, checked to exist and to stay in
    the agent folder."""
    try:
        check_path(relative)
    except FileProblem as problem:
        reader.error(scope, at, problem.rule, f"{what}: {problem.message}", problem.hint)
        return None
    path = Path(relative)
    if path.is_absolute():
        reader.error(
            scope,
            at,
            "path-absolute",
            f"{what} `{relative}` is an absolute path.",
            f"Write it relative to {scope.folder}.",
        )
        return None
    target = scope.folder / path
    try:
        os.stat(target)
    except FileNotFoundError:
        pass  # reported below, with a did-you-mean
    except OSError as exc:  # e.g. a name longer than the file system allows
        reader.error(
            scope,
            at,
            "invalid-path",
            f"{what} `{relative[:80]}`: cannot be used as a path ({exc.strerror}).",
            "Write a short relative path to a file in the agent folder.",
        )
        return None
    if not inside(target, scope.root):
        reader.error(
            scope,
            at,
            "path-outside-folder",
            f"{what} `{relative}` is outside the agent folder {scope.root}.",
            "Keep every file an agent uses inside its folder.",
        )
        return None
    if not target.exists():
        siblings = [p.name for p in target.parent.iterdir()] if target.parent.is_dir() else []
        guess = did_you_mean(target.name, siblings)
        reader.error(
            scope,
            at,
            "file-not-found",
            f"{what} `{relative}` not found (looked for {target}).",
            f"Did you mean `{guess}`?" if guess else "Paths are relative to the config file.",
        )
        return None
    return target


def read_text_file(
    reader: LoaderBase, scope: FileScope, at: KeyPath, relative: str
) -> TextSource | None:
    target = local_file(reader, scope, at, relative, "Instruction file")
    if target is None:
        return None
    try:
        text = read_text(target, kind="prompt", root=scope.root)
    except FileProblem as problem:
        reader.error(scope, at, problem.rule, problem.message, problem.hint)
        return None
    reader.files.add(target)
    return TextSource(text, file=target)


# --- instructions -----------------------------------------------------------------------


def instruction(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> TextSource | None:
    """A string, or ``{file: path}`` (yadk)."""
    if isinstance(value, str):
        return TextSource(value, scope=scope, at=at)
    if isinstance(value, dict) and "file" in value:
        reader.unknown_keys(scope, at, value, ("file",), f"`{at[-1]}`")
        path = value["file"]
        if reader.expect(scope, (*at, "file"), path, str, "a path (a string)"):
            return read_text_file(reader, scope, (*at, "file"), path)
        return None
    reader.expect(
        scope,
        at,
        value,
        str,
        "a string or a mapping `file: path`",
        "e.g. `instruction: You help with ...` or `instruction: {file: prompts/main.md}`.",
    )
    return None


def static_instruction(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> Any:
    """A string, ``{file: path}``, a Content mapping, a Part mapping or a list of parts."""
    if isinstance(value, str) or (isinstance(value, dict) and "file" in value):
        source = instruction(reader, scope, at, value)
        return None if source is None else source.text
    from pydantic import ValidationError

    from yadk.types import Content, Part

    try:
        if isinstance(value, dict) and "parts" in value:
            return Content.model_validate({"role": "user", **value})
        if isinstance(value, dict):
            return Content(role="user", parts=[Part.model_validate(value)])
        if isinstance(value, list):
            parts = [Part(text=p) if isinstance(p, str) else Part.model_validate(p) for p in value]
            return Content(role="user", parts=parts)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        reader.error(
            scope,
            at,
            "invalid-value",
            f"`static_instruction` is not valid content: {where}: {first['msg']}.",
            "Give a string, `{file: path}`, or a Content mapping `{parts: [{text: ...}]}`.",
        )
        return None
    reader.expect(
        scope,
        at,
        value,
        str,
        "a string, `{file: path}` or a Content mapping",
    )
    return None


# --- model ------------------------------------------------------------------------------


def model_name(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> Any:
    if not reader.expect(
        scope, at, value, str, "a model name (a string)", "e.g. `model: gemini-2.5-flash`."
    ):
        return None
    provider, sep, rest = value.partition(":")
    if sep and provider == "scripted" and rest:
        # A script next to the config is meant, whatever the working directory is (and, as
        # for every file a config names, inside the agent folder); the model keeps the name
        # as written, so requests look the same on every machine. The script is data, so
        # validate reads it too.
        script = local_file(reader, scope, at, rest, "Scripted model file")
        if script is None:
            return None
        reader.files.add(script)
        model = reader.scripted_models.get(script)
        if model is None:
            if script not in reader.checked_scripts:
                try:
                    reader.checked_scripts[script] = check_scripted_file(reader, script)
                except FileProblem as exc:
                    reader.error(scope, at, "scripted-invalid", exc.message, _SCRIPT_FORMAT)
                    reader.checked_scripts[script] = False
                    return None
            if not reader.checked_scripts[script]:
                return None  # reported once, at the scripted file's own lines
            if not reader.import_code:
                return str(value)  # checked without importing the engine
            try:
                from yadk.models import ScriptedModel  # the engine, only when loading

                model = ScriptedModel.from_file(script, name=value)
            except ModelError as exc:
                reader.error(
                    scope,
                    at,
                    "scripted-invalid",
                    exc.message,
                    _SCRIPT_FORMAT,
                )
                return None
            reader.scripted_models[script] = model
        return model if reader.import_code else str(value)
    return str(value)


def model_code(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> Any:
    """``{name: pkg.model}`` naming a BaseLlm instance, or a class/factory with ``args``."""
    args: Any = None
    if isinstance(value, dict) and "args" in value:
        args = args_mapping(reader, scope, (*at, "args"), value["args"])
        value = {k: v for k, v in value.items() if k != "args"}
        if args is None:
            return None
    named = reader.code_name(scope, at, value, "`model_code`")
    if named is None:
        return None
    name_at, name = named
    if name in LITELLM_CLASS_NAMES:
        return litellm(reader, scope, at, args or {})
    if args is None:
        found = reader.reference(scope, name_at, name, "model")
        return None if found is None else found.obj
    found = reader.reference(scope, name_at, name, "factory")
    if found is None or not args_trusted(reader, scope, (*at, "args"), found.name, found, args):
        return None
    return call_factory(reader, scope, at, found.name, found.obj, args)


def litellm(reader: LoaderBase, scope: FileScope, at: KeyPath, args: dict[str, Any]) -> Any:
    """google-adk's ``LiteLlm`` with ``args`` (its 1.x YAML form): yadk's backend for the
    provider the model string names (see ``yadk.models.litellm_model``)."""
    args_at = (*at, "args")
    before = reader.errors
    reader.unknown_keys(scope, args_at, args, LITELLM_ARGS, "`LiteLlm` args")
    if "model" not in args:
        reader.error(
            scope,
            at,
            "missing-field",
            "`LiteLlm` needs the argument `model`.",
            "e.g. `args: [{name: model, value: openai/gpt-4o-mini}]`.",
        )
    elif (problem := litellm_problem(args["model"])) is not None:
        reader.error(scope, (*args_at, "model"), "invalid-args", problem)
    if reader.errors != before or not reader.import_code:
        return None
    from yadk.models import litellm_model

    return litellm_model(**{k: v for k, v in args.items() if isinstance(v, str)})


# --- args and trust ---------------------------------------------------------------------


def args_mapping(
    reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any
) -> dict[str, Any] | None:
    """``args:`` as a mapping; ADK's older list of ``{name, value}`` pairs is accepted."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    if isinstance(value, list) and all(
        isinstance(item, dict) and set(item) == {"name", "value"} for item in value
    ):
        return {str(item["name"]): item["value"] for item in value}
    reader.expect(scope, at, value, dict, "a mapping of argument names to values")
    return None


def args_trusted(
    reader: LoaderBase, scope: FileScope, at: KeyPath, name: str, found: Any, args: dict[str, Any]
) -> bool:
    """Whether ``name`` may receive ``args`` (see the trust policy); reports when not."""
    if not args:
        return True
    policy = reader.trust_policy(scope)
    if policy.allows_args(name):
        return True
    declared = declared_args(found.obj) if reader.import_code else found.args
    if declared is None and not reader.import_code:
        return True  # cannot know without importing; `validate --import` checks it
    if declared is not None:
        extra = sorted(set(args) - declared)
        if not extra:
            return True
        reader.error(
            scope,
            (*at, extra[0]),
            "args-not-allowed",
            f"`{name}` does not accept {', '.join(f'`{k}`' for k in extra)} from YAML.",
            f"It declares yadk_config_args = {sorted(declared)}; add the name there if it is "
            "safe to take from a config.",
            key=True,
        )
        return False
    reader.error(
        scope,
        at,
        "args-not-allowed",
        f"`{name}` may not receive `args` from YAML: it does not declare which arguments are safe.",
        'Declare them on the class or function (`yadk_config_args = {"arg", ...}`), or '
        f'trust it in pyproject.toml: [tool.yadk] allow_args = ["{name}"].',
    )
    return False


def call_factory(
    reader: LoaderBase, scope: FileScope, at: KeyPath, name: str, factory: Any, args: dict[str, Any]
) -> Any:
    if not reader.import_code:
        return None
    try:
        return factory(**args)
    except Exception as exc:
        reader.error(
            scope,
            at,
            "invalid-args",
            f"`{name}(**args)` failed: {type(exc).__name__}: {exc}.",
            "Check the names and values under `args:`.",
        )
        return None


# --- small fields -----------------------------------------------------------------------


def callbacks(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> list[Any] | None:
    """A list of ``{name: dotted}`` (or strings), in order."""
    if not reader.expect(
        scope,
        at,
        value,
        list,
        "a list of callbacks",
        f"e.g. `{at[-1]}: [{{name: my_agent.callbacks.fn}}]`.",
    ):
        return None
    found: list[Any] = []
    ok = True
    for index, item in enumerate(value):
        named = reader.code_name(scope, (*at, index), item, "a callback")
        resolved = (
            None if named is None else reader.reference(scope, named[0], named[1], "callback")
        )
        ok = ok and resolved is not None
        if resolved is not None:
            found.append(resolved.obj)
    return found if ok else None


def schema(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> Any:
    named = reader.code_name(scope, at, value, f"`{at[-1]}`")
    if named is None:
        return None
    found = reader.reference(scope, named[0], named[1], "schema")
    return None if found is None else found.obj


def state_keys(reader: LoaderBase, scope: FileScope, at: KeyPath, value: Any) -> list[str] | None:
    """``state:`` as a list of keys or a mapping of key to description."""
    from yadk.templating import is_valid_state_name

    if not reader.expect(
        scope,
        at,
        value,
        (list, dict),
        "a list of state keys or a mapping of key to description",
        "e.g. `state: {customer_name: set by the intake agent}`.",
    ):
        return None
    keys: list[str] = []
    entries = list(enumerate(value)) if isinstance(value, list) else [(k, k) for k in value]
    for where, key in entries:
        place = (*at, where)
        if not isinstance(key, str) or not is_valid_state_name(key):
            shown = key if isinstance(key, str) else yaml_repr(key)
            reader.error(
                scope,
                place,
                "invalid-value",
                f"`{shown}` is not a valid state key.",
                "A key is an identifier, optionally prefixed with app:, user: or temp:.",
                key=isinstance(value, dict),
            )
            continue
        keys.append(key)
    return keys


def yaml_repr(value: Any) -> str:
    return "null" if value is None else str(value)
