"""src/ reaches psycopg and pydantic only through their public, documented API: no underscored
names of theirs, no edits of pydantic's private attributes or core schemas, no class swaps on
live objects, and the garbage collector is never switched off."""

from __future__ import annotations

import re
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

# (what is refused, a pattern that finds it in a line of source)
RULES: list[tuple[str, re.Pattern[str]]] = [
    (
        "a private module or name of psycopg, psycopg_pool, pydantic or pydantic_core",
        re.compile(r"\b(psycopg|psycopg_pool|pydantic|pydantic_core)(\.\w+)*\._[a-z]\w*"),
    ),
    (
        "an underscored name imported from psycopg, pydantic or pydantic_core",
        re.compile(
            r"from\s+(psycopg|psycopg_pool|pydantic|pydantic_core)[\w.]*\s+import\s+"
            r"(\(?\s*)?([\w ,]*,\s*)?_[a-z]"
        ),
    ),
    ("libpq driven directly (psycopg's pq layer)", re.compile(r"\.pgconn\b|\bpsycopg\.pq\b")),
    ("psycopg's connection lock", re.compile(r"\bconn(ection)?\.lock\b")),
    ("psycopg's error_from_result", re.compile(r"\berror_from_result\b")),
    (
        "a private pydantic attribute",
        re.compile(
            r"__pydantic_(complete|core_schema|validator|serializer|decorators|generic_metadata"
            r"|parent_namespace|fields_set|extra|private)__"
        ),
    ),
    ("a class swapped on a live object", re.compile(r"__class__[\"']?\s*[,)=]|__class__\s*=")),
    (
        "the garbage collector switched off",
        re.compile(r"\bgc\.(disable|freeze|set_threshold)\s*\("),
    ),
    ("pydantic-core's SchemaValidator built by hand", re.compile(r"\bSchemaValidator\b")),
]


def offences(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            for what, pattern in RULES:
                if pattern.search(code):
                    found.append(f"{path.relative_to(root)}:{number}: {what}: {line.strip()}")
    return found


def test_src_uses_only_public_apis_of_psycopg_and_pydantic() -> None:
    assert offences(SRC) == []


def test_the_guard_finds_each_kind_of_offence(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text(
        "from pydantic._internal import _decorators\n"
        "from psycopg import _encodings\n"
        "import pydantic_core._pydantic_core\n"
        "async with conn.lock:\n"
        "    result = conn.pgconn.get_result()\n"
        "raise errors.error_from_result(result)\n"
        "del twin.__pydantic_complete__\n"
        "schema = Model.__pydantic_core_schema__\n"
        'object.__setattr__(model, "__class__", twin)\n'
        "model.__class__ = Other\n"
        "gc.disable()\n"
        "validate = SchemaValidator(schema).validate_json\n"
        "from pydantic import BaseModel, TypeAdapter  # public: not an offence\n",
        encoding="utf-8",
    )
    assert [line.split(": ", 2)[1] for line in offences(tmp_path)] == [
        "a private module or name of psycopg, psycopg_pool, pydantic or pydantic_core",
        "an underscored name imported from psycopg, pydantic or pydantic_core",
        "an underscored name imported from psycopg, pydantic or pydantic_core",
        "a private module or name of psycopg, psycopg_pool, pydantic or pydantic_core",
        "psycopg's connection lock",
        "libpq driven directly (psycopg's pq layer)",
        "psycopg's error_from_result",
        "a private pydantic attribute",
        "a private pydantic attribute",
        "a class swapped on a live object",
        "a class swapped on a live object",
        "the garbage collector switched off",
        "pydantic-core's SchemaValidator built by hand",
    ]
