"""The error tree: one root, ADK-compatible builtin bases."""

from __future__ import annotations

import pytest

from yadk import errors


@pytest.mark.parametrize(
    "cls, builtin",
    [
        (errors.TemplateKeyError, KeyError),
        (errors.TemplateValueError, ValueError),
        (errors.ConfigError, ValueError),
        (errors.SkillError, ValueError),
        (errors.AgentDefinitionError, ValueError),
        (errors.SessionNotFoundError, KeyError),
        (errors.AlreadyExistsError, ValueError),
        (errors.StaleSessionError, ValueError),
    ],
)
def test_builtin_bases(cls: type, builtin: type) -> None:
    assert issubclass(cls, errors.YadkError)
    assert issubclass(cls, builtin)


def test_every_public_error_has_the_root() -> None:
    for name in errors.__all__:
        obj = getattr(errors, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert issubclass(obj, errors.YadkError), name


def test_message_without_keyerror_quotes() -> None:
    exc = errors.TemplateKeyError("Context variable not found: `x` in agent 'a'.")
    assert exc.message == "Context variable not found: `x` in agent 'a'."


def test_tool_execution_error_type() -> None:
    exc = errors.ToolExecutionError("bad", error_type=errors.ToolErrorType.BAD_REQUEST)
    assert exc.error_type is errors.ToolErrorType.BAD_REQUEST
    assert exc.error_type.value == "BAD_REQUEST"
