"""The ``yadk`` argument parser: the global options, each command's options and help, and the
argparse types that check values before a command runs.

Only this module builds parsers; ``yadk.cli`` parses a command line with them and dispatches to
the command's module. The options ``run``, ``dev``, ``serve`` and ``web`` share are declared once
here.

Every command imports this module: ``--version`` and a database URL's check import what they
need when used.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from yadk.cli._common import not_utf8

__all__ = ["build_parser"]


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Help at a fixed width, so ``--help`` reads the same in every terminal and in docs/cli.md."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, max_help_position=28, width=92)


class _VersionAction(argparse.Action):
    """``--version``, reading the package metadata only when asked (it costs an import)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from yadk._version import __version__

        print(f"yadk {__version__}")
        parser.exit()


def _subparser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    *,
    summary: str,
    description: str,
    epilog: str,
    aliases: Sequence[str] = (),
) -> argparse.ArgumentParser:
    parser = commands.add_parser(
        name,
        aliases=list(aliases),
        help=summary,
        description=description,
        epilog=epilog,
        formatter_class=_Formatter,
    )
    parser.set_defaults(command_module=f"yadk.cli._{name}")
    # Also after the command word (`yadk run agent hi --verbose`, as `adk api_server --verbose`);
    # SUPPRESS as default keeps a global `yadk -v run` from being reset by this option's
    # default; as help, it keeps the option in `yadk --help` only, where it is described once.
    parser.add_argument(
        "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
    )
    return parser


def _text(text: str) -> str:
    """An argparse type: text a database can store (undecodable bytes in argv arrive as lone
    surrogates, which no store can encode)."""
    problem = not_utf8(text, repr(text.encode("utf-8", "backslashreplace").decode()))
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def _session_id(text: str) -> str:
    """An argparse type: a session id, which also names the session's folder of artifacts."""
    text = _text(text)
    if len(text.encode("utf-8")) > _MAX_SESSION_ID_BYTES:
        raise argparse.ArgumentTypeError(
            f"a session id has at most {_MAX_SESSION_ID_BYTES} bytes (it names a folder of the"
            f" artifact store); this one has {len(text.encode('utf-8')):,}"
        )
    return text


# The longest file name most file systems hold.
_MAX_SESSION_ID_BYTES = 255


def _db_location(text: str) -> str:
    """An argparse type: a ``--db`` value; a URL that cannot be parsed (``postgres://[::1``, a
    port that is not a number) is a usage error naming it, with any password masked."""
    if "://" not in text:
        return text  # a file path (or :memory:): opening it says what is wrong, if anything
    from yadk._secrets import mask_url

    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - parsing the port is what refuses "host:abc"
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"{mask_url(text)!r} is not a valid URL ({exc}); expected e.g. postgresql://USER@HOST:5432/DB,"
            " sqlite:///PATH or a file path"
        ) from None
    scheme = parts.scheme.lower()
    if scheme not in _DB_SCHEMES:
        raise argparse.ArgumentTypeError(
            f"{mask_url(text)!r}: yadk stores sessions in SQLite or PostgreSQL, not"
            f" {parts.scheme!r}; give a file path, sqlite:///PATH, postgresql://USER@HOST:5432/DB"
            " or :memory:"
        )
    if scheme == "sqlite" and not (parts.netloc + parts.path).strip("/"):
        raise argparse.ArgumentTypeError(
            f"{text!r} names no file; give sqlite:///PATH (e.g. sqlite:///.yadk/sessions.db)"
        )
    return text


# What the stores open: SQLite files, and PostgreSQL under the names its drivers use.
_DB_SCHEMES = frozenset({"sqlite", "postgresql", "postgres"})


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds, 0 or more."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds, 0 or more, got {text!r}")
    return value


def _add_otel_option(parser: argparse.ArgumentParser) -> None:
    """``--otel``, as ``run``, ``dev``, ``serve`` and ``web`` take it (docs/tracing.md)."""
    parser.add_argument(
        "--otel",
        action="store_true",
        help="send OpenTelemetry spans over OTLP/HTTP, configured by the standard OTEL_*"
        " variables (default endpoint http://localhost:4318; also on when"
        " OTEL_EXPORTER_OTLP_ENDPOINT is set; YADK_TRACING=0 turns tracing off); needs"
        " yadk[otel]",
    )


