"""A custom agent as google-adk's docs write one: a BaseAgent subclass whose
``_run_async_impl`` yields its own events (with state deltas) and runs sub-agents, a LoopAgent
left with ``exit_loop``, and a SequentialAgent. The package's ``__init__.py`` does
``from . import agent``, as google-adk's samples do."""

from collections.abc import AsyncGenerator

from google.adk.agents import BaseAgent, LlmAgent, LoopAgent, SequentialAgent
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events import Event, EventActions
from google.adk.tools import exit_loop
from google.genai import types

writer = LlmAgent(
    name="writer",
    model="gemini-2.5-flash",
    instruction="Write a one-line story about {topic}.",
    output_key="draft",
)
critic = LlmAgent(
    name="critic",
    model="gemini-2.5-flash",
    instruction="Review: {draft}. Call exit_loop when it is good.",
    tools=[exit_loop],
)
polish = LoopAgent(name="polish", sub_agents=[critic], max_iterations=3)


class StoryFlow(BaseAgent):
    """Writes a draft, then polishes it unless the draft is short enough."""

    writer: LlmAgent
    polish: LoopAgent

    def __init__(self, name: str, writer: LlmAgent, polish: LoopAgent) -> None:
        super().__init__(name=name, writer=writer, polish=polish, sub_agents=[writer, polish])

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        yield Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            content=types.ModelContent(parts=[types.Part(text="Starting the story.")]),
            actions=EventActions(state_delta={"stage": "writing"}),
        )
        async for event in self.writer.run_async(ctx):
            yield event
        if len(ctx.session.state.get("draft", "")) > 10:
            async for event in self.polish.run_async(ctx):
                yield event
        yield Event(
            author=self.name,
            invocation_id=ctx.invocation_id,
            actions=EventActions(state_delta={"stage": "done"}),
        )


story = StoryFlow(name="story", writer=writer, polish=polish)
closing = LlmAgent(name="closing", model="gemini-2.5-flash", instruction="Say goodbye.")
root_agent = SequentialAgent(name="pipeline", sub_agents=[story, closing])
