"""Artifact services: versions, scopes, listing, deletion; files never leave the root."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from yadk.artifacts import (
    BaseArtifactService,
    FileArtifactService,
    InMemoryArtifactService,
    PostgresArtifactService,
)
from yadk.errors import ArtifactError
from yadk.types import Part


@pytest.fixture(params=["memory", "file", "postgres"])
async def service(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[BaseArtifactService]:
    if request.param == "memory":
        store: BaseArtifactService = InMemoryArtifactService()
    elif request.param == "file":
        store = FileArtifactService(tmp_path / "artifacts")
    else:
        store = PostgresArtifactService(request.getfixturevalue("postgres_url"))
    yield store
    await store.aclose()


KW = {"app_name": "app", "user_id": "u", "session_id": "s1"}


async def test_versions(service: BaseArtifactService) -> None:
    assert await service.save_artifact(filename="r.md", artifact=Part(text="v0"), **KW) == 0
    assert await service.save_artifact(filename="r.md", artifact=Part(text="v1"), **KW) == 1
    latest = await service.load_artifact(filename="r.md", **KW)
    assert latest is not None and latest.text == "v1"
    first = await service.load_artifact(filename="r.md", version=0, **KW)
    assert first is not None and first.text == "v0"
    assert await service.load_artifact(filename="r.md", version=7, **KW) is None
    assert await service.list_versions(filename="r.md", **KW) == [0, 1]


async def test_bytes_round_trip(service: BaseArtifactService) -> None:
    part = Part.from_bytes(data=b"\x89PNG", mime_type="image/png")
    await service.save_artifact(filename="img.png", artifact=part, **KW)
    loaded = await service.load_artifact(filename="img.png", **KW)
    assert loaded is not None and loaded.inline_data is not None
    assert loaded.inline_data.data == b"\x89PNG"
    assert loaded.inline_data.mime_type == "image/png"


async def test_scopes_and_listing(service: BaseArtifactService) -> None:
    await service.save_artifact(filename="a.txt", artifact=Part(text="a"), **KW)
    await service.save_artifact(filename="user:prefs", artifact=Part(text="p"), **KW)
    other = dict(KW, session_id="s2")
    assert await service.list_artifact_keys(**KW) == ["a.txt", "user:prefs"]
    assert await service.list_artifact_keys(**other) == ["user:prefs"]
    shared = await service.load_artifact(filename="user:prefs", **other)
    assert shared is not None and shared.text == "p"
    assert await service.load_artifact(filename="a.txt", **other) is None


async def test_delete(service: BaseArtifactService) -> None:
    await service.save_artifact(filename="a.txt", artifact=Part(text="a"), **KW)
    await service.delete_artifact(filename="a.txt", **KW)
    assert await service.load_artifact(filename="a.txt", **KW) is None
    assert await service.list_artifact_keys(**KW) == []


@pytest.mark.parametrize("bad", ["", "..", "."])
async def test_invalid_names(service: BaseArtifactService, bad: str) -> None:
    with pytest.raises(ArtifactError):
        await service.save_artifact(filename=bad, artifact=Part(text="x"), **KW)


async def test_file_names_cannot_escape_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    service = FileArtifactService(root)
    await service.save_artifact(
        app_name="../evil",
        user_id="../../u",
        session_id="/etc",
        filename="../../x",
        artifact=Part(text="x"),
    )
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert written and all(root in p.parents for p in written)
    loaded = await service.load_artifact(
        app_name="../evil", user_id="../../u", session_id="/etc", filename="../../x"
    )
    assert loaded is not None and loaded.text == "x"


async def test_file_service_does_its_file_work_off_the_event_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from yadk.artifacts import FileArtifactService

    loop_thread = threading.current_thread()
    seen: list[str] = []

    def spy(method: str) -> None:
        original = getattr(FileArtifactService, method)

        def wrapper(self: FileArtifactService, *args: object) -> object:
            seen.append(method)
            assert threading.current_thread() is not loop_thread, f"{method} ran on the loop"
            return original(self, *args)

        monkeypatch.setattr(FileArtifactService, method, wrapper)

    for method in ("_write_next", "_read", "_keys", "_delete", "_versions"):
        spy(method)
    service = FileArtifactService(tmp_path)
    where = {"app_name": "a", "user_id": "u", "session_id": "s"}
    await service.save_artifact(**where, filename="f.txt", artifact=Part(text="x"))
    assert (await service.load_artifact(**where, filename="f.txt")) == Part(text="x")
    assert await service.list_artifact_keys(**where) == ["f.txt"]
    assert await service.list_versions(**where, filename="f.txt") == [0]
    await service.delete_artifact(**where, filename="f.txt")
    assert {"_write_next", "_read", "_keys", "_delete", "_versions"} <= set(seen)


async def test_postgres_artifacts_have_a_size_limit(postgres_url: str) -> None:
    service = PostgresArtifactService(postgres_url, max_bytes=100)
    with pytest.raises(ArtifactError, match="over the limit of 100; save a smaller file"):
        await service.save_artifact(**KW, filename="big.txt", artifact=Part(text="x" * 200))
    assert await service.list_versions(**KW, filename="big.txt") == []
    await service.aclose()


async def test_postgres_replicas_saving_at_once_get_distinct_versions(postgres_url: str) -> None:
    import asyncio

    replicas = [PostgresArtifactService(postgres_url) for _ in range(3)]
    versions = await asyncio.gather(
        *(
            r.save_artifact(**KW, filename="f.txt", artifact=Part(text=f"{i}-{n}"))
            for n in range(5)
            for i, r in enumerate(replicas)
        )
    )
    assert sorted(versions) == list(range(15))
    for r in replicas:
        await r.aclose()