def _add_model_option(parser: argparse.ArgumentParser) -> None:
    """``--model``, as ``run``, ``dev``, ``web`` and ``eval`` take it."""
    parser.add_argument(
        "--model",
        metavar="NAME",
        help="use this model for every agent, e.g. scripted:turns.yaml or gemini-2.5-flash",
    )


def _add_db_option(
    parser: argparse.ArgumentParser, *, metavar: str, help: str, required: bool = False
) -> None:
    """``--db``, the session store, checked as a path or URL before the command runs."""
    parser.add_argument("--db", metavar=metavar, type=_db_location, required=required, help=help)


def _add_session_options(parser: argparse.ArgumentParser, *, db_help: str) -> None:
    """The options ``run`` and ``dev`` share: the session, the model override, the output."""
    parser.add_argument("--state", metavar="JSON", help="initial session state, a JSON object")
    parser.add_argument(
        "--session-id",
        metavar="ID",
        type=_session_id,
        help="continue session ID (or start a new one with that ID)",
    )
    _add_db_option(parser, metavar="PATH_OR_URL", help=db_help)
    parser.add_argument(
        "--busy-wait",
        metavar="SECONDS",
        type=_seconds,
        default=60.0,
        help="how long a message waits while another process (yadk serve, another yadk run)"
        " has a turn running in the session (default 60)",
    )
    _add_model_option(parser)
    parser.add_argument(
        "--artifact",
        metavar="NAME=FILE",
        action="append",
        default=[],
        help="save FILE as artifact NAME in the session before the first message (repeatable)",
    )
    parser.add_argument("--json", action="store_true", help="print each event as one JSON line")
    _add_otel_option(parser)
    parser.add_argument(
        "--no-stream",
        dest="stream",
        action="store_false",
        help="print each answer whole instead of streaming its text as it arrives",
    )


def _add_run(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "run",
        summary="run an agent: one message, a replay file, or an interactive prompt",
        description=(
            "Run an agent. With MESSAGE, send that one message; with --replay, send the\n"
            "queries of a replay file; otherwise read messages from stdin, one per line,\n"
            "until EOF or 'exit'. At a terminal the prompt has line editing and a history\n"
            "per agent (.yadk/history/), and answers /state, /events [N], /request, /usage,\n"
            "/reset and /help itself. Ctrl-C cancels a running turn; at the prompt it quits."
        ),
        epilog=(
            "examples:\n"
            '  yadk run configs/support_desk "Where is my order A-1001?"\n'
            "  yadk run configs/support_desk --replay configs/support_desk/replay.json\n"
            '  yadk run my_agent --model gemini-2.5-flash --state \'{"customer_name": "Ada"}\''
        ),
    )
    parser.add_argument(
        "agent", metavar="AGENT", help="a YAML config, or a folder holding root_agent.yaml"
    )
    parser.add_argument("message", metavar="MESSAGE", nargs="?", help="one message to send")
    parser.add_argument(
        "--replay",
        metavar="FILE",
        help='a JSON file {"state": {...}, "queries": ["...", ...]} to run query by query',
    )
    parser.add_argument(
        "--save-evalcase",
        metavar="FILE",
        help="add the conversation to the eval set FILE (*.evalset.json) as a new eval case",
    )
    _add_session_options(
        parser,
        db_help="the session store: a SQLite file or sqlite:/// URL, artifacts go beside it"
        " (default .yadk/sessions.db; :memory: keeps nothing)",
    )


