"""Few-shot examples: the ``Example`` model, providers, rendering, a local store.

Examples reach an agent through ``ExampleTool`` (also ``yadk.tools.ExampleTool``, or the
``examples:`` key of a YAML agent), which appends ``convert_examples_to_text(examples, model)``
to the system instruction before every model call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from yadk._lazy import lazy_facade

if TYPE_CHECKING:
    from yadk.examples._example import BaseExampleProvider, Example
    from yadk.examples._lexical import LexicalExampleStore
    from yadk.examples._render import convert_examples_to_text
    from yadk.examples._tool import ExampleTool

__all__ = [
    "BaseExampleProvider",
    "Example",
    "ExampleTool",
    "LexicalExampleStore",
    "convert_examples_to_text",
]

# Loaded on first use: checking an examples file (yadk validate) needs only the Example model.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "BaseExampleProvider": "yadk.examples._example",
        "Example": "yadk.examples._example",
        "ExampleTool": "yadk.examples._tool",
        "LexicalExampleStore": "yadk.examples._lexical",
        "convert_examples_to_text": "yadk.examples._render",
    },
)
