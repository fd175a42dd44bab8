"""Gemini on Vertex AI against a fake Vertex endpoint and a fake OAuth token endpoint on loopback.

The service-account flow is google-auth's own: a key file whose ``token_uri`` is the fake token
server, a JWT signed with a key made here, a token fetched, used, and refreshed after a 401.
"""

from __future__ import annotations

import json
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from tests.models.conftest import FakeServer

from yadk.errors import ModelError
from yadk.models import Gemini, LlmRequest, LlmResponse, resolve_model
from yadk.types import UserContent

MODEL = "gemini-2.5-flash"
PROJECT_PATH = "/v1/projects/proj-1/locations/us-central1/publishers/google/models"


def text_answer(text: str) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}
        ]
    }


def token(value: str) -> dict[str, Any]:
    return {"access_token": value, "expires_in": 3600, "token_type": "Bearer"}


@pytest.fixture
def token_server() -> Iterator[FakeServer]:
    """The OAuth token endpoint (google-auth's own requests: no model-request switch)."""
    fake = FakeServer()
    thread = threading.Thread(target=fake.httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield fake
    fake.httpd.shutdown()
    fake.httpd.server_close()
    thread.join()


@pytest.fixture
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture
def vertex_env(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    server: FakeServer,
    token_server: FakeServer,
    rsa_key: rsa.RSAPrivateKey,
) -> Path:
    """Vertex with a project, pointed at the fake server, with a service-account key file."""
    pem = rsa_key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")
    key_file = tmp_path / "sa.json"
    key_file.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": "proj-1",
                "private_key_id": "kid-1",
                "private_key": pem,
                "client_email": "agent@proj-1.iam.gserviceaccount.com",
                "client_id": "1",
                "token_uri": token_server.url + "/token",
            }
        )
    )
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj-1")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", server.url)
    return key_file


async def generate(llm: Gemini, *, stream: bool = False) -> list[LlmResponse]:
    request = LlmRequest(contents=[UserContent("hi")])
    return [r async for r in llm.generate_content_async(request, stream=stream)]


def granted_assertion(recorded: bytes, rsa_key: rsa.RSAPrivateKey, audience: str) -> dict[str, Any]:
    """The claims of the JWT google-auth sent, its signature checked with the public key."""
    form = urllib.parse.parse_qs(recorded.decode("ascii"))
    assert form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    claims: dict[str, Any] = jwt.decode(
        form["assertion"][0],
        rsa_key.public_key(),
        algorithms=["RS256"],
        audience=audience,
    )
    return claims


