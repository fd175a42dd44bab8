"""``find_placeholders``: what a template reads, and the near-misses that silently stay literal."""

from __future__ import annotations

import pytest

from yadk.templating import Placeholder, find_placeholders

Row = tuple[str, str, bool, tuple[int, int], int, int]


def summary(template: str) -> list[Row]:
    return [
        (p.kind, p.name, p.optional, p.span, p.line, p.column) for p in find_placeholders(template)
    ]


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("No placeholders at all.", []),
        ("Hi {name}.", [("state", "name", False, (3, 9), 1, 4)]),
        ("{ plan_tier? }", [("state", "plan_tier", True, (0, 14), 1, 1)]),
        ("{{name}}", [("state", "name", False, (0, 8), 1, 1)]),
        (
            "{app:theme} {user:locale?} {temp:draft}",
            [
                ("state", "app:theme", False, (0, 11), 1, 1),
                ("state", "user:locale", True, (12, 26), 1, 13),
                ("state", "temp:draft", False, (27, 39), 1, 28),
            ],
        ),
        (
            "Intro\nFile: {artifact.notes.txt}\n  {artifact.report?}",
            [
                ("artifact", "notes.txt", False, (12, 32), 2, 7),
                ("artifact", "report", True, (35, 53), 3, 3),
            ],
        ),
        # deliberate literal text is not reported
        ('JSON: {"role": "user"} or {}', []),
        ("${name} \\{name} {0} {?} {% if x %}", []),
        ("function f() {\n  return {a: 1};\n}", []),
    ],
)
def test_placeholders_with_positions(template: str, expected: list[Row]) -> None:
    assert summary(template) == expected


def test_scope_of_state_placeholders() -> None:
    found = find_placeholders("{app:a}{user:b}{temp:c}{d}{artifact.e}")
    assert [p.scope for p in found] == ["app", "user", "temp", "session", None]


