"""Every key of the dialect, loaded and checked on the built agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel

from yadk.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from yadk.config import ConfigError, load_agent
from yadk.models import BaseLlm, ScriptedModel
from yadk.types import Content

WriteTree = Callable[[dict[str, str]], Path]

HELPERS_PY = """
from pydantic import BaseModel

from yadk.models import ScriptedModel


class Answer(BaseModel):
    text: str


class Question(BaseModel):
    query: str


CALLS = []


def first(callback_context):
    CALLS.append("first")


def second(callback_context):
    CALLS.append("second")


def third(callback_context, llm_request):
    CALLS.append("third")


my_model = ScriptedModel(turns=[{"text": "hi"}])
NOT_A_MODEL = 3
"""


def load(write_tree: WriteTree, yaml_text: str, **files: str) -> LlmAgent:
    root = write_tree(
        {"my_agent/root_agent.yaml": yaml_text, "my_agent/helpers.py": HELPERS_PY, **files}
    )
    agent = load_agent(root / "my_agent")
    assert isinstance(agent, LlmAgent)
    return agent


def test_every_llm_agent_field(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        """
        agent_class: LlmAgent
        name: assistant
        description: Answers questions.
        model: gemini-2.5-flash
        instruction: Answer {topic}.
        static_instruction: You are precise.
        disallow_transfer_to_parent: true
        disallow_transfer_to_peers: true
        input_schema: {name: my_agent.helpers.Question}
        output_schema: {name: .helpers.Answer}
        output_key: answer
        include_contents: none
        generate_content_config:
          temperature: 0.2
          maxOutputTokens: 256
          stop_sequences: [END]
        before_agent_callbacks:
          - name: .helpers.first
          - name: .helpers.second
        after_agent_callbacks: [{name: .helpers.second}]
        before_model_callbacks: [{name: .helpers.third}]
        after_model_callbacks: [{name: .helpers.third}]
        before_tool_callbacks: [{name: .helpers.first}]
        after_tool_callbacks: [.helpers.second]
        """,
    )
    from my_agent import helpers  # type: ignore[import-not-found]

    assert agent.name == "assistant"
    assert agent.description == "Answers questions."
    assert agent.model == "gemini-2.5-flash"
    assert agent.instruction == "Answer {topic}."
    assert agent.static_instruction == "You are precise."
    assert agent.disallow_transfer_to_parent is True
    assert agent.disallow_transfer_to_peers is True
    assert agent.input_schema is helpers.Question
    assert agent.output_schema is helpers.Answer
    assert agent.output_key == "answer"
    assert agent.include_contents == "none"
    assert agent.generate_content_config == {
        "temperature": 0.2,
        "max_output_tokens": 256,
        "stop_sequences": ["END"],
    }
    assert agent.before_agent_callback == [helpers.first, helpers.second]
    assert agent.after_agent_callback == [helpers.second]
    assert agent.before_model_callback == [helpers.third]
    assert agent.after_model_callback == [helpers.third]
    assert agent.before_tool_callback == [helpers.first]
    assert agent.after_tool_callback == [helpers.second]
    assert agent.tools == []
    assert agent.sub_agents == []


def test_defaults_when_keys_are_left_out(write_tree: WriteTree) -> None:
    agent = load(write_tree, "name: bare\ninstruction: ''\n")
    assert (agent.name, agent.description, agent.model, agent.instruction) == ("bare", "", "", "")
    assert agent.static_instruction is None
    assert agent.generate_content_config is None
    assert agent.before_model_callback is None
    assert agent.include_contents == "default"


@pytest.mark.parametrize(
    "spelling",
    [
        "LlmAgent",
        "Agent",
        "google.adk.agents.LlmAgent",
        "google.adk.agents.Agent",
        "google.adk.agents.llm_agent.LlmAgent",
        "google.adk.agents.llm_agent.Agent",
        "yadk.agents.LlmAgent",
        "''",
    ],
)
def test_llm_agent_spellings(write_tree: WriteTree, spelling: str) -> None:
    agent = load(write_tree, f"agent_class: {spelling}\nname: a\ninstruction: hi\n")
    assert type(agent) is LlmAgent


@pytest.mark.parametrize(
    ("spelling", "cls"),
    [
        ("SequentialAgent", SequentialAgent),
        ("google.adk.agents.SequentialAgent", SequentialAgent),
        ("google.adk.agents.sequential_agent.SequentialAgent", SequentialAgent),
        ("ParallelAgent", ParallelAgent),
        ("google.adk.agents.parallel_agent.ParallelAgent", ParallelAgent),
        ("LoopAgent", LoopAgent),
        ("google.adk.agents.loop_agent.LoopAgent", LoopAgent),
    ],
)
def test_workflow_agent_classes(write_tree: WriteTree, spelling: str, cls: type) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": f"""
                agent_class: {spelling}
                name: flow
                description: Runs two agents.
                sub_agents:
                  - config_path: one.yaml
                  - config_path: two.yaml
            """,
            "my_agent/one.yaml": "name: one\ninstruction: first\n",
            "my_agent/two.yaml": "name: two\ninstruction: second\n",
        }
    )
    agent = load_agent(root / "my_agent")
    assert type(agent) is cls
    assert agent.description == "Runs two agents."
    assert [s.name for s in agent.sub_agents] == ["one", "two"]
    assert all(s.parent_agent is agent for s in agent.sub_agents)


def test_loop_agent_max_iterations(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": """
                agent_class: LoopAgent
                name: loop
                max_iterations: 3
                sub_agents: [{config_path: step.yaml}]
            """,
            "my_agent/step.yaml": "name: step\ninstruction: go\ntools: [exit_loop]\n",
        }
    )
    agent = load_agent(root / "my_agent")
    assert isinstance(agent, LoopAgent)
    assert agent.max_iterations == 3


@pytest.mark.parametrize(
    ("yaml_value", "expected"),
    [
        ("static_instruction: plain text", "plain text"),
        ("static_instruction: {file: prompts/static.md}", "From a file.\n"),
    ],
)
def test_static_instruction_text(write_tree: WriteTree, yaml_value: str, expected: str) -> None:
    agent = load(
        write_tree,
        f"name: a\ninstruction: hi\n{yaml_value}\n",
        **{"my_agent/prompts/static.md": "From a file.\n"},
    )
    assert agent.static_instruction == expected


@pytest.mark.parametrize(
    "yaml_value",
    [
        "{role: user, parts: [{text: one}, {text: two}]}",
        "{parts: [{text: one}, {text: two}]}",
        "[one, {text: two}]",
    ],
)
def test_static_instruction_content(write_tree: WriteTree, yaml_value: str) -> None:
    agent = load(write_tree, f"name: a\ninstruction: hi\nstatic_instruction: {yaml_value}\n")
    assert isinstance(agent.static_instruction, Content)
    assert agent.static_instruction.role == "user"
    assert [p.text for p in agent.static_instruction.parts] == ["one", "two"]


def test_instruction_from_file(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        "name: a\ninstruction:\n  file: prompts/main.md\n",
        **{"my_agent/prompts/main.md": "Line one {name}.\nLine two.\n"},
    )
    assert agent.instruction == "Line one {name}.\nLine two.\n"


def test_scripted_model_path_is_relative_to_the_config(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        "name: a\ninstruction: hi\nmodel: scripted:turns.yaml\n",
        **{"my_agent/turns.yaml": "turns:\n  - text: hello\n"},
    )
    # Loaded from the file next to the config, named as written (the same on every machine).
    assert isinstance(agent.model, ScriptedModel)
    assert agent.model.model == "scripted:turns.yaml"
    assert [t.text for t in agent.model.turns] == ["hello"]


def test_agents_naming_one_script_share_one_model(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        "name: a\ninstruction: hi\nmodel: scripted:turns.yaml\n"
        "sub_agents:\n  - config_path: b.yaml\n",
        **{
            "my_agent/turns.yaml": "turns:\n  - text: hello\n",
            "my_agent/b.yaml": "name: b\ninstruction: hi\nmodel: scripted:turns.yaml\n",
        },
    )
    assert agent.model is agent.sub_agents[0].model  # type: ignore[attr-defined]


def test_missing_or_invalid_script_is_a_diagnostic(write_tree: WriteTree) -> None:
    with pytest.raises(ConfigError) as caught:
        load(write_tree, "name: a\ninstruction: hi\nmodel: scripted:nope.yaml\n")
    assert [d.rule for d in caught.value.diagnostics] == ["file-not-found"]
    with pytest.raises(ConfigError) as caught:
        load(
            write_tree,
            "name: a\ninstruction: hi\nmodel: scripted:turns.yaml\n",
            **{"my_agent/turns.yaml": "turns:\n  - txt: typo\n"},
        )
    # Located in the scripted file itself, with a did-you-mean.
    (diagnostic,) = caught.value.diagnostics
    assert (Path(diagnostic.path).name, diagnostic.line, diagnostic.column) == ("turns.yaml", 2, 5)
    assert (diagnostic.rule, diagnostic.message, diagnostic.hint) == (
        "unknown-key",
        "Unknown key `txt` in a scripted turn.",
        "Did you mean `text`?",
    )
    # `parts:` plays google-genai parts (Gemini's code execution, ...); each is checked.
    turns = (
        "turns:\n  - parts:\n      - executable_code: {code: print(1), language: PYTHON}\n"
        "      - {code_execution_result: {outcome: OUTCOME_OK, output: '1'}}\n"
    )
    agent = load(
        write_tree,
        "name: a\ninstruction: hi\nmodel: scripted:turns.yaml\n",
        **{"my_agent/turns.yaml": turns},
    )
    assert agent.model is not None
    with pytest.raises(ConfigError) as caught:
        load(
            write_tree,
            "name: a\ninstruction: hi\nmodel: scripted:turns.yaml\n",
            **{"my_agent/turns.yaml": "turns:\n  - parts:\n      - {executable_cod: {}}\n"},
        )
    (diagnostic,) = caught.value.diagnostics
    assert (diagnostic.line, diagnostic.column, diagnostic.rule, diagnostic.message) == (
        3,
        9,
        "scripted-invalid",
        "Not a part: executable_cod: Extra inputs are not permitted.",
    )


def test_model_code_names_a_model_instance(write_tree: WriteTree) -> None:
    agent = load(write_tree, "name: a\ninstruction: hi\nmodel_code: {name: .helpers.my_model}\n")
    from my_agent import helpers  # type: ignore[import-not-found]

    assert agent.model is helpers.my_model
    assert isinstance(agent.model, BaseLlm)


def test_model_code_must_be_a_model(write_tree: WriteTree) -> None:
    with pytest.raises(ConfigError) as caught:
        load(write_tree, "name: a\ninstruction: hi\nmodel_code: {name: .helpers.NOT_A_MODEL}\n")
    assert [d.format().split(": ", 1)[1] for d in caught.value.diagnostics] == [
        (
            "error wrong-kind: `my_agent.helpers.NOT_A_MODEL` is an int, expected a BaseLlm "
            "instance.\n  hint: Reference a BaseLlm instance built in code, or use `model: <name>` "
            "instead."
        )
    ]


def test_schemas_must_be_pydantic_models(write_tree: WriteTree) -> None:
    with pytest.raises(ConfigError) as caught:
        load(write_tree, "name: a\ninstruction: hi\noutput_schema: .helpers.first\n")
    (problem,) = caught.value.diagnostics
    assert (problem.line, problem.column, problem.rule, problem.message) == (
        3,
        16,
        "wrong-kind",
        "`my_agent.helpers.first` is a function, expected a pydantic BaseModel subclass.",
    )


def test_callbacks_run_in_order(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        """
        name: a
        instruction: hi
        before_agent_callbacks:
          - name: .helpers.second
          - name: .helpers.first
          - name: .helpers.second
        """,
    )
    assert [f.__name__ for f in agent.before_agent_callback] == ["second", "first", "second"]


@pytest.mark.parametrize(
    ("environ", "yaml_text", "expected"),
    [
        ({"YADK_T_NAME": "Ada"}, "instruction: Hello ${env:YADK_T_NAME}!", "Hello Ada!"),
        ({}, "instruction: Hello ${env:YADK_T_NAME:-you}!", "Hello you!"),
        ({}, "instruction: Hello ${env:YADK_T_NAME:-}!", "Hello !"),
        (
            {"YADK_T_NAME": "Ada"},
            "instruction: Costs $${env:YADK_T_NAME}",
            "Costs ${env:YADK_T_NAME}",
        ),
        ({}, "instruction: Keep ${x} and {y}", "Keep ${x} and {y}"),
    ],
)
def test_environment_variables(
    write_tree: WriteTree,
    monkeypatch: pytest.MonkeyPatch,
    environ: dict[str, str],
    yaml_text: str,
    expected: str,
) -> None:
    monkeypatch.delenv("YADK_T_NAME", raising=False)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    agent = load(write_tree, f"name: a\n{yaml_text}\n")
    assert agent.instruction == expected


def test_environment_variable_as_a_number(
    write_tree: WriteTree, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("YADK_T_TEMP", "0.5")
    monkeypatch.setenv("YADK_T_ROUNDS", "4")
    agent = load(
        write_tree,
        """
        name: a
        instruction: hi
        model: ${env:YADK_T_MODEL:-gemini-2.5-pro}
        generate_content_config:
          temperature: ${env:YADK_T_TEMP}
          top_k: ${env:YADK_T_ROUNDS}
          response_mime_type: "${env:YADK_T_ROUNDS}"
        """,
    )
    assert agent.model == "gemini-2.5-pro"
    assert agent.generate_content_config == {
        "temperature": 0.5,
        "top_k": 4,
        "response_mime_type": "4",
    }


def test_keys_are_not_substituted(write_tree: WriteTree) -> None:
    with pytest.raises(ConfigError) as caught:
        load(write_tree, "name: a\ninstruction: hi\n${env:HOME}: x\n")
    assert [d.rule for d in caught.value.diagnostics] == ["unknown-key"]
    assert caught.value.diagnostics[0].message == (
        "Unknown key `${env:HOME}` in an LlmAgent config."
    )


def test_state_declaration(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        "name: a\ninstruction: hi {customer}\nstate:\n  customer: the name\n  user:lang:\n",
    )
    assert agent.instruction == "hi {customer}"


def test_invalid_state_declaration(write_tree: WriteTree) -> None:
    with pytest.raises(ConfigError) as caught:
        load(write_tree, "name: a\ninstruction: hi\nstate: [good, bad key, 'app:']\n")
    assert [(d.line, d.column, d.message) for d in caught.value.diagnostics] == [
        (3, 15, "`bad key` is not a valid state key."),
        (3, 24, "`app:` is not a valid state key."),
    ]


def test_generate_content_config_rejects_system_instruction_and_tools(
    write_tree: WriteTree,
) -> None:
    with pytest.raises(ConfigError) as caught:
        load(
            write_tree,
            "name: a\ninstruction: hi\ngenerate_content_config:\n"
            "  system_instruction: x\n  tools: []\n  topP: high\n",
        )
    assert [(d.line, d.column, d.rule, d.message) for d in caught.value.diagnostics] == [
        (
            4,
            3,
            "invalid-value",
            "Set the system instruction with `instruction`, not in `generate_content_config`.",
        ),
        (
            5,
            3,
            "invalid-value",
            "Set tools with the agent's `tools` key, not in `generate_content_config`.",
        ),
        (6, 9, "wrong-type", "`generate_content_config.topP` must be a number, got a string."),
    ]


def test_http_options_are_snake_cased_and_reach_the_agent(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        "name: a\ninstruction: hi\ngenerate_content_config:\n  httpOptions:\n"
        "    timeout: 5000\n    retryOptions: {attempts: 3, initialDelay: 0.5,"
        " httpStatusCodes: [429]}\n",
    )
    assert agent.generate_content_config == {
        "http_options": {
            "timeout": 5000,
            "retry_options": {"attempts": 3, "initial_delay": 0.5, "http_status_codes": [429]},
        }
    }


def test_the_retry_options_example_of_docs_models(write_tree: WriteTree) -> None:
    from yadk.models._rest import HttpSettings, RetryOptions, settings_for

    docs = (Path(__file__).resolve().parents[2] / "docs" / "models.md").read_text()
    [block] = [b for b in docs.split("```yaml\n")[1:] if "retry_options:" in b.split("```")[0]]
    agent = load(write_tree, "name: a\ninstruction: hi\n" + block.split("```")[0])
    assert agent.generate_content_config is not None
    settings = settings_for(
        HttpSettings(timeout=60, retries=2, retry_delay=1), agent.generate_content_config
    )
    assert settings.timeout == 30
    assert settings.retry_options == RetryOptions(
        attempts=4,
        initial_delay=0.5,
        exp_base=2,
        max_delay=10,
        jitter=0.5,
        http_status_codes=frozenset({429, 503}),
    )


def test_pydantic_schema_output(write_tree: WriteTree) -> None:
    agent = load(write_tree, "name: a\ninstruction: hi\noutput_schema: .helpers.Answer\n")
    assert agent.output_schema is not None
    assert issubclass(agent.output_schema, BaseModel)
    assert agent.output_schema.__name__ == "Answer"


def test_optional_keys_accept_null(write_tree: WriteTree) -> None:
    agent = load(
        write_tree,
        "name: a\ninstruction: hi\nmodel:\ntools:\nsub_agents:\noutput_key:\n"
        "before_model_callbacks:\ngenerate_content_config:\nstatic_instruction:\n",
    )
    assert (agent.model, agent.tools, agent.output_key, agent.static_instruction) == (
        "",
        [],
        None,
        None,
    )


def test_required_keys_do_not_accept_null(write_tree: WriteTree) -> None:
    with pytest.raises(ConfigError) as caught:
        load(write_tree, "name: a\ninstruction:\ndescription:\n")
    assert [(d.line, d.message) for d in caught.value.diagnostics] == [
        (2, "`instruction` must be a string or a mapping `file: path`, got null."),
        (3, "`description` must be a string, got null."),
    ]
