"""``yadk new``: scaffold an agent folder that runs offline at once."""

from __future__ import annotations

import argparse
import json
import keyword
from pathlib import Path

from yadk.cli._common import EXIT_OK, EXIT_USAGE, CommandError
from yadk.cli._scaffold import SCRIPTED, scaffold_files
from yadk.config import agent_config_json_schema

__all__ = ["agent_name_for", "create_agent_folder", "execute"]

# Whether the generated root_agent.yaml uses the yadk `skills:` and `examples:` keys.
WITH_SKILL_AND_EXAMPLES = True


def agent_name_for(folder: Path) -> str:
    """The agent name a folder gets: its last part, which must also work as a Python package
    name (the config refers to its tools module relative to the folder, as `.tools.x`)."""
    name = folder.name
    if not name.isidentifier() or keyword.iskeyword(name) or name == "user":
        raise CommandError(
            f"cannot name an agent {name!r}: the folder's last part must be a Python identifier"
            " (letters, digits and '_', not starting with a digit), e.g. my_agent",
            exit_code=EXIT_USAGE,
        )
    return name


def create_agent_folder(folder: Path, *, model: str = SCRIPTED, kind: str = "config") -> list[str]:
    """Write the scaffold into ``folder`` (which must not exist); returns the files written.
    ``kind``: ``config`` (root_agent.yaml) or ``code`` (agent.py, as ``adk create --type code``)."""
    name = agent_name_for(folder)
    if folder.exists():
        raise CommandError(
            f"{str(folder)!r} already exists; choose another name or remove it first"
        )
    schema = json.dumps(agent_config_json_schema(), indent=2, ensure_ascii=False) + "\n"
    files = scaffold_files(
        name, schema=schema, extras=WITH_SKILL_AND_EXAMPLES, model=model, kind=kind
    )
    for relative, text in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return list(files)


def execute(args: argparse.Namespace) -> int:
    folder = Path(args.name)
    model = args.model or SCRIPTED
    if not model.strip():
        raise CommandError(
            "--model needs a model name, e.g. gemini-2.5-flash", exit_code=EXIT_USAGE
        )
    written = create_agent_folder(folder, model=model, kind=args.type)
    print(f"Created {folder}/ with:")
    for relative in written:
        print(f"  {relative}")
    print("Try it:")
    print(f'  yadk run {folder} "hello"')
    print(f"  yadk run {folder} --replay {folder / 'replay.json'}")
    if model != SCRIPTED:
        print(f'  yadk run {folder} "hello" --model scripted:{folder / "scripted.yaml"}')
    print(f"  yadk inspect {folder} --message hello")
    return EXIT_OK
