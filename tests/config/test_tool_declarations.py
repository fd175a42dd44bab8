"""A function tool whose parameter cannot become a schema: one located message, from validate
--import, from loading, and from the tool itself."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from yadk.config import validate_paths
from yadk.errors import ConfigError, ToolDeclarationError
from yadk.tools import FunctionTool

TOOLS = '''\
import dataclasses
import enum
import socket


class Size(enum.Enum):
    S = "s"
    L = "l"


@dataclasses.dataclass
class Address:
    city: str


def ship(size: Size, to: Address, count: int = 1) -> dict:
    """Ship."""
    return {}


def connect(port: int, sock: socket.socket) -> dict:
    """Connect."""
    return {}
'''
MESSAGE = (
    "Tool `connect`: parameter `sock` has type `socket.socket`, which cannot become a JSON"
    " schema for the model."
)
HINT = (
    "Annotate `sock` with a JSON-compatible type (str, int, float, bool, list, dict, an Enum, a"
    " dataclass or a pydantic model), or read the value from tool_context.state instead of"
    " taking it from the model."
)


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    folder = tmp_path / "shop"
    folder.mkdir()
    (folder / "tools.py").write_text(TOOLS)
    (folder / "s.yaml").write_text("turns:\n  - text: hi\n")
    (folder / "root_agent.yaml").write_text(
        "name: shop\ninstruction: hi\nmodel: scripted:s.yaml\ntools:\n"
        "  - name: .tools.ship\n  - name: FunctionTool\n    args: {func: .tools.connect}\n"
    )
    return folder


def test_validate_import_reports_the_parameter_at_the_def_line(agent: Path) -> None:
    found = [
        (Path(d.path).name, d.line, d.column, d.rule, d.message, d.hint)
        for d in validate_paths([agent], import_code=True)
    ]
    assert found == [("tools.py", 21, 1, "tool-declaration", MESSAGE, HINT)]


def test_validate_without_import_does_not_build_declarations(agent: Path) -> None:
    assert validate_paths([agent]) == []


def test_loading_reports_the_same_diagnostic(agent: Path) -> None:
    from yadk.config import load_agent

    with pytest.raises(ConfigError) as caught:
        load_agent(agent)
    assert [(d.rule, d.message, d.hint) for d in caught.value.diagnostics] == [
        ("tool-declaration", MESSAGE, HINT)
    ]


def test_the_tool_itself_names_file_line_and_parameter(agent: Path) -> None:
    import socket

    def connect(port: int, sock: socket.socket) -> dict[str, str]:
        return {}

    with pytest.raises(ToolDeclarationError) as caught:
        FunctionTool(connect).declaration()
    error = caught.value
    assert (error.parameter, error.line) == ("sock", connect.__code__.co_firstlineno)
    assert str(error) == f"{__file__}:{error.line}: {MESSAGE} {HINT}"
    assert "arbitrary_types_allowed" not in str(error) and "errors.pydantic.dev" not in str(error)


CODE_AGENT = """\
from yadk import LlmAgent
from yadk.tools import AgentTool

from .tools import connect, ship

helper = LlmAgent(name="helper", model="scripted:s.yaml", instruction="hi", tools=[connect])
root_agent = LlmAgent(
    name="shop_code", model="scripted:s.yaml", instruction="hi", tools=[ship, AgentTool(helper)]
)
"""


@pytest.fixture
def code_agent(tmp_path: Path) -> Path:
    folder = tmp_path / "shop_code"
    folder.mkdir()
    (folder / "tools.py").write_text(TOOLS)
    (folder / "s.yaml").write_text("turns:\n  - text: hi\n")
    (folder / "__init__.py").write_text("from . import agent  # noqa: F401\n")
    (folder / "agent.py").write_text(CODE_AGENT)
    return folder


def test_a_python_agents_tools_are_checked_at_the_def_line_too(
    code_agent: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from yadk.cli import main

    monkeypatch.chdir(code_agent.parent)
    assert main(["--trust", "shop_code", "validate", "--import", "shop_code"]) == 1
    assert capsys.readouterr() == (
        f"shop_code/tools.py:21:1: error tool-declaration: {MESSAGE}\n  hint: {HINT}\n"
        "1 error in 1 agent\n",
        "",
    )


def test_running_a_python_agent_gives_the_same_message_and_points_at_validate_import(
    code_agent: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from yadk.cli import main

    monkeypatch.chdir(code_agent.parent)
    assert main(["run", "shop_code", "hi", "--db", ":memory:"]) == 1
    assert capsys.readouterr() == (
        "",
        f"shop_code/tools.py:21:1: error tool-declaration: {MESSAGE}\n  hint: {HINT}\n"
        "yadk run: error: shop_code was not loaded: 1 problem (run 'yadk validate --import"
        " shop_code' to check it)\n",
    )


def test_a_factory_annotation_is_named_by_its_dotted_name() -> None:
    def hold(lock: threading.Lock) -> dict[str, str]:
        return {}

    with pytest.raises(ToolDeclarationError) as caught:
        FunctionTool(hold).declaration()
    assert caught.value.problem == (
        f"Tool `hold`: parameter `lock` has type `{threading.Lock.__module__}."
        f"{threading.Lock.__qualname__}`, which cannot become a JSON schema for the model."
    )