def _add_dev(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "dev",
        summary="chat with an agent that reloads whenever one of its files changes",
        description=(
            "Chat with an agent (messages from stdin, one per line, until EOF or 'exit')\n"
            "while watching every file it depends on: configs, instruction and example\n"
            "files, skills, its Python modules, and new files in its folder. A saved edit\n"
            "reloads the agent and the conversation goes on; an edit that breaks a file\n"
            "prints the problems and keeps the last good agent answering. The prompt is\n"
            "yadk run's: line editing, history, /help commands, Ctrl-C cancels a turn."
        ),
        epilog=(
            "examples:\n"
            "  yadk dev my_agent\n"
            '  yadk dev configs/support_desk --state \'{"customer_name": "Ada"}\'\n'
            "  yadk dev my_agent --model gemini-2.5-flash --db .yadk/dev.db --session-id s1"
        ),
    )
    parser.add_argument(
        "agent", metavar="AGENT", help="a YAML config, or a folder holding root_agent.yaml"
    )
    _add_session_options(
        parser,
        db_help="the session store, as for yadk run: a SQLite file or sqlite:/// URL, artifacts"
        " beside it (default .yadk/sessions.db; :memory: keeps nothing)",
    )


def _add_inspect(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "inspect",
        summary="show the exact request the first model call would receive",
        description=(
            "Build the request (system instruction, contents, tool declarations, config)\n"
            "that the agent's first model call would receive, without calling a model.\n"
            "For a Workflow, print its graph (nodes and routed edges) instead; --agent,\n"
            "--message or --state build the request of one of its agents.\n"
            "With --session-id, the request the next model call of that stored session\n"
            "would receive, then each compaction summary and the events it replaced."
        ),
        epilog=(
            "examples:\n"
            '  yadk inspect configs/support_desk --state \'{"customer_name": "Ada"}\'\n'
            '  yadk inspect configs/support_desk --message "refund A-1001" --json\n'
            "  yadk inspect configs/triage_workflow --format mermaid\n"
            "  yadk inspect configs/support_desk --session-id s-1 --db .yadk/sessions.db"
        ),
    )
    parser.add_argument(
        "agent", metavar="AGENT", help="a YAML config, or a folder holding root_agent.yaml"
    )
    parser.add_argument("--state", metavar="JSON", help="session state, a JSON object")
    parser.add_argument("--message", metavar="TEXT", help="the user message that starts the turn")
    parser.add_argument(
        "--artifact",
        metavar="NAME=FILE",
        action="append",
        default=[],
        help="make FILE available as artifact NAME (repeatable)",
    )
    parser.add_argument(
        "--agent",
        dest="agent_name",
        metavar="NAME",
        help="inspect this agent of the tree instead of the first one to run",
    )
    parser.add_argument(
        "--model", metavar="NAME", help="the model name to build the request for (not called)"
    )
    parser.add_argument(
        "--no-callbacks",
        action="store_true",
        help="do not run before_agent/before_model callbacks",
    )
    parser.add_argument(
        "--no-mcp",
        action="store_true",
        help="do not start MCP servers to list their tools",
    )
    parser.add_argument(
        "--session-id",
        metavar="ID",
        type=_session_id,
        help="inspect the next request of this stored session, and what compaction replaced",
    )
    _add_db_option(
        parser,
        metavar="PATH_OR_URL",
        help="the session store of --session-id (default: .yadk/sessions.db)",
    )
    parser.add_argument("--json", action="store_true", help="print the request as one JSON object")
    parser.add_argument(
        "--format",
        choices=("text", "mermaid"),
        default="text",
        help="how to print a workflow's graph: text (default) or a Mermaid flowchart",
    )


def _add_validate(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "validate",
        summary="check configs and skills, reporting every problem at once",
        description=(
            "Check agent configs (and an agent folder's app.yaml), Python agent\n"
            "folders (agent.py defining root_agent) and skill folders. Every problem\n"
            "is reported as path:line:col: severity rule: message (with a hint).\n"
            "User code is not imported unless --import is given (a Python agent\n"
            "folder only when the project trusts its package). A folder is searched\n"
            "at any depth for agent folders and skills, skipping hidden folders and\n"
            "what .gitignore lists."
        ),
        epilog=(
            "exit status: 0 clean, 1 problems found (warnings only with --strict), 2 usage error\n"
            "\n"
            "examples:\n"
            "  yadk validate .\n"
            "  yadk validate configs/support_desk --strict --format github"
        ),
    )
    parser.add_argument(
        "paths", metavar="PATH", nargs="+", help="config files, agent folders or skill folders"
    )
    parser.add_argument(
        "--format",
        choices=["text", "json", "github"],
        default="text",
        help="text (default), json (a list of objects), or github (workflow annotations)",
    )
    parser.add_argument("--strict", action="store_true", help="warnings fail the check too")
    parser.add_argument(
        "--import",
        dest="import_code",
        action="store_true",
        help="also import referenced code (tools, callbacks) to check it resolves, and"
        " trusted Python agent folders",
    )
    parser.add_argument(
        "--network",
        action="store_true",
        help="also fetch each remote agent's card (RemoteA2aAgent agent_card URLs) and check it",
    )


