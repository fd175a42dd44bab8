"""The trust policy: blocked modules and the project's opt-ins."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk.config import TrustPolicy, blocked_module, find_trust_policy


@pytest.mark.parametrize(
    ("name", "blocked"),
    [
        ("os.system", "os"),
        ("subprocess.run", "subprocess"),
        ("timeit.timeit", "timeit"),
        ("builtins.eval", "builtins"),
        ("importlib.import_module", "importlib"),
        ("yaml.unsafe_load", "yaml"),
        ("ruamel.yaml.YAML", "ruamel"),
        ("distutils.spawn.spawn", "distutils"),
        ("yadk.config.load_agent", "yadk.config"),
        ("yadk.config._yaml.parse_document", "yadk.config"),
        ("yadk.tools.exit_loop", None),
        ("yadk.configuration.x", None),
        ("my_agent.tools.search", None),
        ("osmosis.tool", None),
    ],
)
def test_blocked_modules(name: str, blocked: str | None) -> None:
    assert blocked_module(name) == blocked


def test_nearest_pyproject_decides(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.yadk]\ntrusted_modules = ["outer"]\nallow_args = ["x.Y"]\n'
    )
    inner = tmp_path / "project" / "agents" / "my_agent"
    inner.mkdir(parents=True)
    policy, problems = find_trust_policy(inner)
    assert (policy.trusted_modules, policy.allow_args, problems) == (("outer",), ("x.Y",), [])
    assert policy.source == tmp_path / "pyproject.toml"

    (tmp_path / "project" / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    policy, problems = find_trust_policy(inner)
    assert policy == TrustPolicy(source=tmp_path / "project" / "pyproject.toml")


@pytest.mark.parametrize(
    ("name", "allowed"),
    [
        ("pkg.tools.Search", True),
        ("pkg.Search", True),
        ("pkgx.Search", False),
        ("vendor.tools.Search", True),
        ("vendor.tools.Other", False),
    ],
)
def test_policy_allows_args(name: str, allowed: bool) -> None:
    policy = TrustPolicy(trusted_modules=("pkg",), allow_args=("vendor.tools.Search",))
    assert policy.allows_args(name) is allowed


def test_unreadable_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.yadk\n")
    policy, problems = find_trust_policy(tmp_path)
    assert policy == TrustPolicy(source=tmp_path / "pyproject.toml")
    assert len(problems) == 1
    assert problems[0].startswith("cannot read the [tool.yadk] table: ")