@pytest.mark.parametrize(
    "env, path",
    [
        ({}, f"{PROJECT_PATH}/{MODEL}:generateContent"),
        (
            {"GOOGLE_CLOUD_LOCATION": "europe-west4"},
            f"/v1/projects/proj-1/locations/europe-west4/publishers/google/models/{MODEL}"
            ":generateContent",
        ),
        (
            {"GOOGLE_GENAI_USE_VERTEXAI": "1", "GOOGLE_CLOUD_LOCATION": "global"},
            f"/v1/projects/proj-1/locations/global/publishers/google/models/{MODEL}"
            ":generateContent",
        ),
    ],
)
async def test_project_requests_carry_a_service_account_token(
    vertex_env: Path,
    server: FakeServer,
    token_server: FakeServer,
    rsa_key: rsa.RSAPrivateKey,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    path: str,
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    token_server.reply(token("tok-1"))
    server.reply(text_answer("Hello from Vertex"))
    llm = Gemini(MODEL, retries=0)
    [answer] = await generate(llm)
    assert answer.content is not None and answer.content.parts[0].text == "Hello from Vertex"
    [sent] = server.requests
    assert sent.path == path
    assert sent.headers["authorization"] == "Bearer tok-1"
    assert "x-goog-api-key" not in sent.headers
    assert sent.body == {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    [grant] = token_server.requests
    assert grant.path == "/token"
    claims = granted_assertion(grant.body, rsa_key, "https://oauth2.googleapis.com/token")
    assert claims["iss"] == "agent@proj-1.iam.gserviceaccount.com"
    assert claims["scope"] == "https://www.googleapis.com/auth/cloud-platform"


async def test_token_is_reused_then_refreshed_once_after_a_401(
    vertex_env: Path, server: FakeServer, token_server: FakeServer
) -> None:
    token_server.reply(token("tok-1"))
    token_server.reply(token("tok-2"))
    server.reply(text_answer("one"))
    server.reply(status=401, body={"error": {"message": "token revoked"}})
    server.reply(text_answer("two"))
    llm = Gemini(MODEL, retries=0)
    await generate(llm)
    [answer] = await generate(llm)
    assert answer.content is not None and answer.content.parts[0].text == "two"
    assert [r.headers["authorization"] for r in server.requests] == [
        "Bearer tok-1",
        "Bearer tok-1",
        "Bearer tok-2",
    ]
    assert len(token_server.requests) == 2


async def test_a_second_401_is_reported_not_retried(
    vertex_env: Path, server: FakeServer, token_server: FakeServer
) -> None:
    token_server.reply(token("tok-1"))
    token_server.reply(token("tok-2"))
    server.reply(status=401, body={"error": {"message": "denied"}})
    server.reply(status=401, body={"error": {"message": "still denied"}})
    with pytest.raises(ModelError) as caught:
        await generate(Gemini(MODEL, retries=0))
    assert len(server.requests) == 2
    message = caught.value.message
    assert message.startswith(f"Vertex AI model {MODEL!r}: ")
    assert "still denied" in message
    assert "roles/aiplatform.user" in message
    assert "tok-2" not in message


async def test_streaming_on_vertex(
    vertex_env: Path, server: FakeServer, token_server: FakeServer
) -> None:
    token_server.reply(token("tok-1"))
    chunk = text_answer("Hel")
    rest = text_answer("lo")
    server.reply(chunks=[f"data: {json.dumps(c)}\n\n".encode() for c in (chunk, rest)])
    responses = await generate(Gemini(MODEL, retries=0), stream=True)
    assert [r.content.parts[0].text for r in responses if r.content] == ["Hel", "lo", "Hello"]
    [sent] = server.requests
    assert sent.path == f"{PROJECT_PATH}/{MODEL}:streamGenerateContent?alt=sse"
    assert sent.headers["authorization"] == "Bearer tok-1"


async def test_a_stream_refused_with_401_is_sent_again_with_a_new_token(
    vertex_env: Path, server: FakeServer, token_server: FakeServer
) -> None:
    token_server.reply(token("tok-1"))
    token_server.reply(token("tok-2"))
    server.reply(status=401, body={"error": {"message": "expired"}})
    server.reply(chunks=[f"data: {json.dumps(text_answer('again'))}\n\n".encode()])
    responses = await generate(Gemini(MODEL, retries=0), stream=True)
    assert [r.content.parts[0].text for r in responses if r.content] == ["again", "again"]
    assert [r.headers["authorization"] for r in server.requests] == [
        "Bearer tok-1",
        "Bearer tok-2",
    ]


@pytest.mark.parametrize(
    "endpoint",
    [
        "projects/proj-1/locations/us-east1/endpoints/1234567890",
        "projects/proj-1/locations/us-east1/publishers/google/models/gemini-2.5-flash",
    ],
)
async def test_resource_names_are_the_path(
    vertex_env: Path, server: FakeServer, token_server: FakeServer, endpoint: str
) -> None:
    token_server.reply(token("tok-1"))
    server.reply(text_answer("tuned"))
    llm = resolve_model(endpoint)
    assert isinstance(llm, Gemini)
    await generate(llm)
    assert server.requests[0].path == f"/v1/{endpoint}:generateContent"


def test_hosts_from_the_location(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "TRUE")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "p")
    llm = Gemini(MODEL)
    assert llm.url == (
        "https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1"
        f"/publishers/google/models/{MODEL}:generateContent"
    )
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "global")
    assert llm.url == (
        "https://aiplatform.googleapis.com/v1/projects/p/locations/global"
        f"/publishers/google/models/{MODEL}:generateContent"
    )
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT")
    assert llm.url == (
        f"https://aiplatform.googleapis.com/v1/publishers/google/models/{MODEL}:generateContent"
    )
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "false")
    assert llm.url == (
        f"https://generativelanguage.googleapis.com/v1beta/models/{MODEL}:generateContent"
    )


