"""A config tree loaded and run offline: what the scripted model receives is what the YAML says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from yadk import Runner
from yadk.config import load_agent
from yadk.examples import convert_examples_to_text
from yadk.examples._files import load_examples_file
from yadk.models import ScriptedModel

WriteTree = Callable[[dict[str, str]], Path]


async def test_run_a_loaded_tree(write_tree: WriteTree) -> None:
    root = write_tree(
        {
            "desk/root_agent.yaml": """
                # yaml-language-server: $schema=../agent.schema.json
                name: desk
                description: Front desk.
                model: scripted:turns.yaml
                instruction: {file: prompts/desk.md}
                tools:
                  - name: .tools.lookup_order
                examples: examples.yaml
                before_model_callbacks:
                  - name: .callbacks.remember
                sub_agents:
                  - config_path: refunds.yaml
            """,
            "desk/refunds.yaml": """
                name: refunds
                description: Handles refunds.
                instruction: Refund orders for {customer_name}.
            """,
            "desk/prompts/desk.md": "Help {customer_name} with orders ({tier?}).\n",
            "desk/examples.yaml": """
                - input: {role: user, parts: [{text: 'Where is A-1?'}]}
                  output: [{role: model, parts: [{text: On its way.}]}]
            """,
            "desk/turns.yaml": """
                turns:
                  - function_calls: [{name: lookup_order, args: {order_id: A-7}}]
                  - text: Your order A-7 has shipped.
            """,
            "desk/tools.py": '''
                def lookup_order(order_id: str) -> dict:
                    """Look up an order by its id."""
                    return {"order_id": order_id, "status": "shipped"}
            ''',
            "desk/callbacks.py": """
                SEEN = []

                def remember(callback_context, llm_request):
                    SEEN.append(llm_request.agent_name)
            """,
        }
    )
    agent = load_agent(root / "desk")
    runner = Runner(app_name="desk", agent=agent)
    session = await runner.session_service.create_session(
        app_name="desk", user_id="u", state={"customer_name": "Ada"}
    )
    events = [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session.id, new_message="Where is my order A-7?"
        )
    ]
    assert events[-1].content is not None
    assert events[-1].content.parts[0].text == "Your order A-7 has shipped."

    model = agent.canonical_model
    assert isinstance(model, ScriptedModel)
    first = model.requests[0]
    examples = convert_examples_to_text(
        load_examples_file(root / "desk" / "examples.yaml"), first.model
    )
    # The instruction file rendered with the session state ({tier?} is optional), then the
    # identity and transfer blocks, then the examples block the ExampleTool appends.
    assert first.system_instruction.startswith(
        "Help Ada with orders ().\n\n\n"
        'You are an agent. Your internal name is "desk". The description about you is '
        '"Front desk.".\n\n\nYou have a list of other agents to transfer to:'
    )
    assert first.system_instruction.endswith(examples)
    assert "Agent name: refunds\nAgent description: Handles refunds." in (first.system_instruction)
    assert set(first.tools_dict) == {"lookup_order", "transfer_to_agent"}
    assert first.tools_dict["lookup_order"].declaration().description == (
        "Look up an order by its id."
    )
    import desk.callbacks  # type: ignore[import-not-found]

    assert desk.callbacks.SEEN == ["desk", "desk"]
