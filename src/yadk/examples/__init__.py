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

# For yadk's own packages; not part of the public contract (``__all__``). Loaded on first
# use (table below), as the names above are.
if TYPE_CHECKING:
    from yadk.examples._error import ExampleValidationError as ExampleValidationError
    from yadk.examples._example import coerce_examples as coerce_examples
    from yadk.examples._files import check_examples_file as check_examples_file
    from yadk.examples._files import load_examples_file as load_examples_file
    from yadk.examples._files import looks_like_examples_path as looks_like_examples_path
    from yadk.examples._shape import check_examples as check_examples

# Loaded on first use: checking an examples file (yadk validate) needs only the Example model.
__getattr__, __dir__ = lazy_facade(
    globals(),
    {
        "BaseExampleProvider": "yadk.examples._example",
        "Example": "yadk.examples._example",
        "ExampleTool": "yadk.examples._tool",
        "LexicalExampleStore": "yadk.examples._lexical",
        "convert_examples_to_text": "yadk.examples._render",
        # for yadk's own packages; not part of the public contract
        "ExampleValidationError": "yadk.examples._error",
        "check_examples_file": "yadk.examples._files",
        "load_examples_file": "yadk.examples._files",
        "looks_like_examples_path": "yadk.examples._files",
        "check_examples": "yadk.examples._shape",
        "coerce_examples": "yadk.examples._example",
    },
)
