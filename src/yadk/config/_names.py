"""Dotted names in configs: checked by reading source (``validate``) or by importing (loading).

Both modes tell apart the mistakes a user can make: a module that does not exist, a module that
exists but fails to import (their own bug, reported with the line), an attribute that does not
exist (with a "did you mean"), and a blocked module. The static mode never executes user code: it
finds module files the way Python would and reads their top-level definitions with ``ast``.

What only a failed look-up needs (``pkgutil``, ``difflib``, the compatibility shim's table) is
imported inside the functions that report it.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.machinery
import importlib.util
import keyword
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yadk.config._reach import CodeSource, object_source
from yadk.config._source import Definitions, Reexport, literal_args, top_level
from yadk.config._trust import blocked_module, declared_args, origin_module

__all__ = ["NameProblem", "NameResolver", "Resolution", "describe", "qualify"]


_BLOCKED_HINT = (
    "The standard library and YAML loaders are blocked because they can run arbitrary code; "
    "wrap what you need in a function in your own agent package."
)
# How many `from x import y` hops validate follows to find where a name is defined.
_MAX_REEXPORTS = 8


class NameProblem(Exception):
    """A dotted name that cannot be used; ``rule``, ``message`` and ``hint`` for a Diagnostic.

    ``source`` is the place in a Python file the problem is at (a module that fails to import:
    the line to fix), as (path, line, column); None when the problem is the name itself.
    """

    def __init__(
        self,
        rule: str,
        message: str,
        hint: str = "",
        *,
        source: tuple[str, int, int] | None = None,
    ) -> None:
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.hint = hint
        self.source = source


@dataclasses.dataclass
class Resolution:
    """What a dotted name refers to.

    ``obj`` is the object (import mode only). ``kind`` is ``function``, ``class``, ``value``,
    ``module`` or ``unknown`` (static mode, when the source does not say). ``args`` are the
    argument names the object declares safe for YAML (``yadk_config_args``), when known.
    """

    name: str
    obj: Any = None
    kind: str = "unknown"
    args: frozenset[str] | None = None
    file: str | None = None
    warning: tuple[str, str] | None = None  # (message, hint) when its origin is unproven
    # The module the name is written under, and the one defining the object (where known): the
    # trust policy judges both (``_reach``).
    named: CodeSource | None = None
    origin: CodeSource | None = None


def qualify(name: str, package: str) -> str:
    """``name`` with a leading ``.`` made relative to ``package`` (the config folder's name)."""
    return package + name if name.startswith(".") else name


def _valid_dotted(name: str) -> bool:
    parts = name.split(".")
    return len(parts) >= 2 and all(p.isidentifier() and not keyword.iskeyword(p) for p in parts)


def describe(obj: Any) -> str:
    """A short phrase for an object's kind, for "expected X, got Y" messages."""
    if isinstance(obj, type):
        return "a class"
    if isinstance(obj, type(sys)):
        return "a module"
    if callable(obj) and hasattr(obj, "__code__"):
        return "a function"
    kind = type(obj).__name__
    return f"an {kind}" if kind[:1].lower() in "aeiou" else f"a {kind}"


class NameResolver:
    """Resolves dotted names for one load; ``search_dirs`` are the agent folders (and parents)."""

    def __init__(self, *, import_code: bool, search_dirs: Sequence[Path]) -> None:
        self.import_code = import_code
        self.search_dirs = list(dict.fromkeys(str(d) for d in search_dirs))
        self.module_files: set[str] = set()
        self._sources: dict[str, Definitions | None] = {}
        if import_code:
            for folder in self.search_dirs:
                if folder not in sys.path:
                    # Appended, not prepended: a file in the agent folder must not shadow the
                    # standard library or installed packages.
                    sys.path.append(folder)

    def add_search_dirs(self, folders: Sequence[Path]) -> None:
        """Also look for modules in ``folders`` (the folders of sub-agent configs)."""
        for folder in folders:
            text = str(folder)
            if text not in self.search_dirs:
                self.search_dirs.append(text)
                if self.import_code and text not in sys.path:
                    sys.path.append(text)

    def resolve(self, raw: str, *, package: str) -> Resolution:
        """Resolve ``raw`` (possibly relative); raises ``NameProblem``."""
        name = qualify(raw, package)
        if raw.startswith(".") and not (package.isidentifier() and not keyword.iskeyword(package)):
            fixed = "".join(c if c.isalnum() else "_" for c in package)
            raise NameProblem(
                "invalid-reference",
                f"`{raw}` is relative to the config's folder `{package}`, which is not a valid "
                "Python package name.",
                f"Rename the folder (e.g. `{fixed}`), or write the module's full dotted name.",
            )
        if not _valid_dotted(name):
            raise NameProblem(
                "invalid-reference",
                f"`{raw}` is not a dotted name.",
                "Write module.attribute, e.g. `my_agent.tools.search`, or `.tools.search` for a "
                "module next to this config.",
            )
        blocked = blocked_module(name)
        if blocked is not None:
            raise NameProblem(
                "blocked-module",
                f"`{name}` is blocked: configs cannot reference the `{blocked}` module.",
                _BLOCKED_HINT,
            )
        if name.startswith("google.adk."):
            name = _adk_equivalent(name)
        module_name, attribute = name.rsplit(".", 1)
        if self.import_code:
            return self._imported(name, module_name, attribute)
        return self._static(name, module_name, attribute)

    def named_source(self, raw: str, *, package: str) -> CodeSource | None:
        """The module ``raw`` is written under, found without importing anything (None when it
        cannot be found): what the trust policy judges before anything is imported."""
        name = qualify(raw, package)
        if not _valid_dotted(name):
            return None
        module_name = name.rsplit(".", 1)[0]
        try:
            spec = self._locate(module_name)[0]
        except (ImportError, ValueError):
            return None
        return None if spec is None else CodeSource(module_name, spec.origin)

    # --- import mode ------------------------------------------------------------------------

    def _imported(self, name: str, module_name: str, attribute: str) -> Resolution:
        module = self._import(module_name)
        file = getattr(module, "__file__", None)
        if file:
            self.module_files.add(file)
        try:
            obj = getattr(module, attribute)
        except AttributeError:
            obj = self._submodule(name)
            if obj is None:
                public = [n for n in dir(module) if not n.startswith("_")]
                raise NameProblem(
                    "attribute-not-found",
                    f"Module `{module_name}` has no attribute `{attribute}`.",
                    _did_you_mean(attribute, public, f"Names in {module_name}"),
                ) from None
        kind = (
            "module"
            if isinstance(obj, type(sys))
            else "class"
            if isinstance(obj, type)
            else "function"
            if callable(obj) and hasattr(obj, "__code__")
            else "value"
        )
        origin = origin_module(obj)
        blocked = None if origin is None else blocked_module(origin)
        if blocked is not None:
            raise NameProblem(
                "blocked-module",
                f"`{name}` is defined in `{origin}`: configs cannot reference the `{blocked}`"
                " module, whatever name it is imported under.",
                _BLOCKED_HINT,
            )
        return Resolution(
            name,
            obj,
            kind,
            declared_args(obj),
            file,
            named=CodeSource(module_name, file),
            origin=object_source(obj),
        )

    def _import(self, module_name: str) -> Any:
        try:
            return importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            missing = exc.name or ""
            if missing == module_name or module_name.startswith(missing + "."):
                raise self._not_found(module_name, missing) from None
            raise _import_failed(module_name, exc) from None
        except (Exception, SystemExit) as exc:
            raise _import_failed(module_name, exc) from None

    def _submodule(self, name: str) -> Any:
        try:
            if importlib.util.find_spec(name) is None:
                return None
            return importlib.import_module(name)
        except (Exception, SystemExit):
            return None

    def _not_found(self, module_name: str, missing: str) -> NameProblem:
        parent, _, leaf = (missing or module_name).rpartition(".")
        if parent:
            spec = self._locate(parent)[0]
            locations = list(spec.submodule_search_locations or []) if spec else []
        else:
            locations = self.search_dirs
        import pkgutil  # only a name that is not found needs the listing

        names = [m.name for m in pkgutil.iter_modules(locations)]
        where = ", ".join(self.search_dirs) or "sys.path"
        fallback = (
            f"Modules are looked up on sys.path and in the agent folders ({where}); check the "
            "spelling, or install the package."
        )
        hint = _did_you_mean(leaf, names, None) if names else ""
        return NameProblem(
            "module-not-found",
            f"No module named `{missing or module_name}`.",
            hint or fallback,
        )

    # --- static mode ------------------------------------------------------------------------

    def _static(self, name: str, module_name: str, attribute: str, *, depth: int = 0) -> Resolution:
        spec = self._find_spec(module_name)
        origin = spec.origin if spec is not None else None
        if origin and origin not in ("built-in", "frozen"):
            self.module_files.add(origin)
        here = CodeSource(module_name, origin)
        definitions = self._definitions(module_name, origin)
        if definitions is None:
            found = Resolution(name, file=origin, named=here, origin=here)
            return self._checked_origin(found, module_name, origin)
        if attribute in definitions:
            kind, node = definitions[attribute]
            if isinstance(node, Reexport):
                package = spec.submodule_search_locations is not None
                source = node.absolute(module_name, is_package=package)
                found = self._reexported(name, f"{source}.{node.name}", origin, depth)
                return dataclasses.replace(found, named=here)
            found = Resolution(
                name, kind=kind, args=literal_args(node), file=origin, named=here, origin=here
            )
            return self._checked_origin(found, module_name, origin)
        locations = spec.submodule_search_locations if spec is not None else None
        if locations:
            sub = importlib.machinery.PathFinder.find_spec(name, list(locations))
            if sub is not None:
                module = CodeSource(name, sub.origin)
                return Resolution(name, kind="module", file=origin, named=here, origin=module)
        public = [n for n in definitions if not n.startswith("_")]
        raise NameProblem(
            "attribute-not-found",
            f"Module `{module_name}` has no attribute `{attribute}`.",
            _did_you_mean(attribute, public, f"Names in {module_name}"),
        )

    def _reexported(self, name: str, target: str, origin: str | None, depth: int) -> Resolution:
        """``name`` is ``target`` imported under another module's name: judge ``target``."""
        blocked = blocked_module(target)
        if blocked is not None:
            raise NameProblem(
                "blocked-module",
                f"`{name}` is `{target}` under another name: configs cannot reference the "
                f"`{blocked}` module.",
                _BLOCKED_HINT,
            )
        module_name, _, attribute = target.rpartition(".")
        if depth < _MAX_REEXPORTS and _valid_dotted(target):
            try:
                found = self._static(target, module_name, attribute, depth=depth + 1)
            except NameProblem as problem:
                if problem.rule == "blocked-module":
                    raise
            else:
                return dataclasses.replace(found, name=name)
        # The chain cannot be followed further: judge the module it leads to by its name and,
        # when it can be found, its file.
        spec = self._locate(module_name)[0] if _valid_dotted(target) else None
        lead = CodeSource(module_name, spec.origin if spec is not None else None)
        found = Resolution(name, file=origin, origin=lead)
        return self._checked_origin(found, module_name, origin)

    def _checked_origin(
        self, found: Resolution, module_name: str, origin: str | None
    ) -> Resolution:
        """``found``, with a warning when it lies in a private module of an installed package:
        without importing, nothing proves where such an object really comes from."""
        private = next((p for p in module_name.split(".") if p.startswith("_")), None)
        if private is None or not origin or not _in_python_install(origin):
            return found
        top = module_name.split(".", 1)[0]
        found.warning = (
            f"`{found.name}` is in `{module_name}`, a private module of the installed package "
            f"`{top}`: without importing it, validate cannot prove where this object comes from"
            " (it may be the standard library under another name).",
            "Reference your own code or a package's public API; `yadk validate --import` checks"
            " the object's real origin.",
        )
        return found

    def _find_spec(self, module_name: str) -> importlib.machinery.ModuleSpec:
        spec, missing = self._locate(module_name)
        if spec is None:
            raise self._not_found(module_name, missing)
        return spec

    def _locate(self, module_name: str) -> tuple[importlib.machinery.ModuleSpec | None, str]:
        """The module's spec, found without importing anything; or None and the first part of
        the name that does not exist."""
        parts = module_name.split(".")
        spec = self._find_top(parts[0])
        for index in range(1, len(parts) + 1):
            prefix = ".".join(parts[:index])
            if index > 1:
                locations = spec.submodule_search_locations if spec is not None else None
                if locations is None:
                    return None, prefix
                spec = importlib.machinery.PathFinder.find_spec(prefix, list(locations))
            if spec is None:
                return None, prefix
        return spec, ""

    def _find_top(self, top: str) -> importlib.machinery.ModuleSpec | None:
        spec = _safe_find_spec(top)
        if spec is None:
            spec = importlib.machinery.PathFinder.find_spec(top, self.search_dirs)
        return spec

    def _definitions(self, module_name: str, origin: str | None) -> Definitions | None:
        """Top-level names of the module's source, or None when they cannot be known."""
        if module_name in self._sources:
            return self._sources[module_name]
        found: Definitions | None = None
        if origin and origin.endswith(".py"):
            try:
                source = Path(origin).read_text(encoding="utf-8")
                tree = ast.parse(source, filename=origin)
            except SyntaxError as exc:
                raise NameProblem(
                    "import-failed",
                    f"Module `{module_name}` has a syntax error: {exc.msg}.",
                    "Fix the syntax error in that file.",
                    source=(origin, exc.lineno or 1, exc.offset or 1),
                ) from None
            except (OSError, UnicodeDecodeError):
                tree = None
            if tree is not None:
                found = top_level(tree.body)
        self._sources[module_name] = found
        return found


def _safe_find_spec(name: str) -> importlib.machinery.ModuleSpec | None:
    module = sys.modules.get(name)
    if module is not None:
        return getattr(module, "__spec__", None)
    if "." in name:
        return None  # a submodule lookup would import its parent package
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def _import_failed(module_name: str, exc: BaseException) -> NameProblem:
    """The problem of a module that raised on import, located at the line that raised (the
    user's own line, not one inside a library it called)."""
    source: tuple[str, int, int] | None = None
    if isinstance(exc, SyntaxError) and exc.filename:
        source = (exc.filename, exc.lineno or 1, exc.offset or 1)
        detail = f"{type(exc).__name__}: {exc.msg}"
    else:
        frames = [
            f
            for f in traceback.extract_tb(exc.__traceback__)
            if "importlib" not in f.filename and not f.filename.startswith("<")
        ]
        own = [f for f in frames if not _in_python_install(f.filename)] or frames
        if own:
            column = (own[-1].colno or 0) + 1  # FrameSummary columns are 0-based
            source = (own[-1].filename, own[-1].lineno or 1, column)
        detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return NameProblem(
        "import-failed",
        f"Importing `{module_name}` failed: {detail}.",
        f"Fix the error in that module; `python -c 'import {module_name}'` shows the full "
        "traceback.",
        source=source,
    )


def _in_python_install(file: str) -> bool:
    real = os.path.realpath(file)
    prefixes = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    return any(real.startswith(p + os.sep) for p in prefixes)


def _did_you_mean(word: str, candidates: Sequence[str], listing: str | None) -> str:
    import difflib  # only a mistake needs a suggestion: imported then, not by every load

    close = difflib.get_close_matches(word, candidates, n=1)
    if close:
        return f"Did you mean `{close[0]}`?"
    if listing and candidates:
        shown = ", ".join(sorted(candidates)[:12])
        return f"{listing}: {shown}."
    return ""


def _adk_equivalent(name: str) -> str:
    """The yadk object a google-adk dotted name stands for (what the compatibility shim serves
    agent code under that name); ``NameProblem`` with the shim's reason when there is none."""
    from yadk.adk_compat import provided_names, unprovided_reason

    module, attribute = name.rsplit(".", 1)
    target = provided_names(module).get(attribute)
    if target is not None and not target.startswith("yadk.adk_compat"):
        return target.replace(":", ".")
    raise NameProblem(
        "adk-only",
        unprovided_reason(module, attribute)
        if target is None
        else f"`{name}` is google-adk's; yadk serves it to Python code only.",
        "Use the yadk equivalent (built-in tools by short name: ExampleTool, SkillToolset,"
        " AgentTool, exit_loop, transfer_to_agent, preload_memory, load_memory, ...) or your own"
        " code.",
    )
