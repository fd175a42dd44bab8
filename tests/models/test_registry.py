"""Model names to backends: bare Gemini names, provider prefixes, plugins, and the errors."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from yadk.errors import ModelError
from yadk.models import (
    BaseLlm,
    Gemini,
    LlmRequest,
    LlmResponse,
    OpenAIChat,
    ScriptedModel,
    _registry,
    register_model,
    registered_providers,
    resolve_model,
)


@pytest.fixture
def clean_registry() -> Iterator[None]:
    providers = dict(_registry._providers)
    patterns = list(_registry._patterns)
    yield
    _registry._providers.clear()
    _registry._providers.update(providers)
    _registry._patterns[:] = patterns


@pytest.mark.parametrize(
    "name, cls, model",
    [
        ("gemini-2.5-flash", Gemini, "gemini-2.5-flash"),
        ("gemini-3-pro-preview", Gemini, "gemini-3-pro-preview"),
        ("gemini:gemini-2.0-flash", Gemini, "gemini-2.0-flash"),
        ("gemini:gemma-3-27b-it", Gemini, "gemma-3-27b-it"),
        ("gemini:models/gemini-2.5-pro", Gemini, "gemini-2.5-pro"),
        ("openai:gpt-4o-mini", OpenAIChat, "gpt-4o-mini"),
        ("openai:llama3.1:8b", OpenAIChat, "llama3.1:8b"),
    ],
)
def test_resolve(name: str, cls: type[BaseLlm], model: str) -> None:
    resolved = resolve_model(name)
    assert type(resolved) is cls
    assert resolved.model == model


def test_resolve_scripted_and_instances(tmp_path: Path) -> None:
    path = tmp_path / "turns.yaml"
    path.write_text("turns: [{text: hi}]\n", encoding="utf-8")
    resolved = resolve_model(f"scripted:{path}")
    assert isinstance(resolved, ScriptedModel)
    assert resolved.model == f"scripted:{path}"
    assert resolve_model(resolved) is resolved


@pytest.mark.parametrize(
    "name, expected",
    [
        ("gemini:", "'gemini:' needs a model name, e.g. --model gemini:gemini-2.5-flash"),
        (
            "openai:",
            (
                "'openai:' needs a model name, e.g. --model openai:gpt-4o-mini, or openai:llama3 with"
                " OPENAI_BASE_URL=http://localhost:11434/v1"
            ),
        ),
        ("scripted:", "'scripted:' needs a file path, e.g. --model scripted:turns.yaml"),
        ("anthropic:", "'anthropic:' needs a model name, e.g. --model anthropic:claude-sonnet-4-5"),
        (
            "gpt4",
            (
                "No model backend for 'gpt4'. Known: anthropic:..., gemini:..., openai:...,"
                " scripted:..., gemini-* (Gemini), claude-* (Anthropic), gpt-* and o3-mini-like"
                " (OpenAI), LiteLLM's PROVIDER/NAME (openai/gpt-4o-mini), and names registered with"
                " yadk.models.register_model() or the 'yadk.models' entry-point group. Did you mean 'gpt-4o'? For a model behind an"
                " OpenAI-compatible API, write 'openai:gpt4'."
            ),
        ),
        (
            "mistral:large",
            (
                "No model backend for 'mistral:large'. Known: anthropic:..., gemini:..., openai:...,"
                " scripted:..., gemini-* (Gemini), claude-* (Anthropic), gpt-* and o3-mini-like"
                " (OpenAI), LiteLLM's PROVIDER/NAME (openai/gpt-4o-mini), and names registered with"
                " yadk.models.register_model() or the 'yadk.models' entry-point group."
            ),
        ),
    ],
)
def test_resolve_errors(name: str, expected: str) -> None:
    with pytest.raises(ModelError) as caught:
        resolve_model(name)
    assert caught.value.message == expected


def test_builtin_providers() -> None:
    assert {"anthropic", "gemini", "openai", "scripted"} <= set(registered_providers())


class Echo(BaseLlm):
    def __init__(self, model: str) -> None:
        self.model = model

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False):  # type: ignore[override]
        yield LlmResponse()


@pytest.mark.usefixtures("clean_registry")
def test_register_model_provider_pattern_and_decorator() -> None:
    register_model("echo", Echo)

    @register_model(pattern=r"claude-.*")
    def claude(name: str) -> BaseLlm:
        return Echo("anthropic/" + name)

    assert resolve_model("echo:small").model == "small"
    assert resolve_model("claude-sonnet").model == "anthropic/claude-sonnet"
    assert "echo" in registered_providers()
    with pytest.raises(ValueError, match="needs a provider name or a pattern"):
        register_model(factory=Echo)


@pytest.mark.subprocess
def test_importing_models_stays_light() -> None:
    code = textwrap.dedent(
        """
        import sys
        import yadk.models
        heavy = [m for m in ("httpx", "yadk.models._gemini", "yadk.models._openai",
                             "yadk.models._rest") if m in sys.modules]
        print(heavy)
        yadk.models.resolve_model("gemini-2.5-flash")
        print("yadk.models._gemini" in sys.modules, "yadk.models._openai" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert (out.returncode, out.stdout, out.stderr) == (0, "[]\nTrue False\n", "")


@pytest.mark.subprocess
def test_entry_point_plugin(tmp_path: Path) -> None:
    (tmp_path / "yadk_echo_plugin.py").write_text(
        textwrap.dedent(
            """
            from yadk.models import ScriptedModel, register_model

            register_model("echo", lambda name: ScriptedModel([{"text": name}], name="echo:" + name))
            """
        ),
        encoding="utf-8",
    )
    dist = tmp_path / "yadk_echo_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: yadk-echo-plugin\nVersion: 0.1\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        "[yadk.models]\necho = yadk_echo_plugin\n", encoding="utf-8"
    )
    code = "import yadk.models as m; print(m.resolve_model('echo:hello').model)"
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": ""},
    )
    assert (out.returncode, out.stdout, out.stderr) == (0, "echo:hello\n", "")


