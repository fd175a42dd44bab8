"""Images made by the model's code execution are saved as artifacts, as google-adk does."""

from __future__ import annotations

import datetime

from yadk._contexts import InvocationContext
from yadk.errors import ModelError
from yadk.events import Event
from yadk.types import Part

__all__ = ["save_generated_images"]


async def save_generated_images(ctx: InvocationContext, model_event: Event) -> Event | None:
    """Saves each image part of ``model_event`` as an artifact (named by its ``display_name``,
    else a local timestamp and the image type) and puts ``Saved as artifact: NAME. `` in its place.

    Returns the event that records the new artifact versions, to be stored before the model's
    event; ``None`` when there were no images (google-adk stores an empty event then too).
    """
    content = model_event.content
    if content is None:
        return None
    saved = Event(invocation_id=ctx.invocation_id, author=model_event.author, branch=ctx.branch)
    for index, part in enumerate(content.parts):
        blob = part.inline_data
        if blob is None or not (blob.mime_type or "").startswith("image/"):
            continue
        if ctx.artifact_service is None:
            raise ModelError(
                "The model's code execution made an image, but the runner has no artifact"
                " service to save it in; give the Runner an artifact_service."
            )
        name = blob.display_name or _timestamped(blob.mime_type or "image")
        version = await ctx.artifact_service.save_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename=name,
            artifact=Part.from_bytes(data=blob.data or b"", mime_type=blob.mime_type or ""),
        )
        saved.actions.artifact_delta[name] = version
        content.parts[index] = Part(text=f"Saved as artifact: {name}. ")
    return saved if saved.actions.artifact_delta else None


def _timestamped(mime_type: str) -> str:
    now = datetime.datetime.now().astimezone()
    return f"{now.strftime('%Y%m%d_%H%M%S')}.{mime_type.split('/')[-1]}"
