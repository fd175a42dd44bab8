"""Configs reach only allowlisted code: the agent folder's modules, yadk's built-ins and what the
project trusts. Functions of installed packages (which today ran commands, deleted folders and
truncated files as tools) are refused by ``validate`` (without importing), ``validate --import``,
loading and ``yadk run``, at the YAML line and column, with the setting that would allow them."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import pytest

from yadk.cli import main
from yadk.config import ConfigError, load_agent, validate_paths


def _exists(dotted: str) -> bool:
    module, _, attribute = dotted.rpartition(".")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # setuptools announces that it replaces distutils
        try:
            return hasattr(importlib.import_module(module), attribute)
        except ImportError:
            return False


# Functions of installed packages that run commands, evaluate text or touch files.
DANGEROUS = [
    name
    for name in [
        "setuptools._distutils.spawn.spawn",
        "pip._vendor.pyproject_hooks._impl.default_subprocess_runner",
        "attr._make._compile_and_eval",
        "pip._internal.utils.misc.rmtree",
        "jinja2.utils.open_if_exists",
    ]
    if _exists(name)
]


def _message(name: str, module: str, *, defined: bool = False) -> str:
    verb = "is defined in" if defined else "is in"
    return (
        f"`{name}` {verb} `{module}`, which this config may not reach: configs reach only the"
        " agent folder's own modules, yadk's built-ins and modules the project trusts."
    )


def _hint(top: str, where: str = "") -> str:
    return (
        f"If you trust `{top}` with what a config (and a model calling its tools) may do, add"
        f' `trusted_modules = ["{top}"]` under [tool.yadk] in the project root\'s'
        f" pyproject.toml{where} or run `yadk --trust {top} ...`; for the project's own"
        " packages, `trust_project = true`."
    )


def _agent(tmp_path: Path, tools: str, *, turns: str = "turns:\n  - text: done\n") -> Path:
    folder = tmp_path / "my_agent"
    folder.mkdir(exist_ok=True)
    (folder / "root_agent.yaml").write_text(
        f"name: a\nmodel: scripted:turns.yaml\ninstruction: hi\ntools:\n{tools}",
        encoding="utf-8",
    )
    (folder / "turns.yaml").write_text(turns, encoding="utf-8")
    return folder


def _found(folder: Path, *, import_code: bool) -> list[tuple[int, int, str, str]]:
    return [
        (d.line, d.column, d.rule, d.message)
        for d in validate_paths([folder], import_code=import_code)
    ]


@pytest.mark.parametrize("name", DANGEROUS)
@pytest.mark.parametrize("import_code", [False, True], ids=["static", "import"])
def test_installed_packages_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, import_code: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _agent(tmp_path, f"  - name: {name}\n")
    found = validate_paths([folder], import_code=import_code)
    module = name.rpartition(".")[0]
    assert [(d.line, d.column, d.rule, d.severity, d.message, d.hint) for d in found] == [
        (5, 11, "untrusted-reference", "error", _message(name, module), _hint(name.split(".")[0]))
    ]


def test_loading_refuses_and_yadk_run_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    folder = _agent(
        tmp_path,
        "  - name: jinja2.utils.open_if_exists\n",
        turns="turns:\n  - function_calls: [{name: open_if_exists, args: {filename: "
        f"'{victim}', mode: w}}}}]\n  - text: done\n",
    )
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as caught:
        load_agent(folder)
    assert [(d.line, d.column, d.rule) for d in caught.value.diagnostics] == [
        (5, 11, "untrusted-reference")
    ]
    assert main(["run", str(folder), "go", "--db", ":memory:"]) == 1
    err = capsys.readouterr().err
    assert "my_agent/root_agent.yaml:5:11: error untrusted-reference:" in err
    assert victim.read_text(encoding="utf-8") == "precious"


@pytest.mark.parametrize("import_code", [False, True], ids=["static", "import"])
def test_a_reexport_through_the_agent_folder_is_judged_by_its_origin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, import_code: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _agent(tmp_path, "  - name: .tools.opener\n  - name: .tools.search\n")
    (folder / "tools.py").write_text(
        "from jinja2.utils import open_if_exists as opener\n\n\n"
        "def search(query: str) -> str:\n    return query\n",
        encoding="utf-8",
    )
    assert _found(folder, import_code=import_code) == [
        (
            5,
            11,
            "untrusted-reference",
            _message("my_agent.tools.opener", "jinja2.utils", defined=True),
        )
    ]


@pytest.mark.parametrize("import_code", [False, True], ids=["static", "import"])
def test_a_reexport_through_a_yadk_facade_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, import_code: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _agent(
        tmp_path,
        "  - name: yadk.tools.exit_loop\n  - name: yadk.cli.main\n  - name: yadk._files.read_text\n",
    )
    found = _found(folder, import_code=import_code)
    assert [(line, column, rule) for line, column, rule, _ in found] == [
        (6, 11, "untrusted-reference"),
        (7, 11, "untrusted-reference"),
    ]
    assert found[0][3] == (
        "`yadk.cli.main` is in `yadk.cli`, which configs cannot reach: only yadk's public"
        " built-ins are (yadk, yadk.tools, yadk.agents, yadk.models, yadk.examples, ...)."
    )


def test_every_kind_of_reference_is_checked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "my_agent"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        "name: a\n"
        "model_code: {name: jinja2.utils.LRUCache}\n"
        "instruction: hi\n"
        "before_agent_callbacks: [{name: jinja2.utils.open_if_exists}]\n"
        "output_schema: pydantic.BaseModel\n"
        "examples: jinja2.utils.missing\n"
        "tools:\n"
        "  - name: FunctionTool\n"
        "    args: {func: jinja2.utils.open_if_exists}\n"
        "sub_agents:\n"
        "  - code: jinja2.environment.Environment\n"
        "  - config_path: custom.yaml\n",
        encoding="utf-8",
    )
    (folder / "custom.yaml").write_text(
        "agent_class: jinja2.environment.Environment\nname: b\n", encoding="utf-8"
    )
    for import_code in (False, True):
        found = validate_paths([folder], import_code=import_code)
        assert [(Path(d.path).name, d.line, d.column, d.rule) for d in found] == [
            ("root_agent.yaml", 2, 20, "untrusted-reference"),
            ("root_agent.yaml", 4, 33, "untrusted-reference"),
            ("root_agent.yaml", 5, 16, "untrusted-reference"),
            ("root_agent.yaml", 6, 11, "untrusted-reference"),
            ("root_agent.yaml", 9, 18, "untrusted-reference"),
            ("root_agent.yaml", 11, 11, "untrusted-reference"),
            ("custom.yaml", 1, 14, "untrusted-reference"),
        ], import_code


TOOLS_PY = "def search(query: str) -> str:\n    return query\n"


@pytest.mark.parametrize("import_code", [False, True], ids=["static", "import"])
def test_the_agent_folder_and_yadk_built_ins_are_reachable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, import_code: bool
) -> None:
    monkeypatch.chdir(tmp_path)
    folder = _agent(
        tmp_path,
        "  - name: .tools.search\n  - name: my_agent.tools.search\n  - name: tools.search\n"
        "  - yadk.tools.exit_loop\n  - google.adk.tools.exit_loop\n  - exit_loop\n",
    )
    (folder / "tools.py").write_text(TOOLS_PY, encoding="utf-8")
    assert _found(folder, import_code=import_code) == []


@pytest.mark.parametrize(
    "trust",
    [
        '[tool.yadk]\ntrusted_modules = ["jinja2"]\n',
        '[tool.yadk]\nallow_args = ["jinja2.utils.open_if_exists"]\n',
    ],
)
def test_the_project_root_can_trust_a_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, trust: str
) -> None:
    folder = _agent(tmp_path, "  - name: jinja2.utils.open_if_exists\n")
    (tmp_path / "pyproject.toml").write_text(trust, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert _found(folder, import_code=False) == []
    assert _found(folder, import_code=True) == []


def test_trust_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _agent(tmp_path, "  - name: jinja2.utils.open_if_exists\n")
    monkeypatch.chdir(tmp_path)
    assert main(["validate", str(folder)]) == 1
    assert main(["--trust", "jinja2", "validate", str(folder)]) == 0
    capsys.readouterr()


def _project(tmp_path: Path) -> Path:
    folder = _agent(tmp_path, "  - name: shared_tools.search\n")
    (tmp_path / "shared_tools.py").write_text(TOOLS_PY, encoding="utf-8")
    return folder


@pytest.mark.parametrize("import_code", [False, True], ids=["static", "import"])
def test_the_projects_packages_need_its_opt_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, import_code: bool
) -> None:
    folder = _project(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert _found(folder, import_code=import_code) == [
        (5, 11, "untrusted-reference", _message("shared_tools.search", "shared_tools"))
    ]
    (tmp_path / "pyproject.toml").write_text("[tool.yadk]\ntrust_project = true\n")
    assert _found(folder, import_code=import_code) == []


def test_an_agent_folder_cannot_opt_in_for_the_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _project(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n", encoding="utf-8")
    (folder / "pyproject.toml").write_text("[tool.yadk]\ntrust_project = true\n")
    monkeypatch.chdir(tmp_path)
    found = validate_paths([folder])
    assert [(Path(d.path).name, d.line, d.column, d.rule) for d in found] == [
        ("pyproject.toml", 2, 1, "trust-not-widened"),
        ("root_agent.yaml", 5, 11, "untrusted-reference"),
    ]


def test_agent_folders_cannot_share_a_bare_module_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One process serving two agent folders: the second folder's `tools.search` would be the
    first folder's module (Python imports a name once), so it is refused, saying why."""
    monkeypatch.chdir(tmp_path)
    for name in ("first", "second"):
        folder = tmp_path / "agents" / name
        folder.mkdir(parents=True)
        (folder / "root_agent.yaml").write_text(
            "name: a\nmodel: scripted:turns.yaml\ninstruction: hi\ntools: [tools.search]\n",
            encoding="utf-8",
        )
        (folder / "turns.yaml").write_text("turns:\n  - text: done\n", encoding="utf-8")
        (folder / "tools.py").write_text(TOOLS_PY, encoding="utf-8")
    load_agent(tmp_path / "agents" / "first")
    with pytest.raises(ConfigError) as caught:
        load_agent(tmp_path / "agents" / "second")
    [problem] = caught.value.diagnostics
    assert (problem.line, problem.column, problem.rule, problem.message, problem.hint) == (
        4,
        9,
        "untrusted-reference",
        "`tools.search` names the module `tools`, which this process finds at"
        " agents/first/tools.py, not this agent folder's agents/second/tools.py: agent folders"
        " cannot share a module name.",
        "Write the name relative to this config (`.tools.search`), or give the module a name no"
        " other agent folder uses.",
    )


async def test_yadk_serve_refuses_the_app_and_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    from yadk.artifacts import InMemoryArtifactService
    from yadk.serve import create_app
    from yadk.sessions import InMemorySessionService

    monkeypatch.chdir(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious", encoding="utf-8")
    agents = tmp_path / "agents"
    agents.mkdir()
    _agent(
        agents,
        "  - name: jinja2.utils.open_if_exists\n",
        turns="turns:\n  - function_calls: [{name: open_if_exists, args: {filename: "
        f"'{victim}', mode: w}}}}]\n  - text: done\n",
    )
    app = create_app(
        agents,
        session_service=InMemorySessionService(),
        artifact_service=InMemoryArtifactService(),
    )
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            await client.post("/apps/my_agent/users/u/sessions", json={"sessionId": "s"})
            ran = await client.post(
                "/run",
                json={
                    "appName": "my_agent",
                    "userId": "u",
                    "sessionId": "s",
                    "newMessage": {"role": "user", "parts": [{"text": "go"}]},
                },
            )
    assert ran.status_code == 503
    assert [d["rule"] for d in ran.json()["diagnostics"]] == ["untrusted-reference"]
    assert victim.read_text(encoding="utf-8") == "precious"
