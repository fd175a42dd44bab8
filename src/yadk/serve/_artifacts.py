"""Artifact routes of google-adk's api_server: save, list, load (latest or a version),
versions, version metadata, delete.

Artifact names may hold ``/`` (``{artifact_name:path}``); they are keys for the artifact
service, which confines them (never a path on this server's disk by themselves).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from yadk.errors import ArtifactError
from yadk.serve._json import json_response
from yadk.serve._problems import Problem
from yadk.serve._served import Served
from yadk.serve._wire import SaveArtifactRequest, content_json
from yadk.types import Part

__all__ = ["artifact_routes"]

BASE = "/apps/{app_name}/users/{user_id}/sessions/{session_id}/artifacts"
ONE = BASE + "/{artifact_name:path}"


def artifact_routes(served: Served) -> APIRouter:
    router = APIRouter(tags=["artifacts"])

    def where(app_name: str, user_id: str, session_id: str) -> dict[str, str]:
        served.app(app_name)
        return {"app_name": app_name, "user_id": user_id, "session_id": session_id}

    async def versions(app_name: str, user_id: str, session_id: str, name: str) -> list[int]:
        try:
            return await served.artifacts.list_versions(
                **where(app_name, user_id, session_id), filename=name
            )
        except ArtifactError as exc:
            raise Problem(400, exc.message) from None

    async def load(
        app_name: str, user_id: str, session_id: str, name: str, version: int | None
    ) -> Part:
        try:
            part = await served.artifacts.load_artifact(
                **where(app_name, user_id, session_id), filename=name, version=version
            )
        except ArtifactError as exc:
            raise Problem(400, exc.message) from None
        if part is None:
            raise Problem(404, "Artifact not found")
        return part

    async def metadata(
        app_name: str, user_id: str, session_id: str, name: str, version: int
    ) -> dict[str, Any]:
        part = await load(app_name, user_id, session_id, name, version)
        data: dict[str, Any] = {
            "canonicalUri": (
                f"artifact://apps/{app_name}/users/{user_id}/sessions/{session_id}"
                f"/artifacts/{name}/versions/{version}"
            ),
            "customMetadata": {},
            "version": version,
        }
        if part.inline_data is not None and part.inline_data.mime_type:
            data["mimeType"] = part.inline_data.mime_type
        return data

    def version_number(version_id: str) -> int | None:
        if version_id == "latest":
            return None
        try:
            return int(version_id)
        except ValueError:
            raise Problem(422, "Invalid version ID") from None

    @router.get(ONE + "/versions/{version_id}/metadata")
    async def get_artifact_version_metadata(
        app_name: str, user_id: str, session_id: str, artifact_name: str, version_id: str
    ) -> Response:
        number = version_number(version_id)
        if number is None:
            found = await versions(app_name, user_id, session_id, artifact_name)
            if not found:
                raise Problem(404, "Artifact version not found")
            number = found[-1]
        try:
            data = await metadata(app_name, user_id, session_id, artifact_name, number)
        except Problem as problem:
            if problem.status == 404:
                raise Problem(404, "Artifact version not found") from None
            raise
        return json_response(data)

    @router.get(ONE + "/versions/metadata")
    async def list_artifact_versions_metadata(
        app_name: str, user_id: str, session_id: str, artifact_name: str
    ) -> Response:
        found = await versions(app_name, user_id, session_id, artifact_name)
        return json_response(
            [await metadata(app_name, user_id, session_id, artifact_name, v) for v in found]
        )

    @router.post(BASE)
    async def save_artifact(
        app_name: str, user_id: str, session_id: str, req: SaveArtifactRequest
    ) -> Response:
        try:
            version = await served.artifacts.save_artifact(
                **where(app_name, user_id, session_id), filename=req.filename, artifact=req.artifact
            )
        except ArtifactError as exc:
            raise Problem(400, exc.message) from None
        return json_response(await metadata(app_name, user_id, session_id, req.filename, version))

    @router.get(ONE + "/versions/{version_id}")
    async def load_artifact_version(
        app_name: str, user_id: str, session_id: str, artifact_name: str, version_id: str
    ) -> Response:
        number = version_number(version_id)
        part = await load(app_name, user_id, session_id, artifact_name, number)
        return json_response(content_json(part))

    @router.get(BASE)
    async def list_artifact_names(app_name: str, user_id: str, session_id: str) -> Response:
        names = await served.artifacts.list_artifact_keys(**where(app_name, user_id, session_id))
        return json_response(names)

    @router.get(ONE + "/versions")
    async def list_artifact_versions(
        app_name: str, user_id: str, session_id: str, artifact_name: str
    ) -> Response:
        return json_response(await versions(app_name, user_id, session_id, artifact_name))

    # After the /versions routes: a name may hold "/", so this one would match them too.
    @router.get(ONE)
    async def load_artifact(
        app_name: str,
        user_id: str,
        session_id: str,
        artifact_name: str,
        version: int | None = Query(None, ge=0),
    ) -> Response:
        part = await load(app_name, user_id, session_id, artifact_name, version)
        return json_response(content_json(part))

    @router.delete(ONE)
    async def delete_artifact(
        app_name: str, user_id: str, session_id: str, artifact_name: str
    ) -> Response:
        try:
            await served.artifacts.delete_artifact(
                **where(app_name, user_id, session_id), filename=artifact_name
            )
        except ArtifactError as exc:
            raise Problem(400, exc.message) from None
        return json_response(None)

    return router
