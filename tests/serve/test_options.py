"""create_app's options: one frozen ServeOptions, keywords changing single fields of it, and
the docs' list of its fields kept to the dataclass."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from yadk.serve import Limits, ServeOptions, create_app
from yadk.sessions import InMemorySessionService

DOCS = Path(__file__).resolve().parents[2] / "docs" / "serve.md"


def section() -> str:
    text = DOCS.read_text()
    return text.split("## Python: `create_app`", 1)[1].split("\n## ", 1)[0]


def test_the_docs_name_every_field_with_its_default() -> None:
    listed = section().split("The fields, with their defaults:", 1)[1].split("`.", 1)[0]
    names = re.findall(r"(\w+)=", listed)
    assert names == [f.name for f in dataclasses.fields(ServeOptions)]
    defaults = ServeOptions()
    assert f"busy_wait={defaults.busy_wait}" in listed
    assert f"reload_interval={defaults.reload_interval}" in listed


def test_the_docs_example_builds_the_apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agents = Path(__file__).parent / "agents"
    (tmp_path / "configs").symlink_to(agents)
    monkeypatch.chdir(tmp_path)
    code = section().split("```python\n", 1)[1].split("```", 1)[0]
    scope: dict[str, Any] = {}
    exec(code, scope)
    assert scope["options"].limits == Limits(body_timeout=60)
    assert scope["app"].state.served.locks.wait == 2.0


async def request_with(app: Any, token: str | None) -> int:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return (await client.get("/list-apps", headers=headers)).status_code


async def test_keywords_change_fields_of_the_options_given(apps_dir: Path) -> None:
    options = ServeOptions(session_service=InMemorySessionService(), token="s3cret")
    assert await request_with(create_app(apps_dir, options), None) == 401
    assert await request_with(create_app(apps_dir, options), "s3cret") == 200
    opened = create_app(apps_dir, options, token=None)  # the keyword wins
    assert await request_with(opened, None) == 200
    assert options.token == "s3cret"  # frozen: the caller's options are left as they were
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.token = "other"  # type: ignore[misc]


def test_an_unknown_keyword_is_refused(apps_dir: Path) -> None:
    with pytest.raises(TypeError, match="no_such_option"):
        create_app(apps_dir, session_service=InMemorySessionService(), no_such_option=1)
