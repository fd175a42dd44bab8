"""The Trace tab's test agent: an offline model that reports tokens, and the tool it calls."""

from collections.abc import AsyncIterator

from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.types import Content, FunctionCall, Part


def get_weather(city: str) -> dict[str, str]:
    """The weather in a city."""
    if city == "Atlantis":
        raise RuntimeError("no weather station in Atlantis")
    return {"city": city, "weather": "sunny"}


class Forecaster(BaseLlm):
    """Calls get_weather for the last word of the user's message, then answers from its
    result; reports 12 input tokens per content sent and 6 output tokens."""

    provider_name = "forecast.test"

    def __init__(self) -> None:
        self.model = "forecaster-1"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        last = llm_request.contents[-1]
        answered = [p.function_response for p in last.parts if p.function_response]
        if answered:
            result = answered[0].response or {}
            text = (
                f"It is {result['weather']} in {result['city']}."
                if "weather" in result
                else "The weather service failed."
            )
            part = Part(text=text)
        else:
            words = "".join(p.text or "" for p in last.parts).rstrip("?.! ").split()
            part = Part(function_call=FunctionCall(name="get_weather", args={"city": words[-1]}))
        yield LlmResponse(
            content=Content(role="model", parts=[part]),
            usage_metadata={
                "prompt_token_count": 12 * len(llm_request.contents),
                "candidates_token_count": 6,
                "total_token_count": 12 * len(llm_request.contents) + 6,
            },
        )


MODEL = Forecaster()