def _add_schema(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "schema",
        summary="print the JSON Schema of the YAML dialect",
        description=(
            "Print the JSON Schema of agent configs, for editors: point a\n"
            "'# yaml-language-server: $schema=FILE' comment at the saved output."
        ),
        epilog=(
            "examples:\n  yadk schema > agent.schema.json\n  yadk schema --app > app.schema.json"
        ),
    )
    parser.add_argument(
        "--app",
        action="store_true",
        help="the schema of app.yaml (plugins and app settings) instead",
    )


def _add_new(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "new",
        aliases=["create"],  # as google-adk's `adk create`
        summary="scaffold a config agent that runs offline",
        description=(
            "Create the folder NAME with a root_agent.yaml (or, with --type code, an agent.py),\n"
            "a tools module, an instruction file, a scripted model, a .gitignore for .yadk/\n"
            "and .env, and a .env.example, so 'yadk run NAME \"hello\"' works at once."
        ),
        epilog=(
            "examples:\n"
            '  yadk new my_agent && yadk run my_agent "hello"\n'
            "  yadk new my_agent --type code --model gemini-2.5-flash"
        ),
    )
    parser.add_argument(
        "name", metavar="NAME", help="the folder to create; its last part names the agent"
    )
    parser.add_argument(
        "--model",
        metavar="M",
        help="the model the agent uses (default: scripted:scripted.yaml, the offline script"
        " written beside it)",
    )
    parser.add_argument(
        "--type",
        choices=["config", "code"],
        default="config",
        help="config: a root_agent.yaml (default); code: an agent.py defining root_agent, as"
        " google-adk lays agent folders out",
    )


def _add_card(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "card",
        summary="print the A2A agent card of an agent",
        description=(
            "Print the A2A agent card (JSON) of an agent and its sub-agents, as `yadk serve`\n"
            "publishes it (an agent.json in the agent's folder is printed as it is). Skill\n"
            "examples come from the agents' static few-shot example lists; example providers\n"
            "are skipped, as they need a query."
        ),
        epilog="example:\n  yadk card configs/support_desk --url https://agents.example.com/a2a/desk",
    )
    parser.add_argument(
        "agent", metavar="AGENT", help="a YAML config, or a folder holding root_agent.yaml"
    )
    parser.add_argument(
        "--url",
        metavar="URL",
        default=None,
        help="the JSON-RPC URL the agent is served at (default:"
        " http://127.0.0.1:8000/a2a/FOLDER, as `yadk serve` serves it)",
    )
    parser.add_argument(
        "--card-version",
        metavar="VERSION",
        default="0.0.1",
        help="the agent's version in the card (default: 0.0.1)",
    )


