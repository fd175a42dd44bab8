"""Records what google-adk 2.13's A2A server (``to_a2a``) answers for a tool call that needs the
caller's confirmation (``FunctionTool(require_confirmation=True)``), into
recorded/adk_confirmation.json: the task of the first message, then of the message answering
the confirmation with a ``function_response`` data part. Run with google-adk's Python:

    /opt/adkvenv/bin/python tests/a2a/record_adk_confirmation.py
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
from google.adk.tools import FunctionTool
from google.genai import types

sys.path.insert(0, str(Path(__file__).parents[1]))
from adk_scripted import Scripted

OUT = Path(__file__).with_name("recorded") / "adk_confirmation.json"


def transfer_money(amount: int, to: str) -> dict:
    """Transfer money to someone."""
    return {"status": "sent", "amount": amount, "to": to}


def main() -> None:
    model = Scripted(
        turns=[
            types.Content(
                role="model",
                parts=[
                    types.Part(
                        function_call=types.FunctionCall(
                            name="transfer_money", args={"amount": 250, "to": "Bob"}
                        )
                    )
                ],
            ),
            types.Content(role="model", parts=[types.Part(text="Sent $250 to Bob.")]),
        ]
    )
    agent = LlmAgent(
        name="payments",
        model=model,
        instruction="Transfer money when asked.",
        tools=[FunctionTool(transfer_money, require_confirmation=True)],
    )
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    app = to_a2a(agent, host="127.0.0.1", port=port)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    url = f"http://127.0.0.1:{port}/"

    def send(message: dict) -> dict:
        body = {"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": message}}
        return httpx.post(url, json=body, timeout=60).json()

    asked = send(
        {
            "kind": "message",
            "messageId": "m-1",
            "role": "user",
            "parts": [{"kind": "text", "text": "send Bob 250"}],
        }
    )
    task = asked["result"]
    call = next(
        p["data"]
        for p in task["status"]["message"]["parts"]
        if p.get("kind") == "data" and p["data"].get("name") == "adk_request_confirmation"
    )
    answer = {
        "kind": "message",
        "messageId": "m-2",
        "role": "user",
        "taskId": task["id"],
        "contextId": task["contextId"],
        "parts": [
            {
                "kind": "data",
                "data": {
                    "id": call["id"],
                    "name": "adk_request_confirmation",
                    "response": {"confirmed": True},
                },
                "metadata": {"adk_type": "function_response"},
            }
        ],
    }
    answered = send(answer)
    text_answer = send({**answer, "messageId": "m-3", "parts": [{"kind": "text", "text": "yes"}]})
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(
        json.dumps({"asked": asked, "answered": answered, "text_after_end": text_answer}, indent=1)
        + "\n",
        encoding="utf-8",
    )
    server.should_exit = True


if __name__ == "__main__":
    main()
