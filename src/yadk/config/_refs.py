"""Code references with an expected kind: "this dotted name must be a callback / an agent / ...".

Each expectation answers twice: from the imported object (loading, ``validate --import``) and
from the kind the source shows (``validate`` without imports), so both modes report the same
mistake with the same rule.

Engine imports are inside the functions that build objects, off ``import yadk.config``
and ``yadk validate`` (see the package docstring).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from yadk._paths import display_path
from yadk.config._context import AgentRecord, FileScope, Reporter
from yadk.config._names import NameProblem, NameResolver, Resolution, describe, qualify
from yadk.config._pyproject import effective_trust_policy
from yadk.config._reach import CodeSource, unreachable
from yadk.config._trust import TrustPolicy, blocked_module
from yadk.config._yaml import KeyPath

__all__ = ["Expect", "LoaderBase", "expect", "untrusted_message"]

# (check of an imported object, kinds the static check rejects, what was expected)
Expect = tuple[Callable[[Any], bool], frozenset[str], str]


def _callback(obj: Any) -> bool:
    return callable(obj) and not inspect.isclass(obj) and not inspect.ismodule(obj)


def _agent_instance(obj: Any) -> bool:
    from yadk.agents import BaseAgent

    return isinstance(obj, BaseAgent)


def _agent_class(obj: Any) -> bool:
    from yadk.agents import BaseAgent

    return inspect.isclass(obj) and issubclass(obj, BaseAgent)


def _schema(obj: Any) -> bool:
    from pydantic import BaseModel

    return inspect.isclass(obj) and issubclass(obj, BaseModel)


def _model(obj: Any) -> bool:
    from yadk.models import BaseLlm

    return isinstance(obj, BaseLlm)


def _factory(obj: Any) -> bool:
    return callable(obj) and not inspect.ismodule(obj)


def _anything(obj: Any) -> bool:
    return not inspect.ismodule(obj)


expect: dict[str, Expect] = {
    "callback": (_callback, frozenset({"class", "module"}), "a function"),
    "agent": (
        _agent_instance,
        frozenset({"class", "function", "module"}),
        "an agent instance (e.g. `my_agent = LlmAgent(...)`)",
    ),
    "agent_class": (_agent_class, frozenset({"function", "module"}), "a BaseAgent subclass"),
    "schema": (_schema, frozenset({"function", "module"}), "a pydantic BaseModel subclass"),
    "model": (_model, frozenset({"class", "function", "module"}), "a BaseLlm instance"),
    "factory": (_factory, frozenset({"module"}), "a class or function"),
    "object": (_anything, frozenset({"module"}), "an object"),
}

_WRONG_KIND_HINTS = {
    "agent": "Reference an agent instance, or name a class in `agent_class` instead.",
    "callback": "Reference a function defined at the top level of a module.",
    "schema": "Reference a class that subclasses pydantic.BaseModel.",
    "model": "Reference a BaseLlm instance built in code, or use `model: <name>` instead.",
}


def adk_origin(obj: Any) -> str | None:
    """``google.adk...Class`` when ``obj`` is a google-adk object, class, or subclass of one."""
    classes = obj.__mro__ if isinstance(obj, type) else type(obj).__mro__
    for cls in classes:
        module = getattr(cls, "__module__", "") or ""
        if module == "google.adk" or module.startswith(("google.adk.", "google.genai.")):
            return f"{module}.{cls.__qualname__}"
    return None


def adk_object_problem(name: str, obj: Any, expected: str) -> tuple[str, str] | None:
    """The message and hint for a config naming a google-adk object where yadk expects its own."""
    origin = adk_origin(obj)
    if origin is None:
        return None
    short = origin.rsplit(".", 1)[-1]
    if isinstance(obj, type) and f"{obj.__module__}.{obj.__qualname__}" != origin:
        what = f"a subclass of google-adk's `{short}` (`{origin}`)"
    elif isinstance(obj, type):
        what = f"google-adk's class `{short}` (`{origin}`)"
    else:
        what = f"a google-adk `{short}` object (`{origin}`)"
    yadk_name = {
        "LlmAgent": "yadk.LlmAgent",
        "Agent": "yadk.Agent",
        "BaseAgent": "yadk.agents.BaseAgent",
        "SequentialAgent": "yadk.SequentialAgent",
        "ParallelAgent": "yadk.ParallelAgent",
        "LoopAgent": "yadk.LoopAgent",
        "ExampleTool": "yadk.tools.ExampleTool",
        "FunctionTool": "yadk.tools.FunctionTool",
        "AgentTool": "yadk.tools.AgentTool",
        "BaseTool": "yadk.tools.BaseTool",
        "BaseToolset": "yadk.tools.BaseToolset",
        "McpToolset": "yadk.tools.McpToolset",
        "BaseLlm": "yadk.models.BaseLlm",
    }.get(short)
    instead = f"`{yadk_name}` (google-adk's arguments)" if yadk_name else "yadk's equivalent"
    return (
        f"`{name}` is {what}, expected {expected}: yadk runs its own objects, not google-adk's.",
        f"Build it with {instead} in that module, or name it in YAML "
        "(e.g. a sub-agent `config_path:`, a built-in tool `name:`).",
    )


def untrusted_message(
    found: Resolution, refused: CodeSource, policy: TrustPolicy, *, agent_folder: Path
) -> tuple[str, str]:
    """The message and hint of an ``untrusted-reference``: what was refused, and the setting
    that would allow it."""
    top = refused.module.split(".", 1)[0]
    relative = refused.module.replace(".", "/") + ".py"
    own = next(
        (
            candidate
            for candidate in (agent_folder / relative, agent_folder.parent / relative)
            if candidate.is_file()
            and (candidate.parent == agent_folder or agent_folder in candidate.parents)
        ),
        None,
    )
    if refused == found.named and refused.file and own is not None:
        # Another agent folder's module of the same name was imported first (one process
        # serving several agents): its code is not this agent's.
        if "." not in refused.module:
            fix = (
                f"Write the name relative to this config (`.{found.name}`), or give the module a"
                " name no other agent folder uses."
            )
        else:
            fix = (
                f"Give this agent folder (the package `{top}`) a name no other agent folder"
                " loaded in this process uses."
            )
        return (
            f"`{found.name}` names the module `{refused.module}`, which this process finds at"
            f" {display_path(refused.file)}, not this agent folder's {display_path(own)}: agent"
            " folders cannot share a"
            " module name.",
            fix,
        )
    if top == "yadk":
        return (
            f"`{found.name}` is in `{refused.module}`, which configs cannot reach: only yadk's"
            " public built-ins are (yadk, yadk.tools, yadk.agents, yadk.models, yadk.examples, ...).",
            "Use the built-in by its short name (e.g. `exit_loop`, `ExampleTool`), or wrap what you"
            " need in a function in your agent folder.",
        )
    if refused == found.named:
        what = f"`{found.name}` is in `{refused.module}`"
    else:
        what = f"`{found.name}` is defined in `{refused.module}`"
    where = f" ({display_path(policy.source)})" if policy.source is not None else ""
    return (
        f"{what}, which this config may not reach: configs reach only the agent folder's own"
        " modules, yadk's built-ins and modules the project trusts.",
        f"If you trust `{top}` with what a config (and a model calling its tools) may do, add"
        f' `trusted_modules = ["{top}"]` under [tool.yadk] in the project root\'s'
        f" pyproject.toml{where} or run `yadk --trust {top} ...`; for the project's own packages,"
        " `trust_project = true`.",
    )


_ADK_CHECKED = "_yadk_adk_checked"


def check_adk_imports(reporter: Reporter, file: Path) -> None:
    """Report (once per file) imports from google-adk / google-genai that yadk's compatibility
    shim does not provide (when the shim is on; with it off, google-adk's own modules load)."""
    from yadk.adk_compat import shim_active, unprovided_imports_in

    checked: set[Path] = reporter.__dict__.setdefault(_ADK_CHECKED, set())
    if file in checked or file.suffix != ".py" or not shim_active():
        return
    checked.add(file)
    for found in unprovided_imports_in(file):
        reporter.report(
            file,
            found.line,
            found.column,
            "adk-import",
            found.reason,
            "Import what yadk offers instead (yadk's own API, or a google.adk name the shim"
            " serves: see docs/adk_compat.md).",
        )


class LoaderBase(Reporter):
    """What one load shares: the problems found (it is the reporter), the files read, the
    caches, and the checks every reference passes. The reader functions of the other modules
    (``tools``, ``instruction``, ``agent_reference``, ...) take it as their first argument; the
    ``Loader`` adds reading a file."""

    def __init__(self, root: Path, *, import_code: bool) -> None:
        super().__init__()
        self.root = root
        self.import_code = import_code
        self.resolver = NameResolver(import_code=import_code, search_dirs=[root, root.parent])
        self.separate_trees: list[AgentRecord] = []
        # Where a referenced agent could not be read: the tree is incomplete, so the dataflow
        # check must not claim that keys it would have written are never written.
        self.missing_agents: list[tuple[Path, int, int]] = []
        self.agent_files: dict[str, Path] = {}
        self.stack: list[Path] = []  # the config files being read, outermost first
        self.files: set[Path] = set()
        self._policies: dict[Path, TrustPolicy] = {}
        self._trust_reported: set[tuple[Path, int, int, str]] = set()
        # One ScriptedModel per script file per load: agents naming the same script share its
        # turns, as one conversation.
        self.scripted_models: dict[Path, Any] = {}
        self.checked_scripts: dict[Path, bool] = {}  # scripted model files: checked, and ok?
        self.app_spec: Any = None  # what the root folder's app.yaml declares (_app_config)
        # Problems located in Python files, reported once: (path, line, col, message) -> index.
        self._code_problems: dict[
            tuple[str, int, int, str], tuple[int, list[tuple[str, int, int]]]
        ] = {}

    def load_file(self, file: Path) -> AgentRecord | None:
        """The agent defined by ``file``; the ``Loader``'s."""
        raise NotImplementedError

    def trust_policy(self, scope: FileScope) -> TrustPolicy:
        """The trust policy for a config: the project root's, narrowed by nested pyproject.toml
        files (see ``yadk.config._trust``). Its problems are reported once per load."""
        cached = self._policies.get(scope.folder)
        if cached is None:
            cached, problems = effective_trust_policy(scope.folder)
            for problem in problems:
                key = (problem.path, problem.line, problem.column, problem.message)
                if key in self._trust_reported:
                    continue
                self._trust_reported.add(key)
                self.report(
                    problem.path,
                    problem.line,
                    problem.column,
                    problem.rule,
                    problem.message,
                    problem.hint,
                    severity="warning" if problem.severity == "warning" else "error",
                )
            self._policies[scope.folder] = cached
        return cached

    def reference(
        self, scope: FileScope, at: KeyPath, name: str, kind: str, *, unresolved_prefix: str = ""
    ) -> Resolution | None:
        """Resolve ``name`` and check it is of ``kind`` (a key of ``expect``); None on error.

        ``unresolved_prefix`` starts the message when the name does not resolve (for errors
        whose wording google-adk fixes, such as example providers').
        """
        if self.import_code:
            from yadk.adk_compat import install

            install()  # code written for google-adk imports its types; see yadk.adk_compat
        qualified = qualify(name, scope.package)
        if (
            self.import_code
            and blocked_module(qualified) is None
            and not qualified.startswith("google.adk.")  # refused by name when resolved
        ):
            # Judge the module a name is written under before importing it: importing an
            # untrusted module would run its top-level code.
            named = self.resolver.named_source(name, package=scope.package)
            if named is not None and not self.reachable(
                scope, at, Resolution(qualified, named=named)
            ):
                return None
        try:
            found = self.resolver.resolve(name, package=scope.package)
        except NameProblem as problem:
            if problem.source is not None and not scope.doc.is_invalid(at):
                self.code_problem(scope, at, problem)
            else:
                message = unresolved_prefix + problem.message
                self.error(scope, at, problem.rule, message, problem.hint)
            return None
        if not self.reachable(scope, at, found):
            return None
        if found.file is not None:
            check_adk_imports(self, Path(found.file))
        if found.warning is not None:
            self.warn(scope, at, "unproven-origin", *found.warning)
        check, static_rejects, expected = expect[kind]
        if self.import_code:
            wrong = not check(found.obj)
            got = describe(found.obj)
        else:
            wrong = found.kind in static_rejects
            got = {"class": "a class", "function": "a function", "module": "a module"}.get(
                found.kind, "a value"
            )
        if wrong:
            adk = adk_object_problem(found.name, found.obj, expected) if self.import_code else None
            if adk is not None:
                self.error(scope, at, "adk-object", *adk)
                return None
            self.error(
                scope,
                at,
                "wrong-kind",
                f"`{found.name}` is {got}, expected {expected}.",
                _WRONG_KIND_HINTS.get(kind, ""),
            )
            return None
        return found

    def code_execution_allowed(
        self, scope: FileScope, at: KeyPath, kind: str, *, rule: str, message: str, alternative: str
    ) -> bool:
        """Whether the project lets configs run code of ``kind`` on this machine (one opt-in
        for every kind: ``allow_code_execution`` under [tool.yadk], ``--allow-code-execution``);
        reports a located error naming the setting when not."""
        if self.trust_policy(scope).allows_code_execution(kind):
            return True
        self.error(
            scope,
            at,
            rule,
            message,
            f"If this project trusts its configs to run code, add `allow_code_execution ="
            f' ["{kind}"]` (or `true`) under [tool.yadk] in the project root\'s pyproject.toml,'
            f" or pass `yadk --allow-code-execution {kind} ...`; {alternative}",
            key=True,
        )
        return False

    def reachable(self, scope: FileScope, at: KeyPath, found: Resolution) -> bool:
        """Whether the trust policy lets the config reach ``found``; reports when not."""
        named, origin = found.named, found.origin
        if named is None:
            return True
        if self.import_code and adk_origin(found.obj) is not None:
            # google-adk's own classes and objects are refused, with a message that says so, by
            # the checks of what each reference expects (rule `adk-object`).
            origin = None
        policy = self.trust_policy(scope)
        refused = unreachable(
            named,
            origin,
            qualified_name=found.name,
            agent_folder=scope.root,
            policy=policy,
        )
        if refused is None:
            return True
        self.error(
            scope,
            at,
            "untrusted-reference",
            *untrusted_message(found, refused, policy, agent_folder=scope.root),
        )
        return False

    def code_problem(self, scope: FileScope, at: KeyPath, problem: NameProblem) -> None:
        """Report a problem in a Python file (a module that fails to import) once, at its own
        line, the config lines that reference it gathered in the note: editors and CI
        annotations then point at the line to fix."""
        assert problem.source is not None
        path, line, column = problem.source
        key = (path, line, column, problem.message)
        if key not in self._code_problems:
            self._code_problems[key] = (len(self.diagnostics), [])
            self.report(path, line, column, problem.rule, problem.message, problem.hint)
        else:
            self.errors += 1  # this reference failed too, for callers that count failed steps
        index, references = self._code_problems[key]
        references.append((str(scope.file), *scope.doc.where(at)))
        shown = [f"{display_path(f)}:{ln}:{col}" for f, ln, col in sorted(set(references))]
        note = "referenced from " + ", ".join(shown)
        self.diagnostics[index] = dataclasses.replace(self.diagnostics[index], note=note)

    def code_name(
        self, scope: FileScope, at: KeyPath, value: Any, what: str
    ) -> tuple[KeyPath, str] | None:
        """The dotted name of a code reference written ``name: x`` or as a plain string."""
        if isinstance(value, str):
            return at, value
        if isinstance(value, dict):
            self.unknown_keys(scope, at, value, ("name",), what)
            if "name" not in value:
                self.error(
                    scope,
                    at,
                    "missing-field",
                    f"{what[:1].upper() + what[1:]} needs `name`, the dotted name of the object.",
                    "e.g. `name: my_agent.callbacks.log_request`.",
                )
                return None
            if self.expect(scope, (*at, "name"), value["name"], str, "a dotted name (a string)"):
                return (*at, "name"), value["name"]
            return None
        self.expect(
            scope,
            at,
            value,
            (str, dict),
            "a dotted name or a mapping with `name`",
            "e.g. `- name: my_agent.callbacks.log_request`.",
        )
        return None
