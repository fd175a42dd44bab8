"""``BuiltInCodeExecutor``: Gemini's native ``code_execution`` tool, as google-adk 2.13 sends it."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from yadk._model_names import is_gemini_model
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk.models import LlmRequest

__all__ = ["BaseCodeExecutor", "BuiltInCodeExecutor", "code_parts_as_text"]


class BaseCodeExecutor:
    """What an agent's ``code_executor`` is: the delimiters google-adk renders code with.

    yadk ships only ``BuiltInCodeExecutor`` (the model runs the code, not this machine).
    """

    code_block_delimiters: ClassVar[tuple[tuple[str, str], ...]] = (
        ("```tool_code\n", "\n```"),
        ("```python\n", "\n```"),
    )
    execution_result_delimiters: ClassVar[tuple[str, str]] = ("```tool_output\n", "\n```")

    def process_llm_request(self, llm_request: LlmRequest) -> None:
        """Adds what this executor needs to the request."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self)

    def __hash__(self) -> int:
        return hash(type(self))


class BuiltInCodeExecutor(BaseCodeExecutor):
    """Gemini's built-in code execution: the request carries ``{"code_execution": {}}``; the
    model's ``executable_code`` and ``code_execution_result`` parts are kept on its event, and
    images it makes are saved as artifacts. Other models fail with google-adk's message."""

    def process_llm_request(self, llm_request: LlmRequest) -> None:
        if not is_gemini_model(llm_request.model):
            raise ValueError(
                f"Gemini code execution tool is not supported for model {llm_request.model}"
            )
        llm_request.config.setdefault("tools", []).append({"code_execution": {}})


def code_parts_as_text(contents: list[Content], executor: BaseCodeExecutor) -> list[Content]:
    """google-adk's rendering of history for a code-executing agent: a content ending with
    ``executable_code`` sends that part as a fenced ``tool_code`` block, and a content that is
    only a ``code_execution_result`` becomes a user turn with a fenced ``tool_output`` block.
    Contents are replaced, never changed in place (the session's copies stay as they are)."""
    start, end = executor.code_block_delimiters[0]
    result_start, result_end = executor.execution_result_delimiters
    converted: list[Content] = []
    for content in contents:
        last = content.parts[-1] if content.parts else None
        if last is not None and last.executable_code is not None:
            fenced = Part(text=start + (last.executable_code.code or "") + end)
            content = Content(role=content.role, parts=[*content.parts[:-1], fenced])
        elif last is not None and len(content.parts) == 1 and last.code_execution_result:
            output = last.code_execution_result.output
            text = "" if output is None else result_start + output + result_end
            content = Content(role="user", parts=[Part(text=text)])
        converted.append(content)
    return converted
