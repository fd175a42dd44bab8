"""The files ``yadk new`` writes: a small agent that runs offline on a scripted model.

``__AGENT__`` stands for the agent's name. Plain replacement, not ``str.format``: the instruction holds ``{user_name?}``
placeholders that must reach the file untouched.
"""

from __future__ import annotations

__all__ = ["scaffold_files"]

_ROOT_AGENT = """\
# yaml-language-server: $schema=agent.schema.json
# Made by `yadk new`. It runs offline on a scripted model:
#   yadk run __AGENT__ "hello"
# and on a real one with --model, e.g. `yadk run __AGENT__ --model gemini-2.5-flash`.
name: __AGENT__
description: A friendly assistant that remembers the user's name.
model: scripted:scripted.yaml
instruction:
  file: prompts/instruction.md
tools:
  - name: .tools.remember_name
state:
  user_name: The name the user asked to be called (written by remember_name).
__EXTRAS__"""

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
# unused turn whose `when:` regex matches the latest user message.
turns:
__GREETING__
  - when: "(?i)my name is"
    function_calls:
      - name: remember_name
        args: {name: Alex}
  - when: "(?i)my name is"
    text: Nice to meet you, Alex! I'll remember your name.
  - text: I'm a scripted model and only know a few lines. Run me with --model for a real one.
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


def scaffold_files(agent_name: str, *, schema: str, extras: bool) -> dict[str, str]:
    """Relative path -> text for a new agent folder. ``extras`` adds a skill and examples."""
    files = {
        "root_agent.yaml": _ROOT_AGENT.replace("__EXTRAS__", _EXTRAS if extras else ""),
        "agent.schema.json": schema,
        "prompts/instruction.md": _INSTRUCTION,
        "tools.py": _TOOLS,
        "scripted.yaml": _SCRIPTED.replace(
            "__GREETING__\n", _GREETING_WITH_SKILL if extras else _GREETING
        ),
        "replay.json": _REPLAY,
    }
    if extras:
        files["skills/small-talk/SKILL.md"] = _SKILL
        files["examples.yaml"] = _EXAMPLES
    return {path: text.replace("__AGENT__", agent_name) for path, text in files.items()}
