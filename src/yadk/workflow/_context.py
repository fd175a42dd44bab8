"""The context a workflow node receives as ``ctx``: state, its run path, its attempt, the
answers to its questions, and ``run_node`` for nodes scheduled at run time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from yadk._contexts import Context, InvocationContext
from yadk.events import EventActions

if TYPE_CHECKING:
    from pydantic import BaseModel

    from yadk.workflow._runtime import Runtime

__all__ = ["NodeContext"]


class NodeContext(Context):
    """A ``Context`` for one run of one node. State writes ride on the node's next event."""

    __slots__ = (
        "_attempt_count",
        "_author",
        "_node_path",
        "_resume_inputs",
        "_runtime",
        "_state_schema",
    )

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        runtime: Runtime,
        node_path: str,
        author: str,
        attempt_count: int = 1,
        resume_inputs: Mapping[str, Any] | None = None,
        state_schema: type[BaseModel] | None = None,
    ) -> None:
        super().__init__(invocation_context, event_actions=EventActions())
        self._state_schema = state_schema
        if state_schema is not None:
            self._state = self._checked_state(self._event_actions)
        self._runtime = runtime
        self._node_path = node_path
        self._author = author
        self._attempt_count = attempt_count
        self._resume_inputs = dict(resume_inputs or {})

    @property
    def node_path(self) -> str:
        """This run's path, ``flow@1/writer@2``."""
        return self._node_path

    @property
    def author(self) -> str:
        """Who this node's events are from: the workflow that runs it."""
        return self._author

    @property
    def attempt_count(self) -> int:
        """1 for the first run, 2 for the first retry, ..."""
        return self._attempt_count

    @property
    def state_schema(self) -> type[BaseModel] | None:
        """The model state writes are checked against (the node's, else its workflow's)."""
        return self._state_schema

    def _checked_state(self, actions: EventActions) -> Any:
        from yadk.workflow._schemas import SchemaState

        assert self._state_schema is not None
        return SchemaState(
            self._invocation_context.session.state, actions.state_delta, schema=self._state_schema
        )

    @property
    def resume_inputs(self) -> dict[str, Any]:
        """The user's answers to this node's ``RequestInput``s, by interrupt id (a node with
        ``rerun_on_resume`` reads them when it runs again)."""
        return self._resume_inputs

    async def run_node(self, node: Any, node_input: Any = None) -> Any:
        """Run ``node`` (a node, function or agent) now, as a child of this node, and return its
        output; its events carry the path ``<this node's path>/<name>@<n>``."""
        return await self._runtime.run_dynamic(self, node, node_input)

    def take_actions(self) -> EventActions:
        """The state and artifact changes made since the last event, handed to the next one."""
        actions = self._event_actions
        if actions.is_empty():
            return actions
        fresh = EventActions()
        self._event_actions = fresh
        if self._state_schema is not None:
            self._state = self._checked_state(fresh)
        else:
            self._state = type(self._state)(
                self._invocation_context.session.state, fresh.state_delta
            )
        return actions
