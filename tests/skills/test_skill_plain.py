"""plainly_valid: frontmatter that needs no pydantic model to be known valid (yadk validate).

It may say "not sure" about valid frontmatter, never "valid" about frontmatter the
``Frontmatter`` model rejects once ``check_frontmatter`` found no error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from yadk.skills._checks import check_frontmatter, normalize_name, plainly_valid
from yadk.skills._models import Frontmatter
from yadk.skills._validation import validate_skill_paths

CLEAN = {"name": "demo", "description": "Does a thing."}


@pytest.mark.parametrize(
    ("data", "plain"),
    [
        (CLEAN, True),
        ({**CLEAN, "license": "MIT", "metadata": {"adk_inject_state": True}}, True),
        ({**CLEAN, "allowed-tools": "Read", "compatibility": None}, True),
        ({**CLEAN, "metadata": None}, False),  # the model rejects it; the rules do not
        ({**CLEAN, "metadata": {1: "x"}}, False),
        ({**CLEAN, 3: "x"}, False),
        ({**CLEAN, "allowed-tools": "A", "allowed_tools": "B"}, False),
    ],
)
def test_plainly_valid(data: dict[Any, Any], plain: bool) -> None:
    assert plainly_valid(data) is plain


def test_null_metadata_is_still_reported(tmp_path: Path) -> None:
    skill = tmp_path / "demo"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: demo\ndescription: d\nmetadata:\n---\nDo it.\n")
    [problem] = validate_skill_paths([skill])
    assert (problem.line, problem.rule, problem.message) == (
        4,
        "skill-frontmatter-invalid",
        "metadata: Input should be a valid dictionary",
    )


def test_duplicate_names_are_found_without_the_model(tmp_path: Path) -> None:
    for parent in ("a", "b"):
        (tmp_path / parent / "demo").mkdir(parents=True)
        (tmp_path / parent / "demo" / "SKILL.md").write_text(
            "---\nname: demo\ndescription: d\n---\nx\n"
        )
    problems = validate_skill_paths([tmp_path / "a" / "demo", tmp_path / "b" / "demo"])
    assert [(p.path, p.rule, p.message) for p in problems] == [
        (
            str(tmp_path / "b" / "demo" / "SKILL.md"),
            "skill-name-duplicate",
            "Duplicate skill name 'demo'.",
        )
    ]


JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-1, 1),
    st.sampled_from(["", "Demo", "x" * 70]),
    st.lists(st.sampled_from(["a", 1]), max_size=2),
    st.dictionaries(st.sampled_from(["k", 1]), st.none(), max_size=2),
)


def _either(good: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly the right value, one time in six anything."""
    return st.integers(0, 5).flatmap(lambda roll: JUNK if roll == 0 else good)


METADATA = st.dictionaries(
    st.sampled_from(["adk_inject_state", "adk_additional_tools", "k", 1]),
    st.one_of(st.booleans(), st.lists(st.sampled_from(["a", 1]), max_size=2)),
    max_size=2,
)
FRONTMATTER = st.fixed_dictionaries(
    {"name": _either(st.sampled_from(["demo", "a-b"])), "description": _either(st.just("d"))},
    optional={
        **{key: _either(st.just("text")) for key in ("license", "compatibility")},
        **{key: _either(st.just("Read")) for key in ("allowed-tools", "allowed_tools")},
        "metadata": _either(METADATA),
        "extra": JUNK,
        7: JUNK,
    },
)


@settings(
    max_examples=300, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(data=FRONTMATTER)
def test_plainly_valid_frontmatter_makes_the_model(data: dict[Any, Any]) -> None:
    errors = [p for p in check_frontmatter(data) if p.severity == "error"]
    if errors or not plainly_valid(data):
        return
    try:
        frontmatter = Frontmatter.model_validate(data)
    except ValidationError as exc:  # pragma: no cover - the property this test guards
        pytest.fail(f"plainly_valid({data!r}) but the model says {exc}")
    assert frontmatter.name == normalize_name(data["name"])
