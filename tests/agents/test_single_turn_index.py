"""A single-turn agent's own run's events come from an index kept per session object and
extended by what each call finds appended: the same events, in the same order, as reading the
whole session, also after the session is read again (a new list) or its history replaced."""

from __future__ import annotations

from yadk.agents._single_turn import _run_events
from yadk.events import Event, NodeInfo
from yadk.sessions import Session
from yadk.types import ModelContent


def _event(invocation: str, path: str | None, text: str) -> Event:
    info = NodeInfo(path=path) if path is not None else None
    return Event(author="w", invocation_id=invocation, node_info=info, content=ModelContent(text))


def _scan(session: Session, invocation: str, node_path: str) -> list[Event]:
    inside = node_path + "/"
    return [
        e
        for e in session.events
        if e.invocation_id == invocation
        and e.node_info is not None
        and (e.node_info.path == node_path or e.node_info.path.startswith(inside))
    ]


QUERIES = [
    ("i1", "flow@1/writer@1"),
    ("i1", "flow@1/writer@2"),
    ("i1", "flow@1"),
    ("i2", "flow@1/writer@1"),
    ("i1", "flow@1/writ"),
]


def test_the_index_finds_what_a_scan_of_the_session_finds() -> None:
    session = Session(id="s", app_name="a", user_id="u")
    session.events += [
        _event("i1", None, "user"),
        _event("i1", "flow@1/writer@1", "draft"),
        _event("i1", "flow@1/writer@1/tool@1", "tool"),
        _event("i1", "flow@1/check@1", "check"),
    ]
    for invocation, path in QUERIES:
        assert _run_events(session, invocation, path) == _scan(session, invocation, path)
    session.events += [  # appended since: read incrementally
        _event("i1", "flow@1/writer@2", "again"),
        _event("i2", "flow@1/writer@1", "next turn"),
        _event("i1", "flow@1/writer@1", "late"),
    ]
    for invocation, path in QUERIES:
        assert _run_events(session, invocation, path) == _scan(session, invocation, path)
    assert [
        e.content and e.content.parts[0].text for e in _run_events(session, "i1", "flow@1/writer@1")
    ] == [
        "draft",
        "tool",
        "late",
    ]
    session.events = session.events[:2]  # read again / history replaced: indexed afresh
    for invocation, path in QUERIES:
        assert _run_events(session, invocation, path) == _scan(session, invocation, path)
