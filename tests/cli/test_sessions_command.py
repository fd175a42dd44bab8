"""yadk sessions: list, show, export, import (SQLite -> PostgreSQL) and delete."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

from yadk.events import Event, EventActions
from yadk.sessions import PostgresSessionService, SqliteSessionService
from yadk.types import ModelContent, UserContent

Cli = Callable[..., tuple[int, str, str]]


async def _seed(db: Path) -> str:
    service = SqliteSessionService(db)
    s = await service.create_session(
        app_name="desk", user_id="ada", session_id="s1", state={"app:tier": "gold", "k": 0}
    )
    await service.append_event(
        s, Event(author="user", content=UserContent("Where is A-1?"), actions=EventActions())
    )
    await service.append_event(
        s,
        Event(
            author="desk",
            content=ModelContent("Shipped."),
            actions=EventActions(state_delta={"k": 1, "user:lang": "fr"}),
        ),
    )
    await service.aclose()
    return s.id


def test_list_show_export_import_delete(cli: Cli, tmp_path: Path, postgres_url: str) -> None:
    db = tmp_path / "s.db"
    asyncio.run(_seed(db))
    code, out, err = cli("sessions", "list", "--db", str(db))
    assert code == 0 and out.startswith("desk\tada\ts1\t") and out.endswith("\t3 state keys\n")
    code, out, _ = cli("sessions", "show", "s1", "--db", str(db))
    assert code == 0
    assert "conversation:\n  [user]: Where is A-1?\n  [desk]: Shipped.\n" in out
    assert out.endswith(
        'state:\n  session:\n    k = 1\n  user:\n    lang = "fr"\n  app:\n    tier = "gold"\n'
    )
    export = tmp_path / "s1.json"
    assert cli("sessions", "export", "s1", "--db", str(db), "-o", str(export))[0] == 0
    document = json.loads(export.read_text(encoding="utf-8"))
    assert document["format"] == "yadk.session/1"
    assert [e["author"] for e in document["events"]] == ["user", "desk"]
    code, out, err = cli("sessions", "import", str(export), "--db", postgres_url)
    assert (code, err) == (0, "")
    assert out == "imported session s1 (2 events) into app desk, user ada\n"

    async def imported() -> tuple[dict, list[str]]:
        service = PostgresSessionService(postgres_url)
        s = await service.get_session(app_name="desk", user_id="ada", session_id="s1")
        await service.aclose()
        assert s is not None
        return s.state, [e.id for e in s.events]

    state, ids = asyncio.run(imported())
    assert state == {"k": 1, "user:lang": "fr", "app:tier": "gold"}
    assert ids == [e["id"] for e in document["events"]]
    code, out, err = cli("sessions", "delete", "s1", "--db", str(db))
    assert (code, out) == (0, "deleted session s1 (2 events)\n")
    code, out, err = cli("sessions", "show", "s1", "--db", str(db))
    assert code == 1 and err == f"yadk sessions: error: no session 's1' in {db}\n"


def test_import_refuses_a_file_that_is_not_an_export(cli: Cli, tmp_path: Path) -> None:
    bogus = tmp_path / "x.json"
    bogus.write_text('{"state": {}}', encoding="utf-8")
    code, out, err = cli("sessions", "import", str(bogus), "--db", str(tmp_path / "s.db"))
    assert (code, out) == (1, "")
    assert "not a session export" in err
    assert cli("sessions", "show", "--db", str(tmp_path / "s.db"))[0] == 2
