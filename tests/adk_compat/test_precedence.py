"""With google-adk (and google-genai) importable, code yadk loads still gets the shim's modules:
a fake ``google/adk`` package on ``sys.path`` that fails when imported stands in for an
installed google-adk. ``--no-adk-compat`` lets the real package load. (The same with google-adk
2.13 itself, in its own venv: tests/adk_compat/test_adk_objects.py.)"""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from yadk.adk_compat import disable, enable, installed, real_package_importable
from yadk.agents import LlmAgent as YadkLlmAgent
from yadk.cli import main
from yadk.config import ConfigError, load_agent
from yadk.types import Content

FAKE = 'raise RuntimeError("the installed {name} was imported")\n'

AGENT = """
from google.adk.agents import LlmAgent
from google.genai import types

GREETING = types.Content(role="model", parts=[types.Part(text="hi")])
root_agent = LlmAgent(name="shop", model="gemini-2.5-flash", instruction="Sell.")
"""


def _forget_google() -> None:
    for name in [n for n in sys.modules if n == "google" or n.startswith("google.")]:
        del sys.modules[name]


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A site-packages holding a google-adk and a google-genai that must never be imported."""
    site = tmp_path / "site"
    for package in ("google/adk", "google/adk/agents", "google/genai"):
        (site / package).mkdir(parents=True)
        (site / package / "__init__.py").write_text(FAKE.format(name=package))
    (site / "google" / "genai" / "types.py").write_text(FAKE.format(name="google.genai.types"))
    shop = tmp_path / "project" / "shop"
    shop.mkdir(parents=True)
    (shop / "agent.py").write_text(textwrap.dedent(AGENT))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.chdir(tmp_path / "project")
    _forget_google()
    path = list(sys.path)
    yield site
    disable()
    enable()
    sys.path[:] = path
    _forget_google()
    for name in [n for n in sys.modules if n == "shop" or n.startswith("shop.")]:
        del sys.modules[name]


def test_the_shim_shadows_an_installed_google_adk(site: Path) -> None:
    assert real_package_importable("google.adk") and real_package_importable("google.genai")
    agent = load_agent(Path("shop"))
    assert installed()
    assert type(agent).__mro__[1] is YadkLlmAgent
    assert isinstance(sys.modules["shop.agent"].GREETING, Content)
    assert real_package_importable("google.adk")  # still there, only shadowed


def test_no_adk_compat_imports_the_installed_google_adk(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    disable()
    with pytest.raises(ConfigError, match="RuntimeError: the installed google/adk was imported"):
        load_agent(Path("shop"))
    assert not installed()


def test_the_cli_flag_turns_it_off(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--no-adk-compat", "inspect", "shop"]) == 1
    assert "RuntimeError: the installed google/adk was imported" in capsys.readouterr().err
