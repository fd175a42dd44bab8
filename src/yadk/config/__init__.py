"""The YAML config layer: Google ADK's Agent Config dialect (plus yadk additions) to agents.

``load_agent(path)`` builds an agent from a config file or a folder holding ``root_agent.yaml``;
``validate_paths(paths)`` reports every problem of configs and skills without running user code;
``agent_config_json_schema()`` describes the dialect for editors. Every problem is a
``Diagnostic`` (file, line, column, rule, severity, message, hint); loading raises
``yadk.errors.ConfigError`` carrying all of them at once.

Importing this package loads no engine, no pydantic model and no plugin: the modules behind it
import what only building needs (agents, tools, models, workflows, pydantic, entry points) inside
the functions that build, so ``import yadk.config`` stays light and ``yadk validate`` never loads
the engine. Their docstrings point here rather than repeating it on each import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade
from yadk.config._api import (
    LoadedAgent,
    load_agent,
    load_agent_with_sources,
    resolve_config_path,
)
from yadk.config._diagnostics import Diagnostic, Severity
from yadk.config._pyproject import find_trust_policy
from yadk.config._trust import ARGS_ATTRIBUTE, TrustPolicy, blocked_module
from yadk.errors import ConfigError

if TYPE_CHECKING:
    from yadk.config._app_schema import app_config_json_schema
    from yadk.config._schema import agent_config_json_schema
    from yadk.config._validate import validate_paths

__all__ = [
    "ARGS_ATTRIBUTE",
    "ConfigError",
    "Diagnostic",
    "LoadedAgent",
    "Severity",
    "TrustPolicy",
    "agent_config_json_schema",
    "app_config_json_schema",
    "blocked_module",
    "find_trust_policy",
    "load_agent",
    "load_agent_with_sources",
    "resolve_config_path",
    "validate_paths",
]

# For yadk's own packages; not part of the public contract (``__all__``). Imported here
# when their module loads with the names above anyway, else loaded on first use (table below).
from yadk.config._api import ROOT_CONFIG_NAMES as ROOT_CONFIG_NAMES
from yadk.config._diagnostics import sort_diagnostics as sort_diagnostics
from yadk.config._model_checks import ENVIRONMENT_RULES as ENVIRONMENT_RULES
from yadk.config._trust import (
    allow_code_execution_on_command_line as allow_code_execution_on_command_line,
)
from yadk.config._trust import command_line_code_execution as command_line_code_execution
from yadk.config._trust import command_line_trust as command_line_trust
from yadk.config._trust import trust_on_command_line as trust_on_command_line
from yadk.config._yaml import Document as Document
from yadk.config._yaml import KeyPath as KeyPath
from yadk.config._yaml import parse_document as parse_document

if TYPE_CHECKING:
    from yadk.config._python_agent import python_agent_file as python_agent_file
    from yadk.config._validate import Checked as Checked
    from yadk.config._validate import check_paths as check_paths

# Loaded on first use: loading an agent (``yadk inspect``, ``yadk run``) needs neither the
# JSON Schema nor the tree walk of ``yadk validate``.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "agent_config_json_schema": "yadk.config._schema",
        "app_config_json_schema": "yadk.config._app_schema",
        "validate_paths": "yadk.config._validate",
        # for yadk's own packages; not part of the public contract
        "python_agent_file": "yadk.config._python_agent",
        "Checked": "yadk.config._validate",
        "check_paths": "yadk.config._validate",
    },
)