def test_public_names() -> None:
    import yadk.models

    assert yadk.models.__all__ == sorted(yadk.models.__all__)
    for name in yadk.models.__all__:
        assert getattr(yadk.models, name) is not None
    with pytest.raises(AttributeError, match="has no attribute 'Claude'"):
        yadk.models.Claude  # noqa: B018


def install_plugin(root: Path, dist: str, entry: str, module: str, code: str) -> None:
    """A real installed distribution: a module and its dist-info with a yadk.models entry point."""
    (root / f"{module}.py").write_text(textwrap.dedent(code), encoding="utf-8")
    info = root / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(f"[yadk.models]\n{entry} = {module}\n", encoding="utf-8")


@pytest.mark.subprocess
def test_a_broken_plugin_is_reported_for_its_models_and_blocks_no_other(tmp_path: Path) -> None:
    # "aaa" sorts (and loads) before "echo": its failure must not stop echo from loading.
    install_plugin(
        tmp_path, "aaa_broken", "aaa", "aaa_broken", "import a_module_that_is_not_installed\n"
    )
    install_plugin(
        tmp_path,
        "yadk_echo_plugin",
        "echo",
        "yadk_echo_plugin",
        """
        from yadk.models import ScriptedModel, register_model

        register_model("echo", lambda name: ScriptedModel([{"text": name}], name="echo:" + name))
        """,
    )
    code = textwrap.dedent(
        """
        import yadk.models as m
        from yadk.errors import ModelError

        print(m.resolve_model("echo:hello").model)
        print(m.resolve_model("gemini-2.5-flash").model)
        print("aaa" in m.registered_providers(), "echo" in m.registered_providers())
        for name in ("aaa:small", "nothing-like-it"):
            try:
                m.resolve_model(name)
            except ModelError as exc:
                print(exc.message)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(tmp_path), "PATH": ""},
    )
    problem = (
        "Model plugin 'aaa' (aaa_broken) failed to load: ModuleNotFoundError: No module named"
        " 'a_module_that_is_not_installed'. Fix or reinstall the package that provides it, or"
        " uninstall it."
    )
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout.splitlines() == [
        "echo:hello",
        "gemini-2.5-flash",
        "False True",
        f"No model backend for 'aaa:small': {problem}",
        "No model backend for 'nothing-like-it'. Known: anthropic:..., echo:..., gemini:...,"
        " openai:..., scripted:..., gemini-* (Gemini), claude-* (Anthropic), gpt-* and"
        " o3-mini-like (OpenAI), LiteLLM's PROVIDER/NAME (openai/gpt-4o-mini), and names"
        " registered with"
        " yadk.models.register_model() or the 'yadk.models' entry-point group. For a model"
        " behind an OpenAI-compatible API, write 'openai:nothing-like-it'. " + problem,
    ]
