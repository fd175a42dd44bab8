"""yadk._case: one spelling of snake_case <-> camelCase keys for the model backends and serve."""

from __future__ import annotations

from yadk._case import camel_case, camel_keys, snake_case, snake_keys


def test_names_convert_both_ways_and_leave_the_target_spelling_unchanged() -> None:
    assert camel_case("max_output_tokens") == "maxOutputTokens"
    assert camel_case("maxOutputTokens") == "maxOutputTokens"
    assert snake_case("maxOutputTokens") == "max_output_tokens"
    assert snake_case("max_output_tokens") == "max_output_tokens"
    assert snake_case("groundingChunks2") == "grounding_chunks2"


def test_keys_convert_at_every_depth_and_values_are_left_alone() -> None:
    wire = {"groundingChunks": [{"webSource": {"uri": "a_b"}}], "searchQueries": ["x_y"]}
    yadk = {"grounding_chunks": [{"web_source": {"uri": "a_b"}}], "search_queries": ["x_y"]}
    assert snake_keys(wire) == yadk
    assert camel_keys(yadk) == wire
    assert snake_keys("plainText") == "plainText"