def _add_serve(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "serve",
        summary="serve agents over HTTP with google-adk's api_server protocol",
        description=(
            "Serve the agents in PATH over HTTP with google-adk's api_server routes\n"
            "(/list-apps, sessions, artifacts, /run, /run_sse), and each app as an A2A agent\n"
            "at POST /a2a/APP (card: /a2a/APP/.well-known/agent-card.json). PATH is an agent\n"
            "folder or a folder of agent folders (each a sub-folder holding root_agent.yaml,\n"
            "named after it). Every app is validated at start; an app with errors answers 503\n"
            "with its diagnostics while the others serve. Binds 127.0.0.1 unless --host says\n"
            "otherwise; any other address needs --token or --no-auth. Only requests for the\n"
            "bound address (and, on loopback or 0.0.0.0, the loopback names) or a name given\n"
            "by --allow-host are answered, and browsers only from those pages or an\n"
            "--allow-origin."
        ),
        epilog=(
            "examples:\n"
            "  yadk serve configs\n"
            "  yadk serve configs/support_desk --port 8080 --reload\n"
            '  yadk serve configs --host 0.0.0.0 --token "$TOKEN" --allow-host agents.example.com \\\n'
            "      --allow-origin https://app.example.com"
            "\n  yadk serve configs --db postgresql://db.internal/agents --workers 4"
        ),
    )
    parser.add_argument("path", metavar="PATH", help="an agent folder or a folder of agent folders")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to bind (default 8000)")
    _add_db_option(
        parser,
        metavar="URL",
        help="the session store, as for yadk run (default .yadk/sessions.db; :memory: keeps nothing)",
    )
    parser.add_argument(
        "--reload",
        action="store_true",
        help="reload an app when its files change (a broken edit keeps the last good agent);"
        " results stream at GET /dev/events",
    )
    parser.add_argument(
        "--token",
        metavar="T",
        help="require 'Authorization: Bearer T' on every route but /health"
        " (or set YADK_SERVE_TOKEN)",
    )
    parser.add_argument(
        "--no-auth",
        action="store_true",
        help="allow a non-loopback --host without a token (something else guards the port)",
    )
    parser.add_argument(
        "--allow-origin",
        metavar="O",
        action="append",
        help="allow cross-origin browser requests from origin O (repeatable; default none)",
    )
    parser.add_argument(
        "--allow-host",
        metavar="NAME",
        action="append",
        help="also answer requests for host NAME (or NAME:PORT; repeatable; '*' for any):"
        " by default only the bound address and, for loopback or 0.0.0.0, the loopback"
        " names are answered; other Host headers get 403 (DNS-rebinding protection)",
    )
    _add_otel_option(parser)
    parser.add_argument(
        "--log-format",
        choices=("plain", "json"),
        default="plain",
        help="access and invocation log lines on stderr as plain text or JSON (default plain)",
    )
    limits = parser.add_argument_group(
        "limits", "timeouts (seconds) and caps against slow or too many clients"
    )
    limits.add_argument(
        "--header-timeout",
        metavar="S",
        type=float,
        default=10.0,
        help="a request's headers must arrive within S after its first byte or after the"
        " connection opened (default 10; else 408 and the connection closes)",
    )
    limits.add_argument(
        "--body-timeout",
        metavar="S",
        type=float,
        default=30.0,
        help="a request's body must arrive within S after its headers (default 30; else 408)",
    )
    limits.add_argument(
        "--idle-timeout",
        metavar="S",
        type=float,
        default=5.0,
        help="close a kept-alive connection idle for S between requests (default 5)",
    )
    limits.add_argument(
        "--send-timeout",
        metavar="S",
        type=float,
        default=30.0,
        help="drop a client that reads nothing of a response for S; its turn is cancelled"
        " and its session freed (default 30)",
    )
    limits.add_argument(
        "--max-connections",
        metavar="N",
        type=int,
        default=1000,
        help="open connections at most (default 1000; one more gets 503 and is closed)",
    )
    limits.add_argument(
        "--max-concurrency",
        metavar="N",
        type=int,
        default=200,
        help="requests in progress at most, /health aside (default 200; one more gets 503)",
    )
    parser.add_argument(
        "--busy-wait",
        metavar="SECONDS",
        type=float,
        default=10.0,
        help="how long a turn waits for a busy session before answering 409 (default 10)",
    )
    parser.add_argument(
        "--workers",
        metavar="N",
        type=int,
        default=1,
        help="serve from N processes on one port (uvicorn workers); needs a shared store:"
        " a SQLite file or postgresql://, not :memory: (default 1)",
    )


