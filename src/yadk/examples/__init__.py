"""Few-shot examples: the ``Example`` model, providers, rendering, a local store, agent cards.

Examples reach an agent through ``yadk.tools.ExampleTool`` (or the ``examples:`` key of a YAML
agent), which appends ``convert_examples_to_text(examples, model)`` to the system instruction
before every model call.
"""

from yadk.examples._card import agent_card_examples, build_agent_card
from yadk.examples._example import (
    BaseExampleProvider,
    Example,
    ExampleValidationError,
    coerce_examples,
    example_input_text,
)
from yadk.examples._files import load_examples_file, yaml_node_line
from yadk.examples._lexical import LexicalExampleStore, tokenize
from yadk.examples._render import convert_examples_to_text, is_gemini_model

__all__ = [
    "BaseExampleProvider",
    "Example",
    "ExampleValidationError",
    "LexicalExampleStore",
    "agent_card_examples",
    "build_agent_card",
    "coerce_examples",
    "convert_examples_to_text",
    "example_input_text",
    "is_gemini_model",
    "load_examples_file",
    "tokenize",
    "yaml_node_line",
]
