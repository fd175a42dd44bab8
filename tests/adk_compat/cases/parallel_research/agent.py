"""A ParallelAgent of researchers writing their findings to state (``output_key``), then a
merger reading them, in a SequentialAgent: google-adk's parallel research sample's shape."""

from google.adk.agents import LlmAgent, ParallelAgent, SequentialAgent

energy = LlmAgent(
    name="energy",
    model="gemini-2.5-flash",
    instruction="Research renewable energy in one line.",
    output_key="energy_result",
)
transport = LlmAgent(
    name="transport",
    model="gemini-2.5-flash",
    instruction="Research electric transport in one line.",
    output_key="transport_result",
)
research = ParallelAgent(name="research", sub_agents=[energy, transport])
merger = LlmAgent(
    name="merger",
    model="gemini-2.5-flash",
    instruction="Merge: {energy_result} / {transport_result}",
)
root_agent = SequentialAgent(name="pipeline", sub_agents=[research, merger])
