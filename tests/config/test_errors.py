"""Every kind of config error, with its exact ``path:line:col: severity rule: message`` and hint,
the same whether the config is loaded (code imported) or only validated (no code runs)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from yadk.config import ConfigError, load_agent, validate_paths

WriteTree = Callable[[dict[str, str]], Path]

TOOLS_PY = '''
def search(query: str) -> str:
    """Search."""
    return query


class Thing:
    pass


LIMIT = 3
'''


def problems(root: Path, *, import_code: bool) -> list[str]:
    """Every diagnostic of the agent folder ``root/my_agent``, formatted."""
    folder = root / "my_agent"
    if not import_code:
        return [d.format() for d in validate_paths([folder])]
    try:
        load_agent(folder)
    except ConfigError as exc:
        assert str(exc) == "\n".join(d.format() for d in exc.diagnostics if d.is_error)
        return [d.format() for d in exc.diagnostics]
    return []


CASES: list[tuple[str, str, list[str]]] = [
    (
        "unknown key, did you mean",
        "name: a\ninstruction: hi\nmodle: gemini\n",
        [
            (
                "{cfg}:3:1: error unknown-key: Unknown key `modle` in an LlmAgent config.\n"
                "  hint: Did you mean `model`?"
            )
        ],
    ),
    (
        "key of another agent class",
        "agent_class: SequentialAgent\nname: a\ninstruction: hi\n",
        [
            (
                "{cfg}:3:1: error unknown-key: Unknown key `instruction` in a SequentialAgent "
                "config.\n  hint: Only an LlmAgent takes `instruction`."
            )
        ],
    ),
    (
        "missing name",
        "instruction: hi\n",
        [
            (
                "{cfg}:1:1: error missing-field: The agent has no `name`.\n"
                "  hint: Add `name: my_agent` (letters, digits and underscores)."
            )
        ],
    ),
    (
        "missing instruction",
        "# an agent\nname: a\n",
        [
            (
                "{cfg}:2:1: error missing-field: LlmAgent `a` has no `instruction`.\n"
                "  hint: Add `instruction: ...` or `instruction: {{file: prompts/main.md}}`."
            )
        ],
    ),
    (
        "wrong type",
        "name: a\ninstruction: hi\ndescription: [x, y]\n",
        ["{cfg}:3:14: error wrong-type: `description` must be a string, got a list."],
    ),
    (
        "tools not a list",
        "name: a\ninstruction: hi\ntools: {name: x}\n",
        [
            (
                "{cfg}:3:8: error wrong-type: `tools` must be a list of tools, got a mapping.\n"
                "  hint: e.g. `tools: [{{name: my_agent.tools.search}}]`."
            )
        ],
    ),
    (
        "invalid agent name",
        "name: my-agent\ninstruction: hi\n",
        [
            (
                "{cfg}:1:7: error invalid-name: Agent name `my-agent` is not a valid identifier.\n"
                "  hint: Use letters, digits and underscores, not starting with a digit "
                "(e.g. `my_agent`)."
            )
        ],
    ),
    (
        "reserved agent name",
        "name: user\ninstruction: hi\n",
        [
            (
                "{cfg}:1:7: error invalid-name: Agent name `user` is reserved for the end user's "
                "messages.\n  hint: Choose another name."
            )
        ],
    ),
    (
        "module not found",
        "name: a\ninstruction: hi\ntools:\n  - name: my_agent.toolz.search\n",
        [
            (
                "{cfg}:4:11: error module-not-found: No module named `my_agent.toolz`.\n"
                "  hint: Did you mean `tools`?"
            )
        ],
    ),
    (
        "attribute not found",
        "name: a\ninstruction: hi\ntools:\n  - name: .tools.serach\n",
        [
            (
                "{cfg}:4:11: error attribute-not-found: Module `my_agent.tools` has no attribute "
                "`serach`.\n  hint: Did you mean `search`?"
            )
        ],
    ),
    (
        "wrong kind: a class as callback",
        "name: a\ninstruction: hi\nbefore_model_callbacks:\n  - name: .tools.Thing\n",
        [
            (
                "{cfg}:4:11: error wrong-kind: `my_agent.tools.Thing` is a class, expected a "
                "function.\n  hint: Reference a function defined at the top level of a module."
            )
        ],
    ),
    (
        "wrong kind: a function as sub-agent",
        "name: a\ninstruction: hi\nsub_agents:\n  - code: my_agent.tools.search\n",
        [
            (
                "{cfg}:4:11: error wrong-kind: `my_agent.tools.search` is a function, expected an "
                "agent instance (e.g. `my_agent = LlmAgent(...)`).\n"
                "  hint: Reference an agent instance, or name a class in `agent_class` instead."
            )
        ],
    ),
    (
        "not a dotted name",
        "name: a\ninstruction: hi\nafter_agent_callbacks:\n  - name: search\n",
        [
            (
                "{cfg}:4:11: error invalid-reference: `search` is not a dotted name.\n"
                "  hint: Write module.attribute, e.g. `my_agent.tools.search`, or `.tools.search` "
                "for a module next to this config."
            )
        ],
    ),
    (
        "blocked module",
        "name: a\ninstruction: hi\ntools:\n  - name: subprocess.run\n",
        [
            (
                "{cfg}:4:11: error blocked-module: `subprocess.run` is blocked: configs cannot "
                "reference the `subprocess` module.\n  hint: The standard library and YAML loaders "
                "are blocked because they can run arbitrary code; wrap what you need in a function "
                "in your own agent package."
            )
        ],
    ),
    (
        "yaml machinery blocked",
        "name: a\ninstruction: hi\ntools:\n  - name: yaml.unsafe_load\n",
        [
            (
                "{cfg}:4:11: error blocked-module: `yaml.unsafe_load` is blocked: configs cannot "
                "reference the `yaml` module.\n  hint: The standard library and YAML loaders are "
                "blocked because they can run arbitrary code; wrap what you need in a function in "
                "your own agent package."
            )
        ],
    ),
    (
        "unknown built-in tool",
        "name: a\ninstruction: hi\ntools:\n  - name: exit_lop\n",
        [
            (
                "{cfg}:4:11: error unknown-tool: `exit_lop` is not a built-in tool.\n"
                "  hint: Did you mean `exit_loop`?"
            )
        ],
    ),
    (
        "google-adk only tool",
        "name: a\ninstruction: hi\ntools:\n  - enterprise_web_search\n",
        [
            (
                "{cfg}:4:5: error unsupported-tool: `enterprise_web_search` is a google-adk built-in tool "
                "that yadk does not provide.\n  hint: Write it as a function in your agent package "
                "and reference it by dotted name (e.g. `name: .tools.enterprise_web_search`)."
            )
        ],
    ),
    (
        "unknown agent class",
        "agent_class: LoopAgnt\nname: a\n",
        [
            (
                "{cfg}:1:14: error unknown-agent-class: Unknown agent class `LoopAgnt`.\n"
                "  hint: Did you mean `LoopAgent`?"
            )
        ],
    ),
    (
        "model and model_code",
        "name: a\ninstruction: hi\nmodel: m\nmodel_code: {name: .tools.LIMIT}\n",
        [
            (
                "{cfg}:4:1: error conflicting-fields: Set `model` or `model_code`, not both.\n"
                "  hint: Keep the one you mean."
            )
        ],
    ),
    (
        "include_contents value",
        "name: a\ninstruction: hi\ninclude_contents: all\n",
        [
            (
                "{cfg}:3:19: error invalid-value: `include_contents` must be `default` or `none`, "
                "got `all`.\n  hint: `none` sends only the current turn; `default` the whole history."
            )
        ],
    ),
    (
        "mode value",
        "name: a\ninstruction: hi\nmode: chatty\n",
        [
            (
                "{cfg}:3:7: error invalid-value: `mode` must be `chat`, `single_turn` or `task`,"
                " got `chatty`.\n  hint: `single_turn` answers its input once (a workflow node's"
                " default); `chat` talks with the user (a sub-agent's default); `task` is delegated"
                " a task by its parent and chats with the user until it calls finish_task."
            )
        ],
    ),
    (
        "max_iterations below 1",
        "agent_class: LoopAgent\nname: a\nmax_iterations: 0\n",
        [
            (
                "{cfg}:3:17: error invalid-value: `max_iterations` must be at least 1, got 0.\n"
                "  hint: Leave it out to loop until a sub-agent escalates (exit_loop)."
            )
        ],
    ),
    (
        "generate_content_config key",
        "name: a\ninstruction: hi\ngenerate_content_config:\n  temprature: 0.1\n",
        [
            (
                "{cfg}:4:3: error unknown-key: Unknown key `temprature` in "
                "`generate_content_config`.\n  hint: Did you mean `temperature`?"
            )
        ],
    ),
    (
        "http_options key",
        "name: a\ninstruction: hi\ngenerate_content_config:\n  http_options:\n    timout: 5000\n",
        [
            (
                "{cfg}:5:5: error unknown-key: Unknown key `timout` in "
                "`generate_content_config.http_options`.\n  hint: Did you mean `timeout`?"
            )
        ],
    ),
    (
        "http_options values",
        "name: a\ninstruction: hi\ngenerate_content_config:\n  httpOptions:\n"
        "    timeout: 0\n    headers: {{X-Team: a}}\n    retry_options: 3\n",
        [
            (
                "{cfg}:5:14: error invalid-value: `generate_content_config.httpOptions.timeout` "
                "must be more than 0, got 0.\n  hint: google-genai counts the timeout in "
                "milliseconds, e.g. `timeout: 30000`."
            ),
            (
                "{cfg}:6:14: warning setting-ignored: `generate_content_config.httpOptions.headers`"
                " is not used by yadk's model backends.\n  hint: They use `timeout` and "
                "`retry_options`; set a base URL or headers on the model (`model_code` with "
                "`args`, or the provider's *_BASE_URL variable)."
            ),
            (
                "{cfg}:7:20: error wrong-type: `generate_content_config.httpOptions.retry_options`"
                " must be a mapping, got an integer."
            ),
        ],
    ),
    (
        "retry_options keys and values",
        "name: a\ninstruction: hi\ngenerate_content_config:\n  http_options:\n"
        "    retryOptions:\n      atempts: 3\n      initialDelay: soon\n      max_delay: -1\n"
        "      http_status_codes: [503, '429']\n",
        [
            (
                "{cfg}:6:7: error unknown-key: Unknown key `atempts` in "
                "`generate_content_config.http_options.retryOptions`.\n"
                "  hint: Did you mean `attempts`?"
            ),
            (
                "{cfg}:7:21: error wrong-type: "
                "`generate_content_config.http_options.retryOptions.initialDelay` must be a "
                "number, got a string."
            ),
            (
                "{cfg}:8:18: error invalid-value: "
                "`generate_content_config.http_options.retryOptions.max_delay` must be 0 or more,"
                " got -1.\n  hint: Waits are seconds, e.g. `initial_delay: 1.0`; `attempts` "
                "counts the first try (0 and 1 mean no retry)."
            ),
            (
                "{cfg}:9:32: error invalid-value: "
                "`generate_content_config.http_options.retryOptions.http_status_codes` must list "
                'HTTP status codes (integers from 100 to 599), got `"429"`.\n'
                "  hint: e.g. `http_status_codes: [429, 503]`."
            ),
        ],
    ),
    (
        "a list, not a mapping",
        "- name: a\n",
        [
            (
                "{cfg}:1:1: error wrong-type: `config` must be a mapping of agent keys (name, "
                "instruction, ...), got a list."
            )
        ],
    ),
    (
        "empty file",
        "# nothing yet\n",
        [
            (
                "{cfg}:1:1: error empty-config: The config file is empty.\n"
                "  hint: An agent config needs at least `name` (and `instruction` for an LlmAgent)."
            )
        ],
    ),
    (
        "yaml syntax",
        "name: a\ninstruction: [hi\n",
        [
            (
                "{cfg}:3:1: error yaml-syntax: Invalid YAML: expected ',' or ']', but got "
                "'<stream end>' (while parsing a flow sequence)."
            )
        ],
    ),
    (
        "duplicate key",
        "name: a\ninstruction: hi\nname: b\n",
        [
            (
                "{cfg}:3:1: error duplicate-key: Key `name` appears twice in this mapping; YAML "
                "would silently keep only the last value.\n"
                "  hint: Remove one of them (the first is at line 1, column 1)."
            )
        ],
    ),
    (
        "object-building tag",
        "name: a\ninstruction: !!python/object/apply:os.system [ls]\n",
        [
            (
                "{cfg}:2:14: error yaml-unsafe-tag: The YAML tag "
                "`tag:yaml.org,2002:python/object/apply:os.system` is not allowed: configs are read "
                "with a safe loader that never builds Python objects.\n  hint: Remove the tag; "
                "reference Python objects by dotted name instead (e.g. `name: "
                "my_agent.tools.search`)."
            )
        ],
    ),
    (
        "missing environment variable",
        "name: a\ninstruction: 'Hello ${{env:YADK_TEST_UNSET_VAR}}'\n",
        [
            (
                "{cfg}:2:21: error env-missing: Environment variable `YADK_TEST_UNSET_VAR` is not "
                "set.\n  hint: Export it (`export YADK_TEST_UNSET_VAR=...`) or give a default: "
                "`${{env:YADK_TEST_UNSET_VAR:-default}}`."
            )
        ],
    ),
    (
        "missing instruction file",
        "name: a\ninstruction: {{file: prompts/mian.md}}\n",
        [
            (
                "{cfg}:2:21: error file-not-found: Instruction file `prompts/mian.md` not found "
                "(looked for {dir}/prompts/mian.md).\n  hint: Did you mean `main.md`?"
            )
        ],
    ),
    (
        "instruction file outside the folder",
        "name: a\ninstruction: {{file: ../secret.md}}\n",
        [
            (
                "{cfg}:2:21: error path-outside-folder: Instruction file `../secret.md` is outside "
                "the agent folder {dir}.\n  hint: Keep every file an agent uses inside its folder."
            )
        ],
    ),
]


@pytest.mark.parametrize("import_code", [False, True], ids=["validate", "load"])
@pytest.mark.parametrize(
    ("yaml_text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_config_error(
    write_tree: WriteTree,
    monkeypatch: pytest.MonkeyPatch,
    yaml_text: str,
    expected: list[str],
    import_code: bool,
) -> None:
    monkeypatch.delenv("YADK_TEST_UNSET_VAR", raising=False)
    root = write_tree(
        {
            "my_agent/root_agent.yaml": yaml_text.replace("{{", "{").replace("}}", "}"),
            "my_agent/tools.py": TOOLS_PY,
            "my_agent/prompts/main.md": "Hi.",
            "secret.md": "secret",
        }
    )
    folder = root / "my_agent"
    wanted = [e.format(cfg=folder / "root_agent.yaml", dir=folder, tmp=root) for e in expected]
    assert problems(root, import_code=import_code) == wanted


SUB_AGENT_CASES: list[tuple[str, str, str]] = [
    (
        "absolute path",
        "/etc/agent.yaml",
        (
            "{cfg}:4:18: error path-absolute: Sub-agent config `/etc/agent.yaml` is an absolute "
            "path.\n  hint: Write it relative to this file's folder ({dir})."
        ),
    ),
    (
        "outside the agent folder",
        "../other/agent.yaml",
        (
            "{cfg}:4:18: error path-outside-folder: Sub-agent config `../other/agent.yaml` resolves "
            "outside the agent folder {dir}.\n  hint: Keep every config of an agent inside its "
            "folder."
        ),
    ),
    (
        "missing",
        "helpr.yaml",
        (
            "{cfg}:4:18: error file-not-found: Sub-agent config `helpr.yaml` not found (looked for "
            "{dir}/helpr.yaml).\n  hint: Did you mean `helper.yaml`?"
        ),
    ),
    (
        "cycle",
        "loop.yaml",
        (
            "{dir}/loop.yaml:3:28: error sub-agent-cycle: Sub-agent cycle: root_agent.yaml -> "
            "loop.yaml -> root_agent.yaml.\n  hint: An agent cannot contain itself; remove one of "
            "these references."
        ),
    ),
]


@pytest.mark.parametrize("import_code", [False, True], ids=["validate", "load"])
@pytest.mark.parametrize(
    ("reference", "expected"), [c[1:] for c in SUB_AGENT_CASES], ids=[c[0] for c in SUB_AGENT_CASES]
)
def test_bad_sub_agent_path(
    write_tree: WriteTree, reference: str, expected: str, import_code: bool
) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": f"""
                name: root
                instruction: hi
                sub_agents:
                  - config_path: {reference}
            """,
            "my_agent/helper.yaml": "name: helper\ninstruction: help\n",
            "my_agent/loop.yaml": """
                agent_class: LoopAgent
                name: loop
                sub_agents: [{config_path: root_agent.yaml}]
            """,
            "other/agent.yaml": "name: other\ninstruction: x\n",
        }
    )
    folder = root / "my_agent"
    assert problems(root, import_code=import_code) == [
        expected.format(cfg=folder / "root_agent.yaml", dir=folder)
    ]


@pytest.mark.parametrize("import_code", [False, True], ids=["validate", "load"])
def test_duplicate_agent_names_in_one_tree(write_tree: WriteTree, import_code: bool) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": """
                agent_class: SequentialAgent
                name: pipeline
                sub_agents:
                  - config_path: a.yaml
                  - config_path: nested/b.yaml
            """,
            "my_agent/a.yaml": "name: worker\ninstruction: a\n",
            "my_agent/nested/b.yaml": """
                agent_class: ParallelAgent
                name: fan_out
                sub_agents: [{config_path: c.yaml}]
            """,
            "my_agent/nested/c.yaml": "name: worker\ninstruction: c\n",
        }
    )
    folder = root / "my_agent"
    assert problems(root, import_code=import_code) == [
        (
            f"{folder}/nested/c.yaml:1:7: error duplicate-agent-name: Agent name `worker` is used "
            f"twice in one agent tree.\n  hint: The other one is at {folder}/a.yaml:1:7; names "
            "must be unique in a tree (transfers and events refer to agents by name)."
        )
    ]


def test_import_failure_in_user_module_is_a_diagnostic(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": "name: a\ninstruction: hi\ntools: [{name: .tools.f}]\n",
            "my_agent/tools.py": "import json\n\nVALUE = json.loads('{')\n\ndef f(): pass\n",
        }
    )
    folder = root / "my_agent"
    assert problems(root, import_code=True) == [
        (
            f"{folder}/tools.py:3:9: error import-failed: Importing `my_agent.tools` failed: "
            "JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 "
            f"(char 1).\n  note: referenced from {folder}/root_agent.yaml:3:16\n"
            "  hint: Fix the error in that module; "
            "`python -c 'import my_agent.tools'` shows the full traceback."
        )
    ]
    # Without imports the module is read, not run, so nothing is wrong yet.
    assert problems(root, import_code=False) == []


def test_syntax_error_in_user_module(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": "name: a\ninstruction: hi\ntools: [{name: .tools.f}]\n",
            "my_agent/tools.py": "def f(:\n    pass\n",
        }
    )
    folder = root / "my_agent"
    assert problems(root, import_code=False) == [
        (
            f"{folder}/tools.py:1:7: error import-failed: Module `my_agent.tools` has a "
            "syntax error: invalid syntax.\n"
            f"  note: referenced from {folder}/root_agent.yaml:3:16\n"
            "  hint: Fix the syntax error in that file."
        )
    ]
    loaded = problems(root, import_code=True)
    assert loaded == [
        f"{folder}/tools.py:1:7: error import-failed: Importing `my_agent.tools` failed: "
        "SyntaxError: invalid syntax.\n"
        f"  note: referenced from {folder}/root_agent.yaml:3:16\n"
        "  hint: Fix the error in that module; `python -c 'import my_agent.tools'` shows the"
        " full traceback."
    ]


def test_all_problems_of_all_files_at_once(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": """
                name: root
                instructoin: hi
                tools:
                  - name: .tools.serach
                sub_agents:
                  - config_path: helper.yaml
                include_contents: everything
            """,
            "my_agent/helper.yaml": """
                name: helper
                instruction: 42
                disallow_transfer_to_peers: maybe
            """,
            "my_agent/tools.py": TOOLS_PY,
        }
    )
    with pytest.raises(ConfigError) as caught:
        load_agent(root / "my_agent")
    folder = root / "my_agent"
    assert [(Path(d.path).name, d.line, d.column, d.rule) for d in caught.value.diagnostics] == [
        ("root_agent.yaml", 2, 1, "unknown-key"),
        ("root_agent.yaml", 4, 11, "attribute-not-found"),
        ("root_agent.yaml", 7, 19, "invalid-value"),
        ("helper.yaml", 2, 14, "wrong-type"),
        ("helper.yaml", 3, 29, "wrong-type"),
    ]
    assert str(caught.value).splitlines()[0] == (
        f"{folder}/root_agent.yaml:2:1: error unknown-key: Unknown key `instructoin` in an LlmAgent config."
    )
    assert isinstance(caught.value, ValueError)


def test_missing_config_file_and_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load_agent(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}: error file-not-found: No root_agent.yaml in folder {tmp_path}.\n"
        "  hint: Pass the config file itself, or add root_agent.yaml to the folder."
    )
    with pytest.raises(ConfigError) as caught:
        load_agent(tmp_path / "nope.yaml")
    assert str(caught.value) == (
        f"{tmp_path}/nope.yaml: error file-not-found: Config file {tmp_path}/nope.yaml not "
        "found.\n  hint: Pass a YAML config file or a folder holding root_agent.yaml."
    )


def test_duplicate_sibling_names_are_reported_once(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my_agent/root_agent.yaml": "agent_class: ParallelAgent\nname: p\n"
            "sub_agents: [a.yaml, b.yaml]\n",
            "my_agent/a.yaml": "name: worker\ninstruction: a\n",
            "my_agent/b.yaml": "name: worker\ninstruction: b\n",
        }
    )
    for import_code in (False, True):
        assert [d.rule for d in validate_paths([root / "my_agent"], import_code=import_code)] == [
            "duplicate-agent-name"
        ]


def test_relative_name_in_a_folder_that_is_no_package(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "my-agent/root_agent.yaml": "name: a\ninstruction: hi\ntools: [.tools.f]\n",
            "my-agent/tools.py": "def f(): pass\n",
        }
    )
    (problem,) = validate_paths([root / "my-agent"])
    assert (problem.line, problem.column, problem.rule, problem.message, problem.hint) == (
        3,
        9,
        "invalid-reference",
        (
            "`.tools.f` is relative to the config's folder `my-agent`, which is not a valid Python "
            "package name."
        ),
        "Rename the folder (e.g. `my_agent`), or write the module's full dotted name.",
    )
