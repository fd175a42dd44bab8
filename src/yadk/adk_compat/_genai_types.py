"""google-genai types the import shim serves that yadk has no equivalent of.

Kept apart from the shim's table so that reading the table (``yadk validate`` checks a tool
module's google-adk imports against it) does not import pydantic.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["GenerateContentConfig"]


class GenerateContentConfig(BaseModel):
    """google-genai's ``GenerateContentConfig``, as a plain settings object: yadk passes
    ``generate_content_config`` to its backends as a mapping (temperature, top_p, ...)."""

    model_config = ConfigDict(extra="allow")
