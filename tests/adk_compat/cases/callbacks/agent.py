"""Callbacks as google-adk's docs write them: each kind, short-circuiting with
``types.ModelContent``, an ``LlmResponse`` or a dict, or changing state."""

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.models import LlmRequest, LlmResponse
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types


def before_agent(callback_context: CallbackContext) -> types.Content | None:
    callback_context.state["visits"] = callback_context.state.get("visits", 0) + 1
    if callback_context.state.get("closed"):
        return types.ModelContent(parts=[types.Part(text="We are closed.")])
    return None


def after_agent(callback_context: CallbackContext) -> types.Content | None:
    if callback_context.state.get("visits") == 2:
        return types.ModelContent(parts=[types.Part(text="Thanks for coming back!")])
    return None


def before_model(callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse | None:
    last = llm_request.contents[-1]
    text = "".join(part.text or "" for part in last.parts)
    if "forbidden" in text:
        return LlmResponse(
            content=types.Content(
                role="model", parts=[types.Part(text="I cannot talk about that.")]
            )
        )
    # The system instruction changed in place, as google-adk's docs show it.
    original = llm_request.config.system_instruction or types.Content(role="system", parts=[])
    if not isinstance(original, types.Content):
        original = types.Content(role="system", parts=[types.Part(text=str(original))])
    if not original.parts:
        original.parts.append(types.Part(text=""))
    original.parts[0].text = "[Checked] " + (original.parts[0].text or "")
    llm_request.config.system_instruction = original
    llm_request.config.temperature = 0.5
    return None


def after_model(callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse | None:
    content = llm_response.content
    if content and content.parts and content.parts[0].text:
        return LlmResponse(
            content=types.ModelContent(parts=[types.Part(text=content.parts[0].text.upper())])
        )
    return None


def before_tool(tool: BaseTool, args: dict, tool_context: ToolContext) -> dict | None:
    if args.get("city") == "Atlantis":
        return {"status": "error", "message": "No such city."}
    return None


def after_tool(
    tool: BaseTool, args: dict, tool_context: ToolContext, tool_response: dict
) -> dict | None:
    tool_context.state["last_tool"] = tool.name
    return {**tool_response, "checked": True}


def get_weather(city: str) -> dict:
    """Returns the weather report for a city."""
    return {"status": "success", "report": f"Rain in {city}"}


root_agent = LlmAgent(
    name="guarded",
    model="gemini-2.5-flash",
    instruction="Answer weather questions.",
    tools=[get_weather],
    before_agent_callback=before_agent,
    after_agent_callback=after_agent,
    before_model_callback=before_model,
    after_model_callback=after_model,
    before_tool_callback=before_tool,
    after_tool_callback=after_tool,
)
