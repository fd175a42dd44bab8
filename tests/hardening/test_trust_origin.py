"""The trust policy judges an object by the module that defines it, not by the
dotted name a config uses. Standard-library functions re-exported by installed packages are
refused by ``validate``, ``validate --import``, loading and ``yadk run``, at file:line:col."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from yadk.cli import main
from yadk.config import ConfigError, load_agent, validate_paths


def _exists(dotted: str) -> bool:
    """Whether the installed package still re-exports the name (pip 26 dropped ``check_output``
    from ``pyproject_hooks._impl``; a name that is gone is an attribute-not-found instead)."""
    module, _, attribute = dotted.rpartition(".")
    try:
        return hasattr(importlib.import_module(module), attribute)
    except ImportError:
        return False


# (dotted name, the standard-library object it is, the blocked module)
REEXPORTS = [
    case
    for case in [
        ("pip._vendor.pyproject_hooks._impl.check_output", "subprocess.check_output", "subprocess"),
        ("_pytest.tmpdir.rmtree", "shutil.rmtree", "shutil"),
        ("watchfiles.run.import_module", "importlib.import_module", "importlib"),
    ]
    if _exists(case[0])
]
IDS = [case[0] for case in REEXPORTS]


@pytest.fixture(autouse=True)
def trusting_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A project root that trusts the packages under test: what is judged here is the module
    that defines an object, which no trust can open."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.yadk]\ntrusted_modules = ["pip", "_pytest", "watchfiles"]\n', encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)


def _agent(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "my_agent"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        f"name: a\nmodel: scripted:turns.yaml\ninstruction: hi\ntools:\n  - name: {name}\n",
        encoding="utf-8",
    )
    (folder / "turns.yaml").write_text(
        "turns:\n  - function_calls: [{name: check_output, args: {args: [id]}}]\n  - text: done\n",
        encoding="utf-8",
    )
    return folder


@pytest.mark.parametrize(("name", "target", "module"), REEXPORTS, ids=IDS)
def test_validate_follows_the_reexport(tmp_path: Path, name: str, target: str, module: str) -> None:
    found = validate_paths([_agent(tmp_path, name)])
    assert [(d.line, d.column, d.rule, d.severity, d.message) for d in found] == [
        (
            5,
            11,
            "blocked-module",
            "error",
            f"`{name}` is `{target}` under another name: configs cannot reference the"
            f" `{module}` module.",
        )
    ]


@pytest.mark.parametrize(("name", "target", "module"), REEXPORTS, ids=IDS)
def test_import_and_load_check_the_defining_module(
    tmp_path: Path, name: str, target: str, module: str
) -> None:
    folder = _agent(tmp_path, name)
    message = (
        f"`{name}` is defined in `{module}`: configs cannot reference the `{module}` module,"
        " whatever name it is imported under."
    )
    found = validate_paths([folder], import_code=True)
    assert [(d.line, d.column, d.rule, d.message) for d in found] == [
        (5, 11, "blocked-module", message)
    ]
    with pytest.raises(ConfigError) as caught:
        load_agent(folder)
    assert [(d.line, d.column, d.rule) for d in caught.value.diagnostics] == [
        (5, 11, "blocked-module")
    ]


def test_yadk_run_refuses_and_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    folder = tmp_path / "my_agent"
    folder.mkdir()
    (folder / "root_agent.yaml").write_text(
        "name: a\nmodel: scripted:turns.yaml\ninstruction: hi\ntools:\n"
        "  - name: _pytest.tmpdir.rmtree\n",
        encoding="utf-8",
    )
    (folder / "turns.yaml").write_text(
        f"turns:\n  - function_calls: [{{name: rmtree, args: {{path: '{victim}'}}}}]\n"
        "  - text: done\n",
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    code = main(["run", str(folder), "go", "--db", ":memory:"])
    _, err = capsys.readouterr()
    assert code == 1
    assert "my_agent/root_agent.yaml:5:11: error blocked-module:" in err
    assert victim.is_dir()


def test_a_private_module_of_a_trusted_package_is_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.yadk]\ntrusted_modules = ["pip"]\n')
    monkeypatch.chdir(tmp_path)
    found = validate_paths([_agent(tmp_path, "pip._internal.utils.misc.rmtree")])
    assert [(d.line, d.column, d.rule, d.severity) for d in found] == [
        (5, 11, "unproven-origin", "warning")
    ]
    assert found[0].message.startswith(
        "`pip._internal.utils.misc.rmtree` is in `pip._internal.utils.misc`, a private module of"
        " the installed package `pip`: without importing it, validate cannot prove"
    )


def test_the_projects_own_reexports_are_followed(tmp_path: Path) -> None:
    folder = _agent(tmp_path, ".tools.search")
    (folder / "tools.py").write_text("from ._impl import search\n", encoding="utf-8")
    (folder / "_impl.py").write_text(
        "def search(query: str) -> str:\n    return query\n", encoding="utf-8"
    )
    (folder / "__init__.py").write_text("", encoding="utf-8")
    assert validate_paths([folder]) == []
