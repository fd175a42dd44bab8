"""RequestInput: what a node yields to ask the user something and wait for the answer."""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.alias_generators import to_camel

__all__ = ["REQUEST_INPUT_FUNCTION_CALL_NAME", "RequestInput"]

# The function call a waiting workflow shows the user, as google-adk 2 names it.
REQUEST_INPUT_FUNCTION_CALL_NAME = "adk_request_input"


class RequestInput(BaseModel):
    """A question for the user. The invocation ends waiting; the user's next message (or a
    function response to the ``adk_request_input`` call with this ``interrupt_id``) answers it."""

    model_config = ConfigDict(
        arbitrary_types_allowed=True, alias_generator=to_camel, populate_by_name=True
    )

    interrupt_id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    payload: Any = None
    message: str | None = None
    response_schema: Any = None

    def call_args(self) -> dict[str, Any]:
        """The ``adk_request_input`` call's arguments, as google-adk sends them."""
        schema = self.response_schema
        if isinstance(schema, type) and issubclass(schema, BaseModel):
            schema = schema.model_json_schema()
        elif schema is not None and not isinstance(schema, dict):
            schema = TypeAdapter(schema).json_schema()
        return {
            "interruptId": self.interrupt_id,
            "message": self.message,
            "payload": self.payload,
            "response_schema": schema,
        }
