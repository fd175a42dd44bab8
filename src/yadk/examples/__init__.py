"""Few-shot examples: the ``Example`` model, providers, rendering, a local store, agent cards.

Examples reach an agent through ``yadk.tools.ExampleTool`` (or the ``examples:`` key of a YAML
agent), which appends ``convert_examples_to_text(examples, model)`` to the system instruction
before every model call.
"""

from yadk.examples._card import build_agent_card
from yadk.examples._example import BaseExampleProvider, Example
from yadk.examples._lexical import LexicalExampleStore
from yadk.examples._render import convert_examples_to_text

__all__ = [
    "BaseExampleProvider",
    "Example",
    "LexicalExampleStore",
    "build_agent_card",
    "convert_examples_to_text",
]