@pytest.mark.parametrize(
    ("template", "name", "span", "problem", "suggestion"),
    [
        (
            "Hello {customer name}!",
            "customer name",
            (6, 21),
            (
                "`{customer name}` is not a placeholder and stays in the prompt as written: a state "
                "name cannot contain spaces. Did you mean `{customer_name}`?"
            ),
            "{customer_name}",
        ),
        (
            "{name ?}",
            "name",
            (0, 8),
            (
                "`{name ?}` is not a placeholder and stays in the prompt as written: `?` must follow "
                "the name directly. Did you mean `{name?}`?"
            ),
            "{name?}",
        ),
        (
            "{name??}",
            "name?",
            (0, 8),
            (
                "`{name??}` is not a placeholder and stays in the prompt as written: only one "
                "trailing `?` is allowed. Did you mean `{name?}`?"
            ),
            "{name?}",
        ),
        (
            "{?name}",
            "?name",
            (0, 7),
            (
                "`{?name}` is not a placeholder and stays in the prompt as written: `?` goes after "
                "the name. Did you mean `{name?}`?"
            ),
            "{name?}",
        ),
        (
            "{app: theme}",
            "app: theme",
            (0, 12),
            (
                "`{app: theme}` is not a placeholder and stays in the prompt as written: no spaces "
                "are allowed around `:`. Did you mean `{app:theme}`?"
            ),
            "{app:theme}",
        ),
        (
            "{USER:locale}",
            "USER:locale",
            (0, 13),
            (
                "`{USER:locale}` is not a placeholder and stays in the prompt as written: state "
                "prefixes are lowercase. Did you mean `{user:locale}`?"
            ),
            "{user:locale}",
        ),
        (
            "{foo:bar}",
            "foo:bar",
            (0, 9),
            (
                "`{foo:bar}` is not a placeholder and stays in the prompt as written: `foo:` is not "
                "a state prefix (use `app:`, `user:`, `temp:`)."
            ),
            None,
        ),
        (
            "{a:b:c}",
            "a:b:c",
            (0, 7),
            (
                "`{a:b:c}` is not a placeholder and stays in the prompt as written: `a:` is not a "
                "state prefix (use `app:`, `user:`, `temp:`)."
            ),
            None,
        ),
        (
            "{user:a:b}",
            "user:a:b",
            (0, 10),
            (
                "`{user:a:b}` is not a placeholder and stays in the prompt as written: a state name "
                "has at most one prefix."
            ),
            None,
        ),
        (
            "{app:}",
            "app:",
            (0, 6),
            (
                "`{app:}` is not a placeholder and stays in the prompt as written: nothing follows "
                "`app:`."
            ),
            None,
        ),
        (
            "{app:dark-mode}",
            "app:dark-mode",
            (0, 15),
            (
                "`{app:dark-mode}` is not a placeholder and stays in the prompt as written: "
                "`dark-mode` is not a valid identifier. Did you mean `{app:dark_mode}`?"
            ),
            "{app:dark_mode}",
        ),
        (
            "{order-id}",
            "order-id",
            (0, 10),
            (
                "`{order-id}` is not a placeholder and stays in the prompt as written: a state name "
                "cannot contain `-`. Did you mean `{order_id}`?"
            ),
            "{order_id}",
        ),
        (
            "{user.name}",
            "user.name",
            (0, 11),
            (
                "`{user.name}` is not a placeholder and stays in the prompt as written: a state name "
                "cannot contain `.` (state values cannot be indexed; only `{artifact.NAME}` uses a "
                "dot)."
            ),
            None,
        ),
        (
            "{artifacts.notes}",
            "artifacts.notes",
            (0, 17),
            (
                "`{artifacts.notes}` is not a placeholder and stays in the prompt as written: "
                "artifacts are written `{artifact.NAME}`. Did you mean `{artifact.notes}`?"
            ),
            "{artifact.notes}",
        ),
        (
            "{2nd_step}",
            "2nd_step",
            (0, 10),
            (
                "`{2nd_step}` is not a placeholder and stays in the prompt as written: a state name "
                "cannot start with a digit."
            ),
            None,
        ),
        # braces that do not pair up
        (
            "Hi {name, welcome",
            "name",
            (3, 8),
            "`{name` is never closed with `}` and stays in the prompt as written.",
            "{name}",
        ),
        (
            "Hi name} again",
            "name",
            (3, 8),
            "`name}` has no opening `{` and stays in the prompt as written.",
            "{name}",
        ),
    ],
)
def test_near_misses(
    template: str, name: str, span: tuple[int, int], problem: str, suggestion: str | None
) -> None:
    (found,) = find_placeholders(template)
    assert found == Placeholder(
        name=name,
        kind="near_miss",
        optional=found.optional,
        span=span,
        text=template[span[0] : span[1]],
        line=1,
        column=span[0] + 1,
        problem=problem,
        suggestion=suggestion,
    )
    assert found.is_near_miss


def test_nested_braces_report_the_literal_outer_part_and_the_inner_placeholder() -> None:
    outer, inner = find_placeholders("x {outer{inner}}")
    assert (outer.kind, outer.text, outer.span) == ("near_miss", "{outer", (2, 8))
    assert outer.problem == (
        "`{outer` stays in the prompt as written: placeholders cannot be nested; only "
        "`{inner}}` is a placeholder."
    )
    assert (inner.kind, inner.name, inner.span, inner.problem) == ("state", "inner", (8, 16), None)


def test_escaped_braces_that_close_are_not_reported() -> None:
    assert find_placeholders("Use ${HOME} and \\{literal} here") == []


def test_artifact_without_a_name_is_flagged() -> None:
    (found,) = find_placeholders("{artifact.}")
    assert (found.kind, found.name) == ("artifact", "")
    assert found.problem == "`{artifact.}` names no artifact, so it can never be filled."


def test_positions_on_later_lines() -> None:
    template = "line one\n  line two {customer name}\nline {x}"
    near, state = find_placeholders(template)
    assert (near.line, near.column, near.span) == (2, 12, (20, 35))
    assert template[near.span[0] : near.span[1]] == "{customer name}"
    assert (state.line, state.column) == (3, 6)


def test_results_agree_with_the_renderer() -> None:
    """Every state/artifact placeholder reported is one the engine fills, and vice versa."""
    from yadk.templating._compiled import compile_template

    template = "{a} {b?} {c d} {artifact.f} ${g} {outer{h}} {{i}} {j:k}"
    reported = [
        (p.name, p.optional, p.kind == "artifact")
        for p in find_placeholders(template)
        if not p.is_near_miss
    ]
    assert reported == list(compile_template(template)._slots)
