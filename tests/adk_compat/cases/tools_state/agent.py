"""Function tools as google-adk's docs write them: plain functions, a FunctionTool, a pydantic
argument, a tool taking ``tool_context``, two calls in one turn, instructions and output_key."""

from google.adk.agents import Agent
from google.adk.tools import FunctionTool, ToolContext
from pydantic import BaseModel


class Order(BaseModel):
    item: str
    quantity: int


def get_weather(city: str) -> dict:
    """Returns the weather report for a city."""
    return {"status": "success", "report": f"Sunny in {city}"}


def get_time(city: str) -> dict:
    """Returns the current time in a city."""
    return {"status": "success", "time": "10:30"}


def place_order(order: Order, tool_context: ToolContext) -> dict:
    """Places an order for the user."""
    tool_context.state["last_order"] = f"{order.quantity} x {order.item}"
    return {"status": "ordered", "item": order.item, "quantity": order.quantity}


root_agent = Agent(
    name="assistant",
    model="gemini-2.5-flash",
    description="Answers questions about weather and time, and places orders.",
    static_instruction="You are a careful assistant.",
    instruction="You help {user_name}. Their last order: {last_order?}",
    tools=[get_weather, get_time, FunctionTool(place_order)],
    output_key="last_answer",
)
