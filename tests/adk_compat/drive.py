"""Runs an agent folder's ``root_agent`` the way google-adk's docs write a run loop, and returns
what happened. Written against google-adk's API only: the recorder runs it in google-adk 2.13
(record_adk.py), the test runs it in yadk through the compatibility shim (test_behaviour.py).

``script`` holds ``invocations``: each a user ``message``, or a ``function_response`` answering
the last long-running call of that name; ``state`` seeds the session.
"""

from google.adk.runners import InMemoryRunner
from google.genai import types


def dump(content):
    if content is None:
        return None
    to_dict = getattr(content, "to_dict", None)  # yadk's Content
    return to_dict() if to_dict else content.model_dump(exclude_none=True, mode="json")


def event_shape(event):
    actions = event.actions
    return {
        "author": event.author,
        "content": dump(event.content),
        "final": event.is_final_response(),
        "long_running": sorted(event.long_running_tool_ids or ()) != [],
        "state_delta": dict(actions.state_delta),
        "artifact_delta": dict(actions.artifact_delta),
        "transfer_to_agent": actions.transfer_to_agent,
        "escalate": bool(actions.escalate),
    }


async def drive(root_agent, script):
    runner = InMemoryRunner(agent=root_agent, app_name="app")
    session = await runner.session_service.create_session(
        app_name="app", user_id="u", state=script.get("state", {})
    )
    events = []
    pending = {}
    for invocation in script["invocations"]:
        if "message" in invocation:
            part = types.Part(text=invocation["message"])
        else:
            answer = invocation["function_response"]
            part = types.Part(
                function_response=types.FunctionResponse(
                    id=pending[answer["name"]], name=answer["name"], response=answer["response"]
                )
            )
        message = types.Content(role="user", parts=[part])
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message
        ):
            for call in event.get_function_calls():
                if call.id in (event.long_running_tool_ids or set()):
                    pending[call.name] = call.id
            events.append(event_shape(event))
    stored = await runner.session_service.get_session(
        app_name="app", user_id="u", session_id=session.id
    )
    artifacts = await runner.artifact_service.list_artifact_keys(
        app_name="app", user_id="u", session_id=session.id
    )
    await runner.close()
    state = {k: v for k, v in stored.state.items() if not k.startswith("temp:")}
    return {"events": events, "state": state, "artifacts": sorted(artifacts)}
