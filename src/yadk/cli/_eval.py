"""``yadk eval``: run google-adk eval sets against an agent; exit 0 all passed, 1 one failed,
2 usage or input errors.

``save_evalcase`` (``yadk run --save-evalcase``) imports what it needs when called, so ``yadk
eval`` does not load the conversation code, nor ``yadk run`` all of eval's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from yadk.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    CommandError,
    agent_path,
    not_loaded,
    resolve_model_option,
)
from yadk.errors import ConfigError, YadkError
from yadk.eval import (
    agent_factory,
    check_tool_names,
    find_eval_files,
    junit_xml,
    load_targets,
    run_targets,
    text_report,
)
from yadk.reload import target_agent

if TYPE_CHECKING:
    from yadk.sessions import BaseSessionService

__all__ = ["execute", "save_evalcase"]


def execute(args: argparse.Namespace) -> int:
    if args.num_runs < 1:
        raise CommandError("--num-runs must be at least 1", exit_code=EXIT_USAGE)
    path = agent_path(args.agent)
    evalsets = args.evalsets or [str(_default_evalsets(path))]
    try:
        targets, warnings = load_targets(evalsets, config_path=args.config)
    except ConfigError as exc:
        count = sum(1 for d in exc.diagnostics if d.is_error)
        raise CommandError(
            f"{count} problem{'s' if count != 1 else ''} in the eval input; nothing was run",
            exit_code=EXIT_USAGE,
            details=[d.format() for d in exc.diagnostics],
        ) from None
    judge = None
    if args.judge_model:
        try:
            judge = resolve_model_option(args.judge_model)
        except CommandError as exc:
            exc.message = exc.message.replace("--model", "--judge-model", 1)
            exc.exit_code = EXIT_USAGE
            raise
    factory = agent_factory(path, model=args.model)
    try:
        agent = factory()
    except YadkError as exc:
        error = not_loaded(path, exc)
        error.exit_code = EXIT_USAGE
        raise error from None
    warnings = warnings + asyncio.run(check_tool_names(targets, target_agent(agent)))
    for warning in warnings:
        print(warning.format(), file=sys.stderr)
    try:
        results = asyncio.run(run_targets(factory, targets, num_runs=args.num_runs, judge=judge))
    except YadkError as exc:
        raise CommandError(f"the eval could not run: {exc.message}") from None
    rendered = {
        "text": lambda: text_report(results),
        "json": lambda: json.dumps([r.to_dict() for r in results], indent=2, ensure_ascii=False),
        "junit": lambda: junit_xml(results),
    }[args.format]()
    if args.output:
        try:
            Path(args.output).write_text(rendered + "\n", encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot write {args.output}: {exc.strerror}") from None
        if args.format != "text":
            print(text_report(results))
    else:
        print(rendered)
    return EXIT_OK if all(r.passed for r in results) else EXIT_FAILURE


def save_evalcase(
    path: str,
    sessions: BaseSessionService,
    *,
    app_name: str,
    session_id: str,
    state: dict[str, Any],
) -> None:
    """``yadk run --save-evalcase FILE``: add the session's conversation to FILE as an eval case."""
    from yadk.cli._conversation import USER_ID, note
    from yadk.eval import add_eval_case, eval_case_from_events

    session = asyncio.run(
        sessions.get_session(app_name=app_name, user_id=USER_ID, session_id=session_id)
    )
    if session is None:
        raise CommandError(f"--save-evalcase: session {session_id!r} was not found")
    case = eval_case_from_events(
        session.events, eval_id="", app_name=app_name, user_id=USER_ID, state=state
    )
    if not case["conversation"]:
        raise CommandError("--save-evalcase: the conversation has no user turns to save")
    try:
        eval_id = add_eval_case(path, case)
    except (ValueError, OSError) as exc:
        raise CommandError(f"--save-evalcase: {exc}") from None
    note(f"saved the conversation as eval case {eval_id!r} in {path}")


def _default_evalsets(agent: Path) -> Path:
    """With no EVALSET, the agent's folder: ``adk eval`` users keep eval sets beside the agent."""
    folder = agent if agent.is_dir() else agent.parent
    if not find_eval_files(folder):
        raise CommandError(
            f"no eval sets in {str(folder)!r} (no *.evalset.json or *.test.json files);"
            " give EVALSET files or folders after AGENT",
            exit_code=EXIT_USAGE,
        )
    return folder
