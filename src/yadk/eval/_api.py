"""Evaluating an agent on eval sets: find and check the files, run the cases, score them.

``load_targets`` reads every eval set named (files, folders, ``FILE:case,case`` selections)
with its criteria, reporting every problem of every file at once as a ``ConfigError``;
``run_targets`` runs the selected cases in file order and scores them.

What only judged metrics need (``_judged``, ``_app_details``) is imported when a judge is given.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from yadk.agents import BaseAgent, LlmAgent
from yadk.config import Diagnostic, load_agent_with_sources, parse_document
from yadk.errors import ConfigError, YadkError
from yadk.eval._criteria import DEFAULT_CONFIG, EvalConfig, load_eval_config
from yadk.eval._discovery import CONFIG_FILE_NAME, find_eval_files
from yadk.eval._evalset import load_eval_set_file
from yadk.eval._inference import AgentFactory, run_case, tool_names
from yadk.eval._located import did_you_mean
from yadk.eval._metrics import EvalStatus, case_status, score_metric
from yadk.eval._model import EvalSet
from yadk.eval._results import CaseResult, EvalSetResult
from yadk.eval._rubric_coverage import missing_rubrics
from yadk.models import BaseLlm, ScriptedModel, resolve_model
from yadk.reload import RunTarget, run_target, target_agent
from yadk.tools import AgentTool

__all__ = [
    "EvalTarget",
    "agent_factory",
    "check_tool_names",
    "find_eval_files",
    "load_targets",
    "parse_selection",
    "run_targets",
]


@dataclasses.dataclass
class EvalTarget:
    """An eval set, the cases selected from it (all when empty), and its criteria."""

    eval_set: EvalSet
    eval_ids: list[str]
    config: EvalConfig


def parse_selection(spec: str) -> tuple[str, list[str]]:
    """``FILE:a,b`` -> (``FILE``, [``a``, ``b``]) as ``adk eval`` reads it; a path that exists
    as written is never split."""
    if os.path.exists(spec):
        return spec, []
    drive = len(spec) >= 3 and spec[0].isascii() and spec[0].isalpha() and spec[1] == ":"
    cut = spec.find(":", 2 if drive and spec[2] in "\\/" else 0)
    if cut == -1:
        return spec, []
    ids = spec[cut + 1 :].split(":")[0].split(",")
    return spec[:cut], [i.strip() for i in ids if i.strip()]


def _path_problem(path: Path, rule: str, message: str, hint: str = "") -> Diagnostic:
    return Diagnostic(str(path), 0, 0, rule, "error", message, hint)


def load_targets(
    specs: Sequence[str], *, config_path: str | os.PathLike[str] | None = None
) -> tuple[list[EvalTarget], list[Diagnostic]]:
    """The eval sets ``specs`` name, with their criteria, and any warnings; every error of
    every file is raised at once as a ``ConfigError``."""
    problems: list[Diagnostic] = []
    shared: EvalConfig | None = None
    configs: dict[Path, EvalConfig | None] = {}
    if config_path is not None:
        shared, found = _config(Path(os.path.abspath(config_path)), required=True)
        problems.extend(found)
    targets: list[EvalTarget] = []
    for spec in specs:
        text, ids = parse_selection(spec)
        path = Path(os.path.abspath(text))
        try:
            is_dir = stat.S_ISDIR(path.stat().st_mode)
        except OSError as exc:  # missing, or a name no file system holds (too long, ...)
            rule, message = "file-not-found", f"{path} does not exist."
            if not isinstance(exc, FileNotFoundError):
                rule, message = "file-not-readable", f"Cannot read {path}: {exc.strerror}."
            problems.append(_path_problem(path, rule, message))
            continue
        if is_dir:
            files = find_eval_files(path)
            if not files:
                problems.append(
                    _path_problem(
                        path,
                        "nothing-to-evaluate",
                        f"{path} holds no *.evalset.json or *.test.json file.",
                    )
                )
        else:  # the reader refuses anything but a regular file, saying what it is
            files = [path]
        for file in files:
            eval_set, found = load_eval_set_file(file)
            problems.extend(found)
            config = shared
            if config_path is None:
                beside = file.parent / CONFIG_FILE_NAME
                if beside not in configs:
                    configs[beside], found = _config(beside, required=False)
                    problems.extend(found)
                config = configs[beside]
            if eval_set is None:
                continue
            _check_selection(eval_set, ids, problems)
            if config is not None:
                targets.append(EvalTarget(eval_set, ids, config))
                problems.extend(missing_rubrics(config, eval_set, ids))
    errors = [d for d in problems if d.is_error]
    if errors:
        raise ConfigError(problems)
    return targets, problems


def _config(path: Path, *, required: bool) -> tuple[EvalConfig | None, list[Diagnostic]]:
    if os.path.lexists(path):  # the reader says why, if it cannot be read
        return load_eval_config(path)
    if required:
        return None, [_path_problem(path, "file-not-found", f"--config {path} does not exist.")]
    return DEFAULT_CONFIG, []


def _check_selection(eval_set: EvalSet, ids: list[str], problems: list[Diagnostic]) -> None:
    known = [case.eval_id for case in eval_set.cases]
    for eval_id in ids:
        if eval_id not in known:
            problems.append(
                _path_problem(
                    eval_set.path,
                    "unknown-eval-case",
                    f"No eval case `{eval_id}` in {eval_set.path.name}.",
                    did_you_mean(eval_id, known) if known else "",
                )
            )


def agent_factory(path: str | os.PathLike[str], *, model: str | None = None) -> AgentFactory:
    """A factory for what ``path`` runs, its App (app.yaml) or its agent tree (every agent's
    model replaced by ``model``).

    The tree is built on the first call; each later call restarts every scripted model in it
    (sub-agents and AgentTool agents included), so each case plays its script from the start
    without reading the config files again.
    """
    built: list[RunTarget] = []

    def build() -> RunTarget:
        if built:
            for llm in _models(target_agent(built[0])):
                if isinstance(llm, ScriptedModel):
                    llm.reset()
            return built[0]
        target = run_target(load_agent_with_sources(path))
        if model is not None:
            llm = resolve_model(model)
            for node in target_agent(target).walk():
                if isinstance(node, LlmAgent):
                    node.model = llm
        built.append(target)
        return target

    return build


def _models(root: BaseAgent) -> Iterator[BaseLlm]:
    """The model of every LlmAgent under ``root``, AgentTool agents included."""
    pending = [root]
    while pending:
        for node in pending.pop().walk():
            if not isinstance(node, LlmAgent):
                continue
            try:
                yield node.canonical_model
            except YadkError:
                pass  # no model: the run reports it
            pending.extend(t.agent for t in node.tools if isinstance(t, AgentTool))


async def check_tool_names(targets: Iterable[EvalTarget], agent: BaseAgent) -> list[Diagnostic]:
    """A warning for every expected tool call naming a tool the agent does not have."""
    names = await tool_names(agent)
    if names is None:
        return []
    found: list[Diagnostic] = []
    for target in targets:
        unknown = [
            call
            for case in target.eval_set.cases
            for invocation in case.conversation
            for call in invocation.tool_uses
            if call.name not in names
        ]
        if not unknown:
            continue
        path = target.eval_set.path
        text = await asyncio.to_thread(path.read_text, encoding="utf-8")
        document = parse_document(path, text, lambda *_: None)
        for call in unknown:
            at = (*call.source, "name") if call.source else ()
            if target.eval_set.file_format != "evalset" and call.source:
                at = (*call.source, "tool_name")
            line, column = document.where(at) if document is not None else (1, 1)
            found.append(
                Diagnostic(
                    str(path),
                    line,
                    column,
                    "unknown-tool",
                    "warning",
                    f"Expected tool `{call.name}` is not a tool of agent `{agent.name}`; "
                    "this call can never match.",
                    did_you_mean(call.name, sorted(names)) if names else "",
                )
            )
    return found


async def run_targets(
    factory: AgentFactory,
    targets: Sequence[EvalTarget],
    *,
    num_runs: int = 1,
    judge: BaseLlm | None = None,
    on_case: Callable[[CaseResult], None] | None = None,
) -> list[EvalSetResult]:
    """Run every selected case ``num_runs`` times, in file order, and score each run; with a
    ``judge`` model, the judged metrics yadk implements are graded by it."""
    results: list[EvalSetResult] = []
    counter = 0
    details = None
    if judge is not None:
        from yadk.eval._app_details import AppDetailsRecorder
        from yadk.eval._judged import score_judged

        details = AppDetailsRecorder()
    for target in targets:
        set_result = EvalSetResult(target.eval_set, target.config, [])
        for case in target.eval_set.select(target.eval_ids):
            for run in range(1, num_runs + 1):
                counter += 1
                outcome = await run_case(
                    factory, case, session_id=f"eval-{counter}", details=details
                )
                if outcome.error is not None:
                    status, metrics = EvalStatus.FAILED, []
                else:
                    metrics = [
                        await score_judged(metric, judge, case, outcome.actual)
                        if judge is not None and metric.kind == "judge"
                        else score_metric(metric, outcome.actual, case.conversation)
                        for metric in target.config.metrics
                    ]
                    status = case_status(metrics)
                result = CaseResult(
                    eval_set_id=target.eval_set.eval_set_id,
                    eval_id=case.eval_id,
                    run=run,
                    status=status,
                    metrics=metrics,
                    expected=case.conversation,
                    actual=outcome.actual,
                    session_id=outcome.session_id,
                    user_id=outcome.user_id,
                    error=outcome.error,
                )
                set_result.cases.append(result)
                if on_case is not None:
                    on_case(result)
        results.append(set_result)
    return results
