"""``yadk validate`` checks the eval sets and test_config.json files it finds."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.eval._helpers import WEATHER, Cli, eval_set, invocation


def test_eval_sets_in_an_agent_folder_are_checked(cli: Cli, agent_dir: Path) -> None:
    (agent_dir / "weather.evalset.json").write_text('{"eval_set_id": "w", "eval_cases": 3}\n')
    (agent_dir / "test_config.json").write_text('{"criteria": {"tool_trajectory": 1.0}}\n')
    code, out, _ = cli("validate", str(agent_dir))
    assert code == 1
    assert out == (
        "weather/weather.evalset.json:1:36: error wrong-type: `eval_cases` must be a list of eval"
        " cases, not a number.\n"
        "weather/test_config.json:1:15: error unknown-metric: Unknown metric `tool_trajectory`;"
        " google-adk would skip it silently.\n"
        "  hint: Did you mean `tool_trajectory_avg_score`?\n"
        "2 errors in 1 agent, 1 eval file\n"
    )


def test_a_folder_of_eval_sets_only_and_eval_files_given_directly(cli: Cli, tmp_path: Path) -> None:
    folder = tmp_path / "evals"
    folder.mkdir()
    (folder / "ok.evalset.json").write_text(eval_set(("lisbon", [WEATHER])))
    (tmp_path / "flat.test.json").write_text('[{"query": "hi", "reference": "yo"}]')
    code, out, _ = cli("validate", str(folder), str(tmp_path / "flat.test.json"))
    assert (code, out) == (0, "no problems found in 2 eval files\n")


def test_with_import_expected_tool_names_are_checked_against_the_agent(
    cli: Cli, agent_dir: Path
) -> None:
    typo = invocation("weather?", "sunny", [("get_wether", {"city": "Lisbon"})])
    (agent_dir / "weather.evalset.json").write_text(eval_set(("typo", [typo])))
    assert cli("validate", str(agent_dir))[:2] == (0, "no problems found in 1 agent, 1 eval file\n")
    code, out, _ = cli("validate", "--import", str(agent_dir))
    assert code == 0
    assert out == (
        "weather/weather.evalset.json:27:25: warning unknown-tool: Expected tool `get_wether` is"
        " not a tool of agent `weather`; this call can never match.\n"
        "  hint: Did you mean `get_weather`?\n"
        "1 warning in 1 agent, 1 eval file\n"
    )
    assert cli("validate", "--import", "--strict", str(agent_dir))[0] == 1


def test_demo_configs_validate_clean_with_their_eval_sets(cli: Cli) -> None:
    configs = Path(__file__).resolve().parents[2] / "configs"
    code, out, _ = cli("validate", "--import", str(configs))
    assert code == 0
    assert re.fullmatch(r"no problems found in \d+ agents, \d+ eval files\n", out), out
    assert json.loads((configs / "support_desk" / "test_config.json").read_text())