def _add_sessions(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "sessions",
        summary="list, show, export, import or delete stored sessions",
        description=(
            "The sessions in a store (SQLite file or PostgreSQL URL). 'list' prints one line\n"
            "per session; 'show ID' prints the conversation and the state by scope; 'export\n"
            "ID' writes the session as JSON (to attach to a bug report); 'import FILE'\n"
            "recreates an export, in any store (SQLite -> PostgreSQL works this way);\n"
            "'delete ID' removes a session and its events. --app/--user narrow the search."
        ),
        epilog=(
            "examples:\n"
            "  yadk sessions list\n"
            "  yadk sessions show 6f1c... --db postgresql://db.internal/agents\n"
            "  yadk sessions export 6f1c... -o session.json\n"
            "  yadk sessions import session.json --db postgresql://db.internal/agents"
        ),
    )
    parser.add_argument(
        "action", choices=["list", "show", "export", "import", "delete"], help="what to do"
    )
    parser.add_argument(
        "target",
        metavar="ID_OR_FILE",
        nargs="?",
        help="the session id (show, export, delete) or the export file (import)",
    )
    _add_db_option(
        parser,
        metavar="URL",
        help="the store: a SQLite path, sqlite:///PATH or postgresql://... (default"
        " .yadk/sessions.db)",
    )
    parser.add_argument(
        "--app", metavar="A", type=_text, help="only sessions of app A (import: into A)"
    )
    parser.add_argument(
        "--user", metavar="U", type=_text, help="only sessions of user U (import: as U)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="export: write to FILE, not stdout")


def _add_db(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "db",
        summary="upgrade a session database to this yadk's schema",
        description=(
            "'yadk db upgrade' applies the schema migrations a session database written by an\n"
            "older yadk needs (the services refuse an old schema until then). Back the\n"
            "database up first. A database written by a newer yadk is refused."
        ),
        epilog=(
            "examples:\n"
            "  yadk db upgrade --db .yadk/sessions.db\n"
            "  yadk db upgrade --db postgresql://agents@db.internal:5432/agents"
        ),
    )
    parser.add_argument("action", choices=["upgrade"], help="what to do: upgrade")
    _add_db_option(
        parser,
        metavar="URL",
        help="the database: a SQLite file path, sqlite:///PATH, or a PostgreSQL URL"
        " (postgresql://USER@HOST:PORT/DB)",
        required=True,
    )


def _add_eval(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "eval",
        summary="run google-adk eval sets against an agent and score them offline",
        description=(
            "Replay the conversations of eval sets (google-adk's *.evalset.json, the older\n"
            "list format, or AgentEvaluator's *.test.json) against an agent and score each\n"
            "case as google-adk does: tool_trajectory_avg_score and response_match_score\n"
            "(ROUGE-1), with the criteria of the test_config.json beside each eval set\n"
            "(or --config). Judged metrics (final_response_match_v2, the rubric_based_* ones,\n"
            "hallucinations_v1) are graded by --judge-model; without it they are reported as\n"
            "not evaluated, and so are the metrics google-adk sends to Vertex AI (safety_v1,\n"
            "response_evaluation_score, multi_turn_*), with the reason."
        ),
        epilog=(
            "exit status: 0 every case passed, 1 a case failed, 2 usage or input error\n"
            "\n"
            "examples:\n"
            "  yadk eval configs/support_desk\n"
            "  yadk eval configs/support_desk configs/support_desk/evals\n"
            "  yadk eval my_agent evals/orders.evalset.json:refund,status --format junit -o report.xml"
        ),
    )
    parser.add_argument(
        "agent", metavar="AGENT", help="a YAML config, or a folder holding root_agent.yaml"
    )
    parser.add_argument(
        "evalsets",
        metavar="EVALSET[:CASE,...]",
        nargs="*",
        help="an eval set file or a folder of them; ':a,b' runs only cases a and b (default:"
        " every *.evalset.json and *.test.json in the agent's folder)",
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="criteria for every eval set (default: test_config.json beside each eval set,"
        " else google-adk's defaults)",
    )
    parser.add_argument(
        "--format",
        choices=["text", "json", "junit"],
        default="text",
        help="text (default), json (google-adk's EvalSetResult list), or junit (JUnit XML)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the --format output to FILE and print the text report",
    )
    parser.add_argument(
        "--num-runs", metavar="N", type=int, default=1, help="run every case N times (default 1)"
    )
    parser.add_argument(
        "--judge-model",
        metavar="NAME",
        help="grade the judged metrics (final_response_match_v2, rubric_based_*,"
        " hallucinations_v1) with this model (without it, they are not evaluated)",
    )
    _add_model_option(parser)


def _add_web(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = _subparser(
        commands,
        "web",
        summary="the dev loop in the browser: serve --reload plus a UI at /",
        description=(
            "Serve the agents at PATH (an agent folder, or a folder of agent folders) with\n"
            "reload, and a page at / to develop them: chat with streamed answers, the\n"
            "session's events and state, the exact request of every model call, the agent\n"
            "tree with file and line, and a notice for every reload (with the diagnostics of\n"
            "a broken edit while the last good agent keeps answering), a form to answer a\n"
            "long-running tool's pending call, and sessions to download as `yadk sessions\n"
            "export` writes them or as an eval case for `yadk eval`. With yadk[otel]\n"
            "installed, each turn's OpenTelemetry spans show as a waterfall in the Trace\n"
            "tab (YADK_TRACING=0 turns that off). Prints the URL and opens a browser. Only\n"
            "requests addressed to the printed host and sent by the page itself are\n"
            "answered (DNS-rebinding and CSRF protection)."
        ),
        epilog=(
            "examples:\n"
            "  yadk web my_agent\n"
            "  yadk web configs --port 8080 --no-browser\n"
            "  yadk web configs --model scripted:turns.yaml --db :memory:\n"
            '  yadk web configs --host 0.0.0.0 --token "$(openssl rand -hex 16)"'
        ),
    )
    parser.add_argument(
        "path",
        metavar="PATH",
        nargs="?",
        default=".",
        help="an agent folder, or a folder of agent folders (default: the current folder,"
        " as `adk web`)",
    )
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0: any free)")
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: 127.0.0.1); any other needs --token",
    )
    _add_model_option(parser)
    _add_db_option(
        parser,
        metavar="PATH_OR_URL",
        help="session store: a SQLite file or URL, or :memory: (default: .yadk/sessions.db)",
    )
    parser.add_argument(
        "--token", metavar="TOKEN", help="require this bearer token on the API (and in the URL)"
    )
    parser.add_argument(
        "--no-browser", action="store_true", help="print the URL but do not open a browser"
    )
    _add_otel_option(parser)


