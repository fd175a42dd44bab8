"""The shared REST helpers: error bodies, Retry-After, key casing, settings from the environment."""

from __future__ import annotations

import pytest

from yadk._case import camel_keys, snake_case, snake_keys
from yadk.errors import ModelError
from yadk.models._rest import HttpSettings, api_error_message, retry_after


@pytest.mark.parametrize(
    "body, expected",
    [
        (
            b'{"error": {"code": 400, "message": "Bad thing", "status": "INVALID_ARGUMENT"}}',
            "Bad thing",
        ),
        (b'[{"error": {"code": 404, "message": "Listed"}}]', "Listed"),
        (b'{"error": "just text"}', "just text"),
        (b'{"object": "error", "message": "vllm says no"}', "vllm says no"),
        (b'{"detail": "fastapi says no"}', "fastapi says no"),
        (b'{"unexpected": 1}', '{"unexpected": 1}'),
        (b"<h1>502</h1>\n\n  Bad   gateway", "<h1>502</h1> Bad gateway"),
        (b"", "(empty body)"),
        (b"x" * 300, "x" * 200 + "..."),
    ],
    ids=[
        "google",
        "google-list",
        "string",
        "vllm",
        "detail",
        "unknown-json",
        "html",
        "empty",
        "long",
    ],
)
def test_api_error_message(body: bytes, expected: str) -> None:
    assert api_error_message(body) == expected


@pytest.mark.parametrize(
    "headers, expected",
    [
        ({"Retry-After": "0"}, 0.0),
        ({"retry-after": "2.5"}, 2.5),
        ({"Retry-After": "999"}, 30.0),
        ({"Retry-After": "-4"}, 0.0),
        ({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),
        ({}, None),
    ],
)
def testretry_after(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after(headers) == expected


@pytest.mark.parametrize(
    "key, expected",
    [
        ("maxOutputTokens", "max_output_tokens"),
        ("max_output_tokens", "max_output_tokens"),
        ("topP", "top_p"),
        ("temperature", "temperature"),
    ],
)
def test_snake_case(key: str, expected: str) -> None:
    assert snake_case(key) == expected


def test_key_conversion_is_deep() -> None:
    assert snake_keys({"usageMetadata": {"promptTokensDetails": [{"tokenCount": 1}]}}) == {
        "usage_metadata": {"prompt_tokens_details": [{"token_count": 1}]}
    }
    assert camel_keys({"function_calling_config": {"allowed_function_names": ["f"]}}) == {
        "functionCallingConfig": {"allowedFunctionNames": ["f"]}
    }


def test_settings_defaults_and_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert HttpSettings.resolve() == HttpSettings(timeout=60.0, retries=2, retry_delay=1.0)
    monkeypatch.setenv("YADK_MODEL_TIMEOUT", "12.5")
    monkeypatch.setenv("YADK_MODEL_RETRIES", "0")
    assert HttpSettings.resolve() == HttpSettings(timeout=12.5, retries=0, retry_delay=1.0)
    assert HttpSettings.resolve(timeout=3, retries=5, retry_delay=0) == HttpSettings(3, 5, 0)


@pytest.mark.parametrize("value", ["soon", "-1"])
def test_invalid_environment_number(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("YADK_MODEL_TIMEOUT", value)
    with pytest.raises(ModelError) as caught:
        HttpSettings.resolve()
    assert caught.value.message == (
        f"YADK_MODEL_TIMEOUT={value!r} is not a valid number; use e.g. YADK_MODEL_TIMEOUT=60."
    )
