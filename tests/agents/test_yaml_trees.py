"""The research_desk config tree: loaded from YAML, run offline, each stage seeing the right state.

configs/research_desk holds a root LlmAgent whose sub-agents come from ``config_path`` and
``code``, a SequentialAgent of three LLM agents chained through ``output_key`` and
``{placeholders}``, a LoopAgent ended by ``exit_loop``, and an AgentTool loaded from YAML.
"""

from __future__ import annotations

import json
from pathlib import Path

from _multi_agent import Conversation, authors, contents, context, requests_of, said

from yadk import LlmAgent, LoopAgent, SequentialAgent
from yadk.config import load_agent
from yadk.models import ScriptedModel
from yadk.tools import AgentTool

TREE = Path(__file__).resolve().parents[2] / "configs" / "research_desk"

FINDINGS = (
    "- Home batteries store 5 to 15 kWh.\n"
    "- LFP cells keep about 70% of their capacity after 6000 cycles.\n"
    "- Installed prices run from 600 to 1000 EUR per kWh.\n"
    "- Most warranties cover 10 years."
)
ANALYSIS = (
    "A typical 10 kWh battery costs 6000 to 10000 EUR installed and should outlast its 10-year"
    " warranty, so the price per stored kWh over its life is what a buyer should compare."
)
REPORT_V1 = (
    "Home solar batteries store 5 to 15 kWh and, with LFP cells, keep most of their capacity for"
    " thousands of cycles. They are not cheap, but most come with a 10-year warranty."
)
REPORT_V2 = (
    "Home solar batteries store 5 to 15 kWh and, with LFP cells, keep most of their capacity for"
    " thousands of cycles. A typical 10 kWh battery costs 6000 to 10000 EUR installed, and most"
    " come with a 10-year warranty."
)
NOTES_RESULT = str(
    {
        "topic": "home solar batteries",
        "notes": [
            "Typical home batteries store 5 to 15 kWh.",
            "Lithium iron phosphate cells keep about 70% of their capacity after 6000 cycles.",
            "Installed prices run from 600 to 1000 EUR per kWh.",
            "Most warranties cover 10 years.",
        ],
    }
)
CRITIQUE = "Give the price range for a typical 10 kWh battery."


def test_the_tree_loads_with_every_kind_of_agent() -> None:
    root = load_agent(TREE)
    assert [(type(a).__name__, a.name) for a in root.walk()] == [
        ("LlmAgent", "research_desk"),
        ("SequentialAgent", "research_pipeline"),
        ("LlmAgent", "researcher"),
        ("LlmAgent", "analyst"),
        ("LlmAgent", "writer"),
        ("LoopAgent", "refine_loop"),
        ("LlmAgent", "critic"),
        ("LlmAgent", "reviser"),
        ("LlmAgent", "small_talk"),
    ]
    loop = root.find_agent("refine_loop")
    assert isinstance(loop, LoopAgent) and loop.max_iterations == 3
    assert isinstance(root.find_agent("research_pipeline"), SequentialAgent)
    assert isinstance(root, LlmAgent)
    (tool,) = root.tools
    assert isinstance(tool, AgentTool) and tool.agent.name == "fact_checker"
    assert tool.declaration().description == (
        "Checks one claim against the research notes and says whether it holds."
    )


async def test_replay_runs_offline_and_each_stage_sees_the_state_before_it() -> None:
    root = load_agent(TREE)
    assert isinstance(root, LlmAgent)
    scripted = root.canonical_model
    assert isinstance(scripted, ScriptedModel)
    chat = Conversation(root)
    queries = json.loads((TREE / "replay.json").read_text(encoding="utf-8"))["queries"]
    turns = [await chat.send(query) for query in queries]

    research, polish, fact, thanks = ([(a, t) for a, _, t in authors(events)] for events in turns)
    assert research == [
        ("research_desk", "transfer_to_agent(agent_name='research_pipeline')"),
        ("research_desk", "transfer_to_agent->{'result': None}"),
        ("researcher", "search_notes(topic='home solar batteries')"),
        ("researcher", f"search_notes->{NOTES_RESULT}"),
        ("researcher", FINDINGS),
        ("analyst", ANALYSIS),
        ("writer", REPORT_V1),
    ]
    assert polish == [
        ("research_desk", "transfer_to_agent(agent_name='refine_loop')"),
        ("research_desk", "transfer_to_agent->{'result': None}"),
        ("critic", CRITIQUE),
        ("reviser", REPORT_V2),
        ("critic", "exit_loop()"),
        ("critic", "exit_loop->{'result': None}"),
    ]
    assert fact == [
        (
            "research_desk",
            "fact_checker(request='Most home solar batteries come with a 10-year warranty.')",
        ),
        (
            "research_desk",
            "fact_checker->{'result': 'true: the notes say most warranties cover 10 years.'}",
        ),
        (
            "research_desk",
            "Yes. According to our notes, most home batteries come with a 10-year warranty.",
        ),
    ]
    assert thanks == [
        ("research_desk", "transfer_to_agent(agent_name='small_talk')"),
        ("research_desk", "transfer_to_agent->{'result': None}"),
        ("small_talk", "You're welcome! Come back any time you need a report."),
    ]

    (analyst,) = requests_of(scripted, "analyst")
    assert analyst.system_instruction.startswith(
        f"Topic: home solar batteries\nFindings:\n{FINDINGS}\n\nSay in two or three sentences"
    )
    assert contents(analyst) == [context(said("researcher", FINDINGS))]  # include_contents: none
    (writer,) = requests_of(scripted, "writer")
    assert writer.system_instruction.startswith(
        "Write a short report on home solar batteries for a general reader.\n"
        f"Findings:\n{FINDINGS}\nAnalysis:\n{ANALYSIS}\n\n"
    )
    critic_first, critic_second = requests_of(scripted, "critic")
    assert critic_first.system_instruction.startswith(f"Review this report:\n{REPORT_V1}\n\n")
    assert critic_second.system_instruction.startswith(f"Review this report:\n{REPORT_V2}\n\n")
    (reviser,) = requests_of(scripted, "reviser")
    assert reviser.system_instruction.startswith(
        f"Revise this report:\n{REPORT_V1}\n\nReviewer's request: {CRITIQUE}\n"
    )
    desk_last = requests_of(scripted, "research_desk")[-1]
    assert "Current topic: home solar batteries" in desk_last.system_instruction

    stored = await chat.stored()
    assert stored.state == {
        "topic": "home solar batteries",
        "findings": FINDINGS,
        "analysis": ANALYSIS,
        "report": REPORT_V2,
        "critique": CRITIQUE,
        "last_fact_check": "true: the notes say most warranties cover 10 years.",
    }
    # The user's next message goes to small_talk, the agent that answered last.
    assert chat.runner.find_agent_to_run(stored).name == "small_talk"
    # Agents naming the same script share one ScriptedModel: every turn was played.
    assert scripted.remaining == 0
    assert [r.agent_name for r in scripted.requests].count("fact_checker") == 1