def build_parser(*, only: str | None = None) -> argparse.ArgumentParser:
    """The ``yadk`` argument parser with every command, or with just the command ``only``
    (what parsing that command's line needs)."""
    parser = argparse.ArgumentParser(
        prog="yadk",
        description="yadk: declarative LLM agents in YAML, checked, inspected and run.",
        formatter_class=_Formatter,
    )
    parser.add_argument(
        "--version", action=_VersionAction, help="show the version of yadk and exit"
    )
    parser.add_argument(
        "--trust",
        metavar="MODULE",
        action="append",
        default=[],
        help="let configs pass args: to this package's code, as the project root's"
        " [tool.yadk] trusted_modules would (repeatable)",
    )
    parser.add_argument(
        "--allow-code-execution",
        metavar="KIND",
        action="append",
        default=[],
        choices=["skill_scripts", "stdio_mcp", "all"],
        help="let configs run code of this kind on this machine (skill_scripts, stdio_mcp, or"
        " all), as the project root's [tool.yadk] allow_code_execution would (repeatable)",
    )
    parser.add_argument(
        "--no-adk-compat",
        action="store_true",
        help="do not serve google.adk / google.genai from yadk's objects to code loaded from"
        " configs and agent folders (the shim otherwise takes precedence over an installed"
        " google-adk)",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print the full traceback of unexpected errors (as YADK_DEBUG=1 does)",
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    if only is not None:
        _COMMANDS[only](commands)
        return parser
    for add in _COMMANDS.values():
        add(commands)
    return parser


# Each command word (an alias too) -> what adds its parser; in the order --help lists them.
_COMMANDS: dict[str, Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], None]] = {
    "run": _add_run,
    "dev": _add_dev,
    "inspect": _add_inspect,
    "validate": _add_validate,
    "schema": _add_schema,
    "new": _add_new,
    "card": _add_card,
    "serve": _add_serve,
    "eval": _add_eval,
    "sessions": _add_sessions,
    "db": _add_db,
    "web": _add_web,
}
_ALIASES = {"create": "new"}
