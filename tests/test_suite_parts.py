"""The suite's parts hold: what needs PostgreSQL, a browser or a program is marked, so
``scripts/check --fast`` (``-m FAST``) never reaches for a server, a browser or a subprocess."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests import suite_parts

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parent.parent


def test_every_collected_test_that_uses_postgres_or_a_browser_is_marked(
    request: pytest.FixtureRequest,
) -> None:
    """Over the tests of this run (all of them under ``scripts/check``, only the unmarked ones
    under ``--fast``, where none may use PostgreSQL or a browser at all)."""
    unmarked = []
    for item in request.session.items:
        used = set(getattr(item, "fixturenames", ()))
        needs = []
        if used & suite_parts.POSTGRES_FIXTURES:
            needs.append("postgres")
        if used & suite_parts.BROWSER_FIXTURES:
            needs += ["browser", "subprocess"]
        unmarked += [
            f"{item.nodeid}: {mark}" for mark in needs if not item.get_closest_marker(mark)
        ]
    assert unmarked == []


def test_the_fast_part_is_the_tests_without_the_four_markers() -> None:
    assert suite_parts.FAST == "not postgres and not browser and not subprocess and not slow"
    check = (REPO / "scripts" / "check").read_text(encoding="utf-8")
    assert f'\nFAST="{suite_parts.FAST}"\n' in check and 'select=(-m "$FAST")' in check
    # Only the fast part runs in two processes (pytest-xdist): the whole gate stays as CI runs it.
    assert 'select=(-m "$FAST"); workers=(-n 2) ;;' in check


def test_markers_follow_from_fixtures() -> None:
    assert suite_parts.marks_from_fixtures(["tmp_path", "postgres_url"]) == ["postgres"]
    assert suite_parts.marks_from_fixtures(["tab", "tmp_path"]) == ["browser", "subprocess"]
    assert suite_parts.marks_from_fixtures(["tmp_path", "session"]) == []


@pytest.mark.parametrize(
    ("case", "marks"),
    [
        ("postgres", ["postgres"]),
        ("postgres-get", ["postgres"]),
        ("postgresql", ["postgres"]),
        ("sqlite", []),
        ("memory-recent", []),
        ("postgres_like", []),
    ],
    ids=["a", "b", "c", "d", "e", "f"],  # ids of their own: these cases use no database
)
def test_a_case_named_for_postgres_is_marked(case: str, marks: list[str]) -> None:
    assert suite_parts.marks_from_case(case) == marks


def test_a_test_that_starts_a_program_without_the_marker_fails(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen through the audit event every ``subprocess.Popen`` raises (raised here by hand, so
    no program is started): the unmarked test fails at teardown, naming the marker."""
    pytester.makeini(
        """
        [pytest]
        markers = subprocess: starts a program
        """
    )
    pytester.makepyfile(
        test_spawning="""
        import sys

        import pytest

        def test_unmarked():
            sys.audit("subprocess.Popen", "chromium", ["chromium"], None, None)

        @pytest.mark.subprocess
        def test_marked():
            sys.audit("subprocess.Popen", "chromium", ["chromium"], None, None)

        def test_quiet():
            pass
        """
    )
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # the inner run needs none
    try:
        result = pytester.runpytest_inprocess("-p", "tests.suite_parts", "-p", "no:cacheprovider")
    finally:
        suite_parts._started.clear()  # the inner run's events are not this test's
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*test_spawning.py::test_unmarked started a program (subprocess.Popen 'chromium')"
            " without the `subprocess` marker: add @pytest.mark.subprocess (or pytestmark) so"
            " `scripts/check --fast` skips it.",
        ]
    )
    assert "test_marked started" not in result.stdout.str()
