"""Records what google-adk 2.13's A2A server (``to_a2a``) answers when a task waits for the
caller, into recorded/adk_waiting.json: a tool call that needs the caller's confirmation
(``FunctionTool(require_confirmation=True)``, under "confirmation") and a long-running tool
(``LongRunningFunctionTool``, under "long_running"); for each, the task of the first message
("asked"), then of the message answering it with a ``function_response`` data part
("answered"). Run with google-adk's Python:

    /opt/adkvenv/bin/python tests/a2a/record_adk_waiting.py
"""

import json
import socket
import sys
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from google.adk.a2a.utils.agent_to_a2a import to_a2a
from google.adk.agents import LlmAgent
from google.adk.tools import FunctionTool, LongRunningFunctionTool
from google.genai import types

sys.path.insert(0, str(Path(__file__).parents[1]))
from adk_scripted import Scripted

OUT = Path(__file__).with_name("recorded") / "adk_waiting.json"


def transfer_money(amount: int, to: str) -> dict:
    """Transfer money to someone."""
    return {"status": "sent", "amount": amount, "to": to}


def ask_for_approval(purpose: str, amount: float) -> None:
    """Ask a manager to approve a reimbursement; the answer comes later, from the manager."""
    return None


def call_turn(name: str, args: dict) -> types.Content:
    return types.Content(
        role="model", parts=[types.Part(function_call=types.FunctionCall(name=name, args=args))]
    )


def text_turn(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


def serve(agent: LlmAgent) -> tuple[uvicorn.Server, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    app = to_a2a(agent, host="127.0.0.1", port=port)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}/"


def converse(agent: LlmAgent, text: str, call_name: str, response: dict) -> dict:
    """The task a message starts, then the task once the waiting call named ``call_name`` is
    answered with ``response``."""
    server, url = serve(agent)

    def send(message: dict) -> dict:
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
        return httpx.post(url, json=body, timeout=60).json()

    try:
        first = {"kind": "text", "text": text}
        asked = send({"kind": "message", "messageId": "m-1", "role": "user", "parts": [first]})
        task = asked["result"]
        call = next(
            p["data"]
            for p in task["status"]["message"]["parts"]
            if p.get("kind") == "data" and p["data"].get("name") == call_name
        )
        answer = {
            "kind": "data",
            "data": {"id": call["id"], "name": call_name, "response": response},
            "metadata": {"adk_type": "function_response"},
        }
        answered = send(
            {
                "kind": "message",
                "messageId": "m-2",
                "role": "user",
                "taskId": task["id"],
                "contextId": task["contextId"],
                "parts": [answer],
            }
        )
        return {"asked": asked, "answered": answered}
    finally:
        server.should_exit = True


def main() -> None:
    payments = LlmAgent(
        name="payments",
        model=Scripted(
            turns=[
                call_turn("transfer_money", {"amount": 250, "to": "Bob"}),
                text_turn("Sent $250 to Bob."),
            ]
        ),
        instruction="Transfer money when asked.",
        tools=[FunctionTool(transfer_money, require_confirmation=True)],
    )
    first = call_turn("ask_for_approval", {"purpose": "taxi", "amount": 150})
    first.parts.insert(0, types.Part(text="I need a manager's approval first."))
    approval = LlmAgent(
        name="approval",
        model=Scripted(turns=[first, text_turn("Your taxi reimbursement of $150 is approved.")]),
        instruction="Ask for approval above $100.",
        tools=[LongRunningFunctionTool(ask_for_approval)],
    )
    recorded = {
        "confirmation": converse(
            payments, "send Bob 250", "adk_request_confirmation", {"confirmed": True}
        ),
        "long_running": converse(
            approval, "reimburse my taxi", "ask_for_approval", {"status": "approved"}
        ),
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(recorded, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
