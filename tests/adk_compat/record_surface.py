"""Writes src/yadk/adk_compat/_surface.py: every public name agent code can import from the
google-adk 2.13 modules the shim covers (each package's ``__all__`` and the classes and functions
each of its modules defines), and the genai types module's public types. Run with google-adk's
Python (the shim reads the written table; it never needs google-adk):

    /opt/adkvenv/bin/python tests/adk_compat/record_surface.py && ruff format src/yadk/adk_compat
"""

import enum
import importlib
import inspect
import pkgutil
import warnings
from pathlib import Path

import pydantic

warnings.simplefilter("ignore")

PACKAGES = [
    "google.adk.agents",
    "google.adk.events",
    "google.adk.tools",
    "google.adk.tools.mcp_tool",
    "google.adk.examples",
    "google.adk.sessions",
    "google.adk.artifacts",
    "google.adk.memory",
    "google.adk.models",
    "google.adk.plugins",
    "google.adk.apps",
    "google.adk.code_executors",
    "google.adk.planners",
    "google.adk.workflow",
    "google.adk.telemetry",
]
MODULES = ["google.adk", "google.adk.runners"]
# google.adk.tools.mcp_tool exports nothing when the ``mcp`` package is missing (as in the
# recording venv): its names, as its ``__init__`` lists them.
_MCP_PARAMS = ("SseConnectionParams", "StdioConnectionParams", "StreamableHTTPConnectionParams")
MCP = {
    "google.adk.tools.mcp_tool": sorted(
        (
            "MCPTool",
            "McpTool",
            "MCPToolset",
            "McpToolset",
            *_MCP_PARAMS,
            "adk_to_mcp_tool_type",
            "gemini_to_json_schema",
            "to_mcp_server",
        )
    ),
    "google.adk.tools.mcp_tool.mcp_toolset": ["MCPToolset", "McpToolset", "StdioServerParameters"],
    "google.adk.tools.mcp_tool.mcp_tool": ["MCPTool", "McpTool"],
    "google.adk.tools.mcp_tool.mcp_session_manager": sorted(
        (*_MCP_PARAMS, "MCPSessionManager", "StdioServerParameters")
    ),
}
OUT = Path(__file__).parents[2] / "src" / "yadk" / "adk_compat" / "_surface.py"


def public_names(name):
    try:
        module = importlib.import_module(name)
    except Exception:  # an optional extra google-adk lacks here (sqlalchemy, ...)
        return None
    names = set(getattr(module, "__all__", ()))
    for attribute, value in vars(module).items():
        if attribute.startswith("_") or not attribute.isidentifier():
            continue
        if inspect.isclass(value) or inspect.isfunction(value):
            home = getattr(value, "__module__", "")
            # defined here, or an alias of google-adk's own (``CallbackContext = Context``)
            private = home.startswith("google.adk") and home.rsplit(".", 1)[-1].startswith("_")
            alias = home.startswith("google.adk") and attribute != value.__name__
            here = home == name or alias or private
            # a package exports what its modules define (``google.adk.models.LlmRequest``)
            exported = hasattr(module, "__path__") and home.startswith(name + ".")
            if here or exported:
                names.add(attribute)
        elif type(value).__module__.startswith("google.adk") and not inspect.ismodule(value):
            names.add(attribute)  # a ready-made tool instance (``google_search``)
    return sorted(n for n in names if n.isidentifier())


def modules():
    yield from MODULES
    for package in PACKAGES:
        yield package
        path = importlib.import_module(package).__path__
        for info in pkgutil.iter_modules(path):
            if not info.name.startswith("_") and not info.ispkg:
                yield f"{package}.{info.name}"


def main():
    table = {}
    for name in modules():
        names = public_names(name)
        if names is not None:
            table[name] = names
    table.update(MCP)
    from google.genai import types

    genai = {}
    for n, v in sorted(vars(types).items()):
        if n.startswith("_") or not inspect.isclass(v) or v.__module__ != types.__name__:
            continue
        if issubclass(v, enum.Enum):
            genai[n] = ("enum", tuple(m.value for m in v))
        elif issubclass(v, pydantic.BaseModel):
            genai[n] = ("model", tuple(v.model_fields))
        else:
            genai[n] = ("dict", ())
    table["google.genai.types"] = sorted(genai)
    lines = [
        '"""google-adk 2.13\'s importable surface, as recorded by'
        " tests/adk_compat/record_surface.py\n(generated: do not edit). Module -> the public"
        ' names agent code may import from it."""',
        "",
        "from __future__ import annotations",
        "",
        "from typing import Final",
        "",
        "SURFACE: Final[dict[str, tuple[str, ...]]] = {",
    ]
    for module in sorted(table):
        lines.append(f"    {module!r}: (")
        lines.extend(f"        {n!r}," for n in table[module])
        lines.append("    ),")
    lines.append("}")
    lines.append("")
    lines.append(
        "# google.genai.types: name -> (kind, members): an enum's values, a model's fields,"
    )
    lines.append("# or a TypedDict (``...Dict``, for annotations only).")
    lines.append("GENAI_TYPES: Final[dict[str, tuple[str, tuple[str, ...]]]] = {")
    for n, (kind, members) in genai.items():
        lines.append(f"    {n!r}: ({kind!r}, {members!r}),")
    lines.append("}")
    OUT.write_text("\n".join(lines) + "\n")
    print(f"{len(table)} modules, {sum(map(len, table.values()))} names -> {OUT}")


main()
