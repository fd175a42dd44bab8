"""The suite in parts: which tests need PostgreSQL, a browser, a subprocess, or seconds.

``scripts/check --fast`` runs the tests with none of the markers ``postgres``, ``browser``,
``subprocess`` and ``slow``; ``scripts/check`` runs them all. So that the fast part never needs
a server or a program it cannot start, the markers follow from what a test uses:

- a test whose fixtures include ``postgres_url``, or one case of a table whose id names
  ``postgres`` or ``postgresql`` (contract suites run over every store and ask for the URL only
  in that case), is marked ``postgres``; the ``postgres_url`` fixture fails a test it serves
  that is not marked, so a test that gets the URL another way cannot slip into the fast part;
- a test whose fixtures include a browser fixture (``BROWSER_FIXTURES``) is marked ``browser``
  and ``subprocess`` (the browser is a program of its own).

Everything else is marked where it is defined (``pytestmark`` or a decorator). An audit hook sees
every program a test starts (``subprocess.Popen``, ``os.posix_spawn``, ``os.fork``,
``os.forkpty``, ``os.system``), and a test that starts one without the ``subprocess`` marker
fails, naming the program and the marker: the fast part can never start one by accident.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

FAST = "not postgres and not browser and not subprocess and not slow"

POSTGRES_FIXTURES = frozenset({"postgres_url"})
BROWSER_FIXTURES = frozenset({"browser", "tab"})
FIXTURE_MARKS = (
    (POSTGRES_FIXTURES, ("postgres",)),
    (BROWSER_FIXTURES, ("browser", "subprocess")),
)

_SPAWN_EVENTS = frozenset(
    {"subprocess.Popen", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty", "os.system"}
)
_started: list[str] = []


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event in _SPAWN_EVENTS:
        _started.append(f"{event} {args[0]!r}" if args else event)


sys.addaudithook(_audit)


def marks_from_fixtures(fixturenames: list[str]) -> list[str]:
    """The markers a test gets from the fixtures it uses (directly or through other fixtures)."""
    used = set(fixturenames)
    return [mark for names, marks in FIXTURE_MARKS if used & names for mark in marks]


POSTGRES_CASE_IDS = frozenset({"postgres", "postgresql"})


def marks_from_case(case_id: str) -> list[str]:
    """The markers a case of a parametrized test gets from its id (``sqlite``, ``postgres-get``)."""
    return ["postgres"] if POSTGRES_CASE_IDS & set(case_id.split("-")) else []


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        marks = marks_from_fixtures(list(getattr(item, "fixturenames", ())))
        callspec = getattr(item, "callspec", None)
        if callspec is not None:
            marks += marks_from_case(callspec.id)
        for mark in marks:
            if item.get_closest_marker(mark) is None:
                item.add_marker(mark)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    _started.clear()
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    report = yield
    if (
        _started
        and report.when == "teardown"
        and item.get_closest_marker("subprocess") is None
        and os.environ.get("YADK_TEST_ALLOW_UNMARKED_SUBPROCESS") != "1"
    ):
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} started a program ({_started[0]}) without the `subprocess` marker:"
            " add @pytest.mark.subprocess (or pytestmark) so `scripts/check --fast` skips it."
        )
    return report