async def test_google_gemini_base_url(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", server.url + "/")
    server.reply(text_answer("ok"))
    await generate(Gemini(MODEL, api_key="k", retries=0))
    [sent] = server.requests
    assert sent.path == f"/v1beta/models/{MODEL}:generateContent"
    assert sent.headers["x-goog-api-key"] == "k"
    monkeypatch.setenv("YADK_GEMINI_BASE_URL", "http://127.0.0.1:9/v1beta")
    assert Gemini(MODEL).url == f"http://127.0.0.1:9/v1beta/models/{MODEL}:generateContent"


async def test_express_mode_sends_the_api_key(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_API_KEY", "express-key")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", server.url)
    server.reply(text_answer("express"))
    await generate(Gemini(MODEL, retries=0))
    [sent] = server.requests
    assert sent.path == f"/v1/publishers/google/models/{MODEL}:generateContent"
    assert sent.headers["x-goog-api-key"] == "express-key"
    assert "authorization" not in sent.headers


async def test_an_api_key_argument_means_express_mode(
    vertex_env: Path, server: FakeServer, token_server: FakeServer
) -> None:
    server.reply(text_answer("express"))
    await generate(Gemini(MODEL, api_key="given-key", retries=0))
    [sent] = server.requests
    assert sent.path == f"/v1/publishers/google/models/{MODEL}:generateContent"
    assert sent.headers["x-goog-api-key"] == "given-key"
    assert "authorization" not in sent.headers
    assert token_server.requests == []


async def test_a_proxy_without_project_or_key_is_sent_unauthenticated(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", server.url + "/proxy/")
    server.reply(text_answer("proxied"))
    await generate(Gemini(MODEL, retries=0))
    [sent] = server.requests
    assert sent.path == f"/proxy/v1/publishers/google/models/{MODEL}:generateContent"
    assert "authorization" not in sent.headers
    assert "x-goog-api-key" not in sent.headers


async def test_vertex_without_project_or_key(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    with pytest.raises(ModelError) as caught:
        await generate(Gemini(MODEL))
    assert caught.value.message == (
        f"Vertex AI model {MODEL!r}: no project and no API key. For Vertex AI set"
        " GOOGLE_CLOUD_PROJECT (and GOOGLE_CLOUD_LOCATION, default us-central1) with Application"
        " Default Credentials, or GOOGLE_API_KEY for express mode."
    )


async def test_without_the_extra_says_what_to_install(
    vertex_env: Path, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "google.auth", None)  # `import google.auth` fails
    with pytest.raises(ModelError) as caught:
        await generate(Gemini(MODEL, retries=0))
    assert caught.value.message == (
        f"Vertex AI model {MODEL!r}: Vertex AI with a project needs google-auth for Application"
        " Default Credentials. Install the Vertex AI extra: pip install 'yadk[vertex]'."
    )
    assert server.requests == []


async def test_token_endpoint_refusal_is_a_model_error(
    vertex_env: Path, server: FakeServer, token_server: FakeServer
) -> None:
    token_server.reply(status=400, body={"error": "invalid_grant", "error_description": "bad"})
    with pytest.raises(ModelError) as caught:
        await generate(Gemini(MODEL, retries=0))
    message = caught.value.message
    assert message.startswith(f"Vertex AI model {MODEL!r}: could not get an access token (")
    assert "invalid_grant" in message
    assert message.endswith("set GOOGLE_API_KEY.")
    assert server.requests == []


async def test_credentials_given_to_the_model(
    vertex_env: Path,
    server: FakeServer,
    token_server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from google.oauth2 import service_account

    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS")
    credentials = service_account.Credentials.from_service_account_file(
        str(vertex_env), scopes=["https://www.googleapis.com/auth/cloud-platform"]
    )
    token_server.reply(token("given"))
    server.reply(text_answer("ok"))
    await generate(Gemini(MODEL, retries=0, credentials=credentials))
    assert server.requests[0].headers["authorization"] == "Bearer given"


# --- LiteLLM's vertex_ai/ models (google-adk's LiteLlm) -----------------------------------------


@pytest.mark.parametrize(
    "args, env, path",
    [
        (
            {"vertex_project": "proj-2", "vertex_location": "europe-west1"},
            {},
            "/v1/projects/proj-2/locations/europe-west1/publishers/google/models",
        ),
        (
            {},
            {"VERTEXAI_PROJECT": "proj-3", "VERTEXAI_LOCATION": "asia-east1"},
            "/v1/projects/proj-3/locations/asia-east1/publishers/google/models",
        ),
        ({}, {}, PROJECT_PATH),  # google-genai's GOOGLE_CLOUD_PROJECT from vertex_env
    ],
)
async def test_litellm_vertex_ai_models_go_to_vertex_with_adc(
    vertex_env: Path,
    server: FakeServer,
    token_server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
    args: dict[str, str],
    env: dict[str, str],
    path: str,
) -> None:
    from yadk.adk_compat._models import LiteLlm

    # vertex_ai/ chooses Vertex by itself, whatever GOOGLE_GENAI_USE_VERTEXAI says.
    monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    token_server.reply(token("tok-v"))
    server.reply(text_answer("from vertex_ai/"))
    llm = LiteLlm(model=f"vertex_ai/{MODEL}", **args)
    assert isinstance(llm, Gemini)
    [answer] = await generate(llm)
    assert answer.content is not None and answer.content.parts[0].text == "from vertex_ai/"
    [sent] = server.requests
    assert sent.path == f"{path}/{MODEL}:generateContent"
    assert sent.headers["authorization"] == "Bearer tok-v"


async def test_litellm_vertex_ai_with_an_api_key_is_express_mode(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from yadk.models import litellm_model

    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "ignored")
    llm = litellm_model(f"vertex_ai/{MODEL}", api_key="vx-key", api_base=server.url)
    server.reply(text_answer("express"))
    await generate(llm)  # type: ignore[arg-type]
    [sent] = server.requests
    assert sent.path == f"/v1/publishers/google/models/{MODEL}:generateContent"
    assert sent.headers["x-goog-api-key"] == "vx-key"


def test_litellm_vertex_ai_partner_models_are_refused() -> None:
    from yadk.models import litellm_model

    with pytest.raises(ModelError) as caught:
        litellm_model("vertex_ai/claude-sonnet-4-5")
    assert caught.value.message == (
        "LiteLlm model 'vertex_ai/claude-sonnet-4-5': yadk serves Vertex AI's Gemini models"
        " (vertex_ai/gemini-2.5-flash) and endpoint resource names"
        " (vertex_ai/projects/.../endpoints/...); partner models on Vertex (Claude, Llama, ...)"
        " are not served: use anthropic/NAME or an OpenAI-compatible provider instead."
    )


# --- Application Default Credentials from gcloud's user login and from the metadata server -----


@pytest.mark.subprocess  # google-auth asks `gcloud` (absent here) for the project
async def test_gcloud_user_credentials(
    server: FakeServer,
    token_server: FakeServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """`gcloud auth application-default login` writes an authorized_user file in gcloud's
    config folder; google-auth finds it there and trades its refresh token for an access
    token at Google's token endpoint (always that one for user credentials), which the
    transport here sends to the fake token server instead."""
    import httpx

    real_client = httpx.Client
    token_url = token_server.url + "/token"

    class ToFakeTokenServer(httpx.HTTPTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            assert str(request.url) == "https://oauth2.googleapis.com/token"
            request.url = httpx.URL(token_url)
            request.headers["host"] = request.url.netloc.decode("ascii")
            return super().handle_request(request)

    def client(**kwargs: Any) -> httpx.Client:
        return real_client(transport=ToFakeTokenServer(), **kwargs)

    monkeypatch.setattr(httpx, "Client", client)
    config = tmp_path / "gcloud"
    config.mkdir()
    (config / "application_default_credentials.json").write_text(
        json.dumps(
            {
                "type": "authorized_user",
                "client_id": "cid.apps.googleusercontent.com",
                "client_secret": "secret",
                "refresh_token": "refresh-1",
                "token_uri": token_server.url + "/token",
            }
        )
    )
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("CLOUDSDK_CONFIG", str(config))
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj-1")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", server.url)
    token_server.reply(token("user-tok"))
    server.reply(text_answer("hello user"))
    await generate(Gemini(MODEL, retries=0))
    assert server.requests[0].headers["authorization"] == "Bearer user-tok"
    [grant] = token_server.requests
    form = urllib.parse.parse_qs(grant.body.decode("ascii"))
    assert form["grant_type"] == ["refresh_token"]
    assert form["refresh_token"] == ["refresh-1"]
    assert form["client_id"] == ["cid.apps.googleusercontent.com"]


_ON_GCE = """
import asyncio
from yadk.models import Gemini, LlmRequest
from yadk.types import UserContent

async def main():
    request = LlmRequest(contents=[UserContent("hi")])
    async for answer in Gemini("gemini-2.5-flash", retries=0).generate_content_async(request):
        print(answer.content.parts[0].text)

asyncio.run(main())
"""


@pytest.mark.subprocess  # google-auth reads the metadata server's address when it is imported
def test_metadata_server_credentials(server: FakeServer, tmp_path: Path) -> None:
    """On Compute Engine, Cloud Run or GKE, Application Default Credentials come from the
    metadata server: google-auth finds it (the ``Metadata-Flavor: Google`` answer) and asks it
    for the default service account's token."""
    import os
    import subprocess
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    asked: list[str] = []

    class Metadata(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            path = self.path.partition("?")[0]
            answers: dict[str, Any] = {
                "/": "",
                "/computeMetadata/v1/project/project-id": "proj-1",
                "/computeMetadata/v1/universe/universe-domain": "googleapis.com",
                "/computeMetadata/v1/instance/service-accounts/default/": {
                    "email": "vm@proj-1.iam.gserviceaccount.com",
                    "scopes": ["https://www.googleapis.com/auth/cloud-platform"],
                    "aliases": ["default"],
                },
                "/computeMetadata/v1/instance/service-accounts/default/token": token("gce-tok"),
            }
            if path not in answers or self.headers.get("Metadata-Flavor") != "Google":
                self.send_response(404)
                self.end_headers()
                return
            answer = answers[path]
            body = (answer if isinstance(answer, str) else json.dumps(answer)).encode()
            self.send_response(200)
            self.send_header("Metadata-Flavor", "Google")
            self.send_header(
                "Content-Type", "text/plain" if isinstance(answer, str) else "application/json"
            )
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    metadata = ThreadingHTTPServer(("127.0.0.1", 0), Metadata)
    thread = threading.Thread(target=metadata.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    host = f"127.0.0.1:{metadata.server_address[1]}"
    (tmp_path / "gcloud").mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("GOOGLE_", "GCE_", "CLOUDSDK_"))
    }
    env.update(
        GCE_METADATA_HOST=host,
        GCE_METADATA_IP=host,
        CLOUDSDK_CONFIG=str(tmp_path / "gcloud"),
        GOOGLE_GENAI_USE_VERTEXAI="true",
        GOOGLE_CLOUD_PROJECT="proj-1",
        GOOGLE_VERTEX_BASE_URL=server.url,
        YADK_ALLOW_MODEL_REQUESTS="1",
    )
    server.reply(text_answer("hello from a VM"))
    try:
        done = subprocess.run(
            [sys.executable, "-c", _ON_GCE], env=env, capture_output=True, text=True, timeout=60
        )
    finally:
        metadata.shutdown()
        metadata.server_close()
        thread.join()
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello from a VM\n"
    assert server.requests[0].headers["authorization"] == "Bearer gce-tok"
    assert any(
        p.startswith("/computeMetadata/v1/instance/service-accounts/default/token") for p in asked
    )


def lookup(order_id: str) -> dict[str, str]:
    """Looks up an order."""
    return {"order_id": order_id, "status": "shipped"}


async def test_tools_on_vertex(
    vertex_env: Path, server: FakeServer, token_server: FakeServer
) -> None:
    from yadk import LlmAgent, Runner

    token_server.reply(token("tok-1"))
    call = {"functionCall": {"name": "lookup", "args": {"order_id": "A1"}}}
    server.reply({"candidates": [{"content": {"role": "model", "parts": [call]}}]})
    server.reply(text_answer("Order A1 has shipped."))
    agent = LlmAgent(name="desk", model=Gemini(MODEL, retries=0), tools=[lookup])
    runner = Runner(agent=agent, app_name="shop")
    session = await runner.session_service.create_session(app_name="shop", user_id="u")
    texts = [
        part.text
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message="A1?")
        if event.author == "desk"
        for part in (event.content.parts if event.content else [])
        if part.text
    ]
    assert texts == ["Order A1 has shipped."]
    first, second = server.requests
    assert first.path == second.path == f"{PROJECT_PATH}/{MODEL}:generateContent"
    [declaration] = first.body["tools"][0]["functionDeclarations"]
    assert declaration["name"] == "lookup"
    answered = second.body["contents"][-1]["parts"][0]["functionResponse"]
    assert answered["name"] == "lookup"
    assert answered["response"] == {"order_id": "A1", "status": "shipped"}
    assert {r.headers["authorization"] for r in server.requests} == {"Bearer tok-1"}


async def test_context_caching_on_vertex(
    vertex_env: Path, token_server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.models.fake_gemini_cache import FakeGemini, serve

    from yadk import LlmAgent, Runner
    from yadk.apps import App, ContextCacheConfig

    token_server.reply(token("tok-1"))
    parent = "projects/proj-1/locations/us-central1/"
    for fake in serve(FakeGemini(version="v1", parent=parent)):
        monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", fake.root)
        agent = LlmAgent(
            name="desk",
            model=Gemini(MODEL, retries=0),
            instruction="Refunds need the order number. " * 400,
            tools=[lookup],
        )
        config = ContextCacheConfig(cache_intervals=5, ttl_seconds=600, min_tokens=1000)
        runner = Runner(app=App(name="shop", root_agent=agent, context_cache_config=config))
        session = await runner.session_service.create_session(app_name="shop", user_id="u")
        for text in ("q1", "q2"):
            async for event in runner.run_async(
                user_id="u", session_id=session.id, new_message=text
            ):
                assert event.error_code is None, event.error_message
        generate = f"POST publishers/google/models/{MODEL}:generateContent"
        assert [f"{c.method} {c.path.removeprefix('/v1/' + parent)}" for c in fake.calls] == [
            generate,
            "POST cachedContents",
            generate,
        ]
        created = fake.calls[1].body
        assert created["model"] == f"{parent}publishers/google/models/{MODEL}"
        assert fake.calls[2].body["cachedContent"] == f"{parent}cachedContents/c1"
