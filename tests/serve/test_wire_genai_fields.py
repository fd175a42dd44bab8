"""What a model reported beside its answer reaches the api_server wire as google-adk sends it:
google-genai's types dumped by alias, so camelCase at every depth."""

from __future__ import annotations

from yadk.events import Event
from yadk.serve._wire import event_from_json, event_json
from yadk.types import ModelContent


def test_reported_fields_are_camel_cased_at_every_depth() -> None:
    event = Event(
        author="a",
        content=ModelContent("Hi"),
        model_version="gemini-2.5-flash-001",
        avg_logprobs=-0.25,
        logprobs_result={"chosen_candidates": [{"token": "Hi", "log_probability": -0.25}]},
        citation_metadata={"citations": [{"start_index": 0, "end_index": 2}]},
        grounding_metadata={
            "web_search_queries": ["q"],
            "grounding_chunks": [{"web": {"uri": "u"}}],
        },
        usage_metadata={"prompt_token_count": 3},
    )
    data = event_json(event)
    assert data["modelVersion"] == "gemini-2.5-flash-001"
    assert data["avgLogprobs"] == -0.25
    assert data["logprobsResult"] == {
        "chosenCandidates": [{"token": "Hi", "logProbability": -0.25}]
    }
    assert data["citationMetadata"] == {"citations": [{"startIndex": 0, "endIndex": 2}]}
    assert data["groundingMetadata"] == {
        "webSearchQueries": ["q"],
        "groundingChunks": [{"web": {"uri": "u"}}],
    }
    assert data["usageMetadata"] == {"promptTokenCount": 3}
    back = event_from_json(data)
    assert (back.model_version, back.logprobs_result, back.citation_metadata) == (
        event.model_version,
        event.logprobs_result,
        event.citation_metadata,
    )


def test_a_model_that_reports_nothing_adds_no_keys() -> None:
    data = event_json(Event(author="a", content=ModelContent("Hi")))
    assert not {"modelVersion", "avgLogprobs", "logprobsResult", "citationMetadata"} & set(data)
