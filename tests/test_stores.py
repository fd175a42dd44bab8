"""open_stores: one database URL chooses where sessions and artifacts live."""

from __future__ import annotations

from pathlib import Path

import pytest

from yadk.artifacts import FileArtifactService, InMemoryArtifactService
from yadk.errors import SessionError
from yadk.sessions import InMemorySessionService, SqliteSessionService, open_session_service
from yadk.stores import open_stores
from yadk.types import Part


@pytest.mark.parametrize(
    ("url", "db_file", "artifacts_root"),
    [
        ("data/s.db", "data/s.db", "data/artifacts"),
        ("sqlite:///data/s.db", "data/s.db", "data/artifacts"),
    ],
)
async def test_sqlite_url_puts_artifacts_beside_the_file(
    url: str, db_file: str, artifacts_root: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    stores = open_stores(url)
    try:
        assert stores.where == url
        assert isinstance(stores.sessions, SqliteSessionService)
        assert stores.sessions.path == Path(db_file)
        assert isinstance(stores.artifacts, FileArtifactService)
        assert stores.artifacts.root == Path(artifacts_root)
        session = await stores.sessions.create_session(app_name="a", user_id="u")
        await stores.artifacts.save_artifact(
            app_name="a", user_id="u", session_id=session.id, filename="f", artifact=Part(text="x")
        )
    finally:
        await stores.aclose()
    assert Path(db_file).is_file()
    assert any(Path(artifacts_root).rglob("0.json"))


async def test_memory() -> None:
    stores = open_stores(":memory:")
    assert stores.where is None
    assert isinstance(stores.sessions, InMemorySessionService)
    assert isinstance(stores.artifacts, InMemoryArtifactService)
    await stores.aclose()


def test_session_service_alone(tmp_path: Path) -> None:
    assert isinstance(open_session_service(":memory:"), InMemorySessionService)
    service = open_session_service(tmp_path / "s.db")
    assert isinstance(service, SqliteSessionService)
    service.close_now()


def test_unknown_scheme_says_what_is_supported() -> None:
    with pytest.raises(SessionError, match="Unsupported session database 'mysql://x/y'"):
        open_stores("mysql://x/y")
