"""A long-running tool answered in a second invocation, a tool that saves an artifact and one
that loads it, and an ExampleTool built in Python, as google-adk's docs write them."""

from google.adk.agents import Agent
from google.adk.examples import Example
from google.adk.tools import ExampleTool, LongRunningFunctionTool, ToolContext
from google.genai import types


def ask_for_approval(purpose: str, amount: float) -> dict:
    """Asks a manager to approve a reimbursement."""
    return {"status": "pending", "purpose": purpose, "amount": amount}


async def save_receipt(text: str, tool_context: ToolContext) -> dict:
    """Saves the receipt as an artifact."""
    version = await tool_context.save_artifact("receipt.txt", types.Part.from_text(text=text))
    return {"saved": "receipt.txt", "version": version}


async def read_receipt(tool_context: ToolContext) -> dict:
    """Reads the saved receipt."""
    part = await tool_context.load_artifact("receipt.txt")
    return {"receipt": part.text if part else None}


examples = ExampleTool(
    examples=[
        Example(
            input=types.Content(role="user", parts=[types.Part(text="Reimburse $5 coffee")]),
            output=[
                types.Content(
                    role="model",
                    parts=[
                        types.Part(
                            function_call=types.FunctionCall(
                                name="ask_for_approval", args={"purpose": "coffee", "amount": 5.0}
                            )
                        )
                    ],
                )
            ],
        )
    ]
)

root_agent = Agent(
    name="expenses",
    model="gemini-2.5-flash",
    instruction="Handle reimbursements.",
    tools=[LongRunningFunctionTool(func=ask_for_approval), save_receipt, read_receipt, examples],
)
