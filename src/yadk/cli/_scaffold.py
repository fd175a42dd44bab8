"""The files ``yadk new`` writes: a small agent that runs offline on a scripted model.

``__AGENT__`` stands for the agent's name. Plain replacement, not ``str.format``: the instruction holds ``{user_name?}``
placeholders that must reach the file untouched.
"""

from __future__ import annotations

import json

__all__ = ["scaffold_files"]

_ROOT_AGENT = """\
# yaml-language-server: $schema=agent.schema.json
__HEADER__
name: __AGENT__
description: A friendly assistant that remembers the user's name.
model: __MODEL__
instruction:
  file: prompts/instruction.md
tools:
  - name: .tools.remember_name
state:
  user_name: The name the user asked to be called (written by remember_name).
__EXTRAS__"""

_HEADER_SCRIPTED = """\
# Made by `yadk new`. It runs offline on a scripted model:
#   yadk run __AGENT__ "hello"
# and on a real one with --model, e.g. `yadk run __AGENT__ --model gemini-2.5-flash`.
"""

_HEADER_MODEL = """\
# Made by `yadk new`. It runs on __MODEL__ (set its API key in .env, see .env.example),
# and offline on the scripted model beside it:
#   yadk run __AGENT__ "hello" --model scripted:__AGENT__/scripted.yaml
"""

_EXTRAS = """\
skills:
  - skills
examples: examples.yaml
"""

_INSTRUCTION = """\
You are __AGENT__, a friendly assistant. Keep answers short.

The user's name is "{user_name?}" (empty until they tell you).
When the user tells you their name, call `remember_name` with it, then greet them by name.
"""

_TOOLS = '''\
"""Tools for __AGENT__: plain functions; a `tool_context` parameter gives access to state."""

from __future__ import annotations

from yadk.tools import ToolContext


def remember_name(name: str, tool_context: ToolContext) -> dict[str, str]:
    """Remember the name the user wants to be called, for the rest of the conversation."""
    tool_context.state["user_name"] = name
    return {"status": "remembered", "name": name}
'''

_SCRIPTED = """\
# The offline model that `model: scripted:scripted.yaml` plays. Each model call takes the first
# unused turn whose `when:` regex matches the latest user message (`repeat: true`: never used up).
turns:
__GREETING__
  - when: "(?i)my name is"
    function_calls:
      - name: remember_name
        args: {name: Alex}
  - when: "(?i)my name is"
    text: Nice to meet you, Alex! I'll remember your name.
  - text: I'm a scripted model and only know a few lines. Run me with --model for a real one.
    repeat: true        # the catch-all answers every message the turns above do not
"""

_GREETING = """\
  - when: "(?i)\\\\b(hi|hello|hey)\\\\b"
    text: Hello! I'm __AGENT__. What's your name?
"""

# With the skill: the scripted model loads it first, as a real model would.
_GREETING_WITH_SKILL = (
    """\
  - when: "(?i)\\\\b(hi|hello|hey)\\\\b"
    function_calls:
      - name: load_skill
        args: {skill_name: small-talk}
"""
    + _GREETING
)

_REPLAY = """\
{
  "state": {},
  "queries": ["hello", "my name is Alex", "what can you do?"]
}
"""

_SKILL = """\
---
name: small-talk
description: How to greet people and make small talk. Load it when the user just says hello.
---
Greet the user warmly in one sentence. If you do not know their name yet, ask for it.
Do not ask more than one question at a time.
"""

_EXAMPLES = """\
# Few-shot examples shown to the model (the `examples:` key of root_agent.yaml).
- input: {role: user, parts: [{text: "Hi, I'm Sam."}]}
  output:
    - role: model
      parts:
        - function_call: {name: remember_name, args: {name: Sam}}
    - role: model
      parts: [{text: "Nice to meet you, Sam!"}]
"""


_AGENT_PY = '''\
"""__AGENT__: an agent written in Python, laid out as google-adk lays agent folders out (an
`agent.py` defining `root_agent`). Run it with `yadk run __AGENT__ "hello"`; `--model NAME`
runs it on another model.
"""

from __future__ import annotations

from pathlib import Path

from yadk import Agent
__MODEL_IMPORT__
from .tools import remember_name

HERE = Path(__file__).parent

root_agent = Agent(
    name="__AGENT__",
    description="A friendly assistant that remembers the user's name.",
    model=__PY_MODEL__,
    instruction=(HERE / "prompts" / "instruction.md").read_text(encoding="utf-8"),
    tools=[remember_name],
)
'''

# `from . import agent`, as google-adk's own samples write a package's __init__.py.
_INIT_PY = "from . import agent\n"

_GITIGNORE = """\
# Written by `yadk new`: local session stores and secrets stay out of version control.
.yadk/
.env
__pycache__/
"""

_ENV_EXAMPLE = """\
# Copy to .env and fill in the key of the model service you use (`yadk run` reads .env).
# GOOGLE_API_KEY=...
# OPENAI_API_KEY=...
# ANTHROPIC_API_KEY=...
"""

SCRIPTED = "scripted:scripted.yaml"


def scaffold_files(
    agent_name: str, *, schema: str, extras: bool, model: str = SCRIPTED, kind: str = "config"
) -> dict[str, str]:
    """Relative path -> text for a new agent folder. ``extras`` adds a skill and examples (to a
    config agent); ``kind`` is ``config`` (root_agent.yaml) or ``code`` (agent.py)."""
    extras = extras and kind == "config"
    files: dict[str, str] = {}
    if kind == "code":
        scripted = model == SCRIPTED
        files["agent.py"] = _AGENT_PY.replace("__PY_MODEL__", _python_model(model)).replace(
            "__MODEL_IMPORT__", "from yadk.models import ScriptedModel\n" if scripted else ""
        )
        files["__init__.py"] = _INIT_PY
    else:
        header = _HEADER_SCRIPTED if model == SCRIPTED else _HEADER_MODEL
        files["root_agent.yaml"] = (
            _ROOT_AGENT.replace("__EXTRAS__", _EXTRAS if extras else "")
            .replace("__HEADER__\n", header)
            .replace("__MODEL__", model)
        )
        files["agent.schema.json"] = schema
    files["prompts/instruction.md"] = _INSTRUCTION
    files["tools.py"] = _TOOLS
    files["scripted.yaml"] = _SCRIPTED.replace(
        "__GREETING__\n", _GREETING_WITH_SKILL if extras else _GREETING
    )
    files["replay.json"] = _REPLAY
    if extras:
        files["skills/small-talk/SKILL.md"] = _SKILL
        files["examples.yaml"] = _EXAMPLES
    files[".gitignore"] = _GITIGNORE
    files[".env.example"] = _ENV_EXAMPLE
    return {path: text.replace("__AGENT__", agent_name) for path, text in files.items()}


def _python_model(model: str) -> str:
    """The ``model=`` expression of agent.py: the scripted file beside it, or the name given."""
    if model == SCRIPTED:
        return 'ScriptedModel.from_file(HERE / "scripted.yaml")'
    return json.dumps(model)
