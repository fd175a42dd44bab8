"""The context a workflow node receives as ``ctx``: state, its run path, its attempt, the
answers to its questions, and ``run_node`` for nodes scheduled at run time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from yadk._contexts import Context, InvocationContext
from yadk.events import EventActions
from yadk.workflow._schemas import SchemaState

if TYPE_CHECKING:
    from pydantic import BaseModel

    from yadk.workflow._runtime import Runtime

__all__ = ["NodeContext"]


class NodeContext(Context):
    """A ``Context`` for one run of one node. State writes ride on the node's next event."""

    __slots__ = (
        "_attempt_count",
        "_author",
        "_node_input",
        "_node_path",
        "_output_claimed",
        "_output_for",
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
        output_for: list[str] | None = None,
        node_input: Any = None,
    ) -> None:
        super().__init__(invocation_context, event_actions=EventActions())
        # The runs this node's output is the output of (its own path first), and whether a
        # child run with ``use_as_output`` has given it its output.
        self._output_for = output_for if output_for is not None else [node_path]
        self._output_claimed = False
        self._node_input = node_input
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
    def output_for(self) -> list[str]:
        """The runs this node's output is the output of: its own path, then the enclosing
        workflows' it ends."""
        return self._output_for

    @property
    def node_input(self) -> Any:
        """The input this run received."""
        return self._node_input

    def parent_inputs(self) -> dict[str, Any]:
        """The inputs of the runs that started this one with ``run_node`` (by run path)."""
        return self._runtime.parent_inputs(self._node_path)

    @property
    def output_claimed(self) -> bool:
        """Whether a child run with ``use_as_output`` has given this node its output."""
        return self._output_claimed

    def claim_output(self) -> None:
        self._output_claimed = True

    @property
    def attempt_count(self) -> int:
        """1 for the first run, 2 for the first retry, ..."""
        return self._attempt_count

    @property
    def state_schema(self) -> type[BaseModel] | None:
        """The model state writes are checked against (the node's, else its workflow's)."""
        return self._state_schema

    def _checked_state(self, actions: EventActions) -> Any:
        assert self._state_schema is not None
        return SchemaState(
            self._invocation_context.session.state, actions.state_delta, schema=self._state_schema
        )

    @property
    def resume_inputs(self) -> dict[str, Any]:
        """The user's answers to this node's ``RequestInput``s, by interrupt id (a node with
        ``rerun_on_resume`` reads them when it runs again)."""
        return self._resume_inputs

    async def run_node(
        self,
        node: Any,
        node_input: Any = None,
        *,
        use_as_output: bool = False,
        run_id: str | None = None,
        use_sub_branch: bool = False,
        override_branch: str | None = None,
        override_isolation_scope: str | None = None,
        raise_on_wait: bool = False,
    ) -> Any:
        """Run ``node`` (a node, function, agent or workflow) now, as a child of this node, and
        return its output; its events carry the path ``<this node's path>/<name>@<n>``
        (``@<run_id>`` when given).

        ``use_as_output``: the child's output is this node's output (this node's own output
        event is left out). ``use_sub_branch``: the child runs on the branch
        ``<branch>.<name>@<n>``, so agents in it see only their own conversation there;
        ``override_branch`` names the branch outright. ``override_isolation_scope``: the
        child's events (and its children's) carry that scope, and agents in it see only that
        scope's events, opening on their task (yadk.agents' contents rules). A child that asks the user a question raises
        ``NodeInterruptedError`` through this node, which then waits too and runs again on the
        answer (children that completed return their recorded outputs then).
        ``raise_on_wait``: a child workflow (or ``wait_for_output`` node) that ends without an
        output raises ``NodeInterruptedError`` too, ending this node's run there, instead of
        returning None."""
        return await self._runtime.run_dynamic(
            self,
            node,
            node_input,
            use_as_output=use_as_output,
            run_id=run_id,
            use_sub_branch=use_sub_branch,
            override_branch=override_branch,
            override_isolation_scope=override_isolation_scope,
            raise_on_wait=raise_on_wait,
        )

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
