"""``yadk run --otel`` (or ``OTEL_EXPORTER_OTLP_ENDPOINT``) sends its spans over OTLP/HTTP: a
real receiver on 127.0.0.1 gets them from a ``yadk run`` subprocess and decodes them with
opentelemetry-proto."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

pytestmark = pytest.mark.subprocess


class Receiver(ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver: every POST to /v1/traces, decoded."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, ExportTraceServiceRequest]] = []
        self.arrived = threading.Event()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def spans(self) -> list[Any]:
        return [
            span
            for _, request in self.requests
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        ]


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.requests.append((self.path, request))
        self.server.arrived.set()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def agent_folder(tmp_path: Path) -> Path:
    agent = tmp_path / "weather"
    agent.mkdir()
    (agent / "tools.py").write_text(
        "def get_weather(city: str) -> dict:\n"
        '    """The weather in a city."""\n'
        '    return {"city": city, "weather": "sunny"}\n'
    )
    (agent / "turns.yaml").write_text(
        "turns:\n"
        "  - function_calls: [{name: get_weather, args: {city: Paris}}]\n"
        "  - text: It is sunny.\n"
    )
    (agent / "root_agent.yaml").write_text(
        "name: weather\n"
        "description: Tells the weather.\n"
        "instruction: Use get_weather.\n"
        "model: scripted:turns.yaml\n"
        "tools:\n"
        "  - name: .tools.get_weather\n"
    )
    return agent


def yadk_run(agent: Path, *options: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "YADK_"))}
    environment.update(env)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "yadk.cli",
            "run",
            str(agent),
            "weather?",
            "--db",
            ":memory:",
            *options,
        ],
        capture_output=True,
        text=True,
        env=environment,
        cwd=agent.parent,
        timeout=120,
        check=False,
    )


def attributes(span: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in span.attributes:
        value = item.value
        out[item.key] = getattr(value, value.WhichOneof("value"))
    return out


@pytest.mark.parametrize("switch", ["--otel", "environment"])
def test_yadk_run_sends_its_spans_to_an_otlp_receiver(
    receiver: Receiver, tmp_path: Path, switch: str
) -> None:
    agent = agent_folder(tmp_path)
    if switch == "--otel":
        done = yadk_run(
            agent, "--otel", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=receiver.endpoint + "/v1/traces"
        )
    else:
        done = yadk_run(agent, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint)
    assert done.returncode == 0, done.stderr
    assert "It is sunny." in done.stdout
    assert {path for path, _ in receiver.requests} == {"/v1/traces"}
    spans = receiver.spans()
    by_name = {span.name: span for span in spans}
    assert sorted(by_name) == [
        "execute_tool get_weather",
        "generate_content scripted:turns.yaml",
        "invoke_agent weather",
        "invoke_workflow weather",
    ]
    assert len({span.trace_id for span in spans}) == 1
    root = by_name["invoke_workflow weather"]
    agent_span = by_name["invoke_agent weather"]
    tool = by_name["execute_tool get_weather"]
    assert agent_span.parent_span_id == root.span_id
    assert tool.parent_span_id == agent_span.span_id
    assert attributes(agent_span)["yadk.config.location"] == f"{agent / 'root_agent.yaml'}:1"
    assert attributes(tool)["yadk.config.location"] == f"{agent / 'root_agent.yaml'}:6"
    assert attributes(tool)["gen_ai.tool.name"] == "get_weather"
    model = attributes(by_name["generate_content scripted:turns.yaml"])
    assert model["gen_ai.provider.name"] == "yadk.scripted"
    assert "gen_ai.input.messages" not in model  # content capture is off by default
    (resource,) = {
        attr.value.string_value
        for _, request in receiver.requests
        for rs in request.resource_spans
        for attr in rs.resource.attributes
        if attr.key == "service.name"
    }
    assert resource == "yadk"


def test_yadk_tracing_0_keeps_the_run_untraced(receiver: Receiver, tmp_path: Path) -> None:
    done = yadk_run(
        agent_folder(tmp_path),
        "--otel",
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
        YADK_TRACING="0",
    )
    assert done.returncode == 0, done.stderr
    assert receiver.requests == []


def _wait_until_up(client: httpx.Client) -> None:
    """--workers prints its address before the workers answer: poll /health until one does."""
    deadline = time.monotonic() + 60
    while True:
        try:
            client.get("/health").raise_for_status()
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _free_port() -> int:
    """A port free now (uvicorn's workers bind the port again, so --port 0 would not be the
    port the command prints)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.parametrize(("command", "workers"), [("serve", "1"), ("serve", "2"), ("web", "1")])
def test_yadk_serve_otel_exports_each_served_invocation(
    receiver: Receiver, tmp_path: Path, command: str, workers: str
) -> None:
    """A long-running server exports in the background (batched): the spans of a /run arrive
    without the server stopping; with --workers, from the worker that ran it."""
    agent = agent_folder(tmp_path)
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "YADK_"))}
    environment.update(
        OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
        OTEL_BSP_SCHEDULE_DELAY="50",  # ms: the batch goes out soon after the turn
        PYTHONUNBUFFERED="1",
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "yadk.cli",
            command,
            str(agent),
            "--port",
            str(_free_port()) if workers != "1" else "0",
            "--db",
            str(tmp_path / "sessions.db"),
            *(["--workers", workers] if command == "serve" else ["--no-browser"]),
            "--otel",
        ],
        cwd=tmp_path,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = None
        for line in process.stdout:
            found = re.search(r"(http://127\.0\.0\.1:\d+)", line)
            if found:
                url = found.group(1)
                break
        assert url is not None, f"yadk {command} printed no address"
        with httpx.Client(base_url=url, timeout=60) as client:
            _wait_until_up(client)
            client.post("/apps/weather/users/u/sessions/s1").raise_for_status()
            answer = client.post(
                "/run",
                json={
                    "app_name": "weather",
                    "user_id": "u",
                    "session_id": "s1",
                    "new_message": {"role": "user", "parts": [{"text": "weather?"}]},
                },
            )
            answer.raise_for_status()
        names: set[str] = set()
        while True:  # the batches arrive in the background: wait for the invocation's span
            receiver.arrived.clear()
            names = {span.name for span in receiver.spans()}
            if "invoke_workflow weather" in names:
                break
            assert receiver.arrived.wait(timeout=60), names
        assert {"invoke_agent weather", "execute_tool get_weather"} <= names
    finally:
        process.terminate()
        process.wait(timeout=30)
        if process.stdout is not None:
            process.stdout.close()


def test_otel_without_the_sdk_is_one_line_naming_the_extra(tmp_path: Path) -> None:
    agent = agent_folder(tmp_path)
    code = (
        "import sys\n"
        "sys.modules['opentelemetry.sdk'] = None  # as if yadk[otel] were not installed\n"
        "from yadk.cli import main\n"
        f"sys.exit(main(['run', {str(agent)!r}, 'hi', '--db', ':memory:', '--otel']))\n"
    )
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "YADK_"))}
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        "yadk run: error: OpenTelemetry export needs the OpenTelemetry SDK:"
        " pip install 'yadk[otel]'.\n"
    )
