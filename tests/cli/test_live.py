"""Streamed text in ``yadk run``/``yadk dev``: printed as it arrives; ``--no-stream`` turns it off."""

from __future__ import annotations

import io
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from yadk import LlmAgent
from yadk.cli import build_parser
from yadk.cli._live import LivePrinter
from yadk.cli._run import run_agent
from yadk.events import Event
from yadk.models import BaseLlm, LlmRequest, LlmResponse
from yadk.types import Content, FunctionCall, ModelContent, Part


class Writes(io.StringIO):
    """Records every write, so a test sees what appeared when."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[str] = []

    def write(self, text: str) -> int:
        self.writes.append(text)
        return super().write(text)


class Pieces(BaseLlm):
    """Answers in three pieces when asked to stream; records whether it was asked."""

    def __init__(self) -> None:
        self.model = "pieces"
        self.asked: list[bool] = []

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        self.asked.append(stream)
        if stream:
            for piece in ("Hel", "lo ", "there."):
                yield LlmResponse(content=ModelContent(piece), partial=True)
        yield LlmResponse(content=ModelContent("Hello there."), turn_complete=True)


async def test_run_prints_text_as_it_arrives(monkeypatch: pytest.MonkeyPatch) -> None:
    model = Pieces()
    out = Writes()
    monkeypatch.setattr(sys, "stdout", out)
    agent = LlmAgent(name="greeter", model=model)
    status = await run_agent(agent, message="hi", stdin=io.StringIO(), stream=True)
    assert status == 0
    assert model.asked == [True]
    assert out.getvalue() == "[user]: hi\n[greeter]: Hello there.\n"
    assert out.writes[-5:] == ["[greeter]: ", "Hel", "lo ", "there.", "\n"]


async def test_no_stream_prints_whole_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    model = Pieces()
    out = Writes()
    monkeypatch.setattr(sys, "stdout", out)
    agent = LlmAgent(name="greeter", model=model)
    await run_agent(agent, message="hi", stdin=io.StringIO(), stream=False)
    assert model.asked == [False]
    assert out.getvalue() == "[user]: hi\n[greeter]: Hello there.\n"
    assert "Hel" not in out.writes


async def test_json_lines_never_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    model = Pieces()
    out = Writes()
    monkeypatch.setattr(sys, "stdout", out)
    await run_agent(
        LlmAgent(name="greeter", model=model), message="hi", json_lines=True, stream=True
    )
    assert model.asked == [False]
    assert '"partial"' not in out.getvalue()


@pytest.mark.parametrize("command", ["run", "dev"])
def test_no_stream_option(command: str) -> None:
    parser = build_parser()
    assert parser.parse_args([command, "agent.yaml"]).stream is True
    assert parser.parse_args([command, "agent.yaml", "--no-stream"]).stream is False


def event(text: str = "", *, partial: bool | None = None, **extra: Any) -> Event:
    parts = [Part(text=text)] if text else []
    return Event(author="a", content=Content(role="model", parts=parts), partial=partial, **extra)


def test_printer_shows_what_was_not_streamed() -> None:
    out = io.StringIO()
    printer = LivePrinter(out)
    printer.show(event("Let me ", partial=True), echo_user=True)
    printer.show(event("check.", partial=True), echo_user=True)
    final = event("Let me check.")
    assert final.content is not None
    final.content.parts.append(Part(function_call=FunctionCall(name="look", args={"q": 1})))
    printer.show(final, echo_user=True)
    printer.show(event("A different answer", partial=True), echo_user=True)
    printer.finish()
    assert out.getvalue() == ("[a]: Let me check.\n[a] called look(q=1)\n[a]: A different answer\n")


def test_printer_prints_a_final_text_that_differs() -> None:
    out = io.StringIO()
    printer = LivePrinter(out)
    printer.show(event("Draft", partial=True), echo_user=True)
    printer.show(event("Rewritten by a callback."), echo_user=True)
    assert out.getvalue() == "[a]: Draft\n[a]: Rewritten by a callback.\n"
