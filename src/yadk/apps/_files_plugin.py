"""SaveFilesAsArtifactsPlugin: files a user sends inline are stored as artifacts and the
message names them instead of carrying their bytes."""

from __future__ import annotations

import copy
import logging
from typing import TYPE_CHECKING

from yadk.apps._plugin import BasePlugin
from yadk.types import Content, Part

if TYPE_CHECKING:
    from yadk.agents import BaseAgent, CallbackContext, InvocationContext

__all__ = ["SaveFilesAsArtifactsPlugin"]

logger = logging.getLogger("yadk.plugins")

MAX_INLINE_BYTES = 20 * 1024 * 1024  # google-adk's limit for one uploaded file


class SaveFilesAsArtifactsPlugin(BasePlugin):
    """Each ``inline_data`` part of a user's message is saved as an artifact named by its
    ``display_name`` (``artifact_<invocation>_<index>`` without one; a ``user:`` prefix keeps
    it across the user's sessions) and replaced by ``[Uploaded Artifact: "name"]``, so the
    model can load it (``load_artifacts``). The first agent's event records the new versions
    in ``artifact_delta``. A file over 20 MB is replaced by an upload error the model sees.

    ``attach_file_reference`` (google-adk) adds a ``file_data`` part when the artifact store
    gives a URI the model can fetch (``gs://``, ``https://``); yadk's stores (memory, files,
    PostgreSQL) have none, so only the placeholder is added.
    """

    def __init__(
        self, name: str = "save_files_as_artifacts_plugin", *, attach_file_reference: bool = True
    ) -> None:
        super().__init__(name)
        self.attach_file_reference = attach_file_reference
        # invocation id -> the artifact versions saved from its message, until an agent's
        # event records them.
        self._pending: dict[str, dict[str, int]] = {}

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: Content
    ) -> Content | None:
        service = invocation_context.artifact_service
        if service is None:
            logger.warning("SaveFilesAsArtifactsPlugin: no artifact service, files stay inline")
            return None
        parts: list[Part] = []
        saved: dict[str, int] = {}
        changed = False
        for index, part in enumerate(user_message.parts):
            blob = part.inline_data
            if blob is None:
                parts.append(part)
                continue
            filename = blob.display_name or f"artifact_{invocation_context.invocation_id}_{index}"
            size = len(blob.data or b"")
            changed = True
            if size > MAX_INLINE_BYTES:
                message = (
                    f"File {filename} ({size / 2**20:.2f} MB) exceeds the maximum supported"
                    f" size of {MAX_INLINE_BYTES // 2**20}MB. Please upload a smaller file."
                )
                logger.warning(message)
                parts.append(Part(text=f"[Upload Error: {message}]"))
                continue
            try:
                version = await service.save_artifact(
                    app_name=invocation_context.app_name,
                    user_id=invocation_context.user_id,
                    session_id=invocation_context.session.id,
                    filename=filename,
                    artifact=copy.copy(part),
                )
            except Exception as exc:
                logger.error("SaveFilesAsArtifactsPlugin: could not save %s: %s", filename, exc)
                parts.append(part)
                continue
            saved[filename] = version
            parts.append(Part(text=f'[Uploaded Artifact: "{filename}"]'))
        if not changed:
            return None
        if saved:
            self._pending.setdefault(invocation_context.invocation_id, {}).update(saved)
        return Content(role=user_message.role, parts=parts)

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> Content | None:
        saved = self._pending.pop(callback_context.invocation_id, None)
        if saved:
            callback_context.actions.artifact_delta.update(saved)
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        self._pending.pop(invocation_context.invocation_id, None)

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        self._pending.pop(invocation_context.invocation_id, None)
