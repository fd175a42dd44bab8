"""``GET /docs``: the routes of the OpenAPI document as one self-contained page.

FastAPI's own page loads Swagger UI from a CDN, which a machine without internet access (or a
browser that blocks third-party scripts) cannot reach; this page has no script and no outside
asset, so it works wherever the server does. ``/openapi.json`` stays the full document.
"""

from __future__ import annotations

from html import escape
from typing import Any

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

__all__ = ["add_docs_page"]

_METHODS = ("get", "post", "put", "patch", "delete")
_STYLE = (
    "body{font:14px system-ui,sans-serif;margin:2em;max-width:70em}"
    "table{border-collapse:collapse;width:100%}td,th{padding:.3em .6em;text-align:left;"
    "border-bottom:1px solid #ddd;vertical-align:top}code{font-size:13px}"
    ".m{font-weight:600;text-transform:uppercase}"
)


def add_docs_page(app: FastAPI) -> None:
    """Serve the offline page at ``/docs`` (the app must be built with ``docs_url=None``)."""

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return HTMLResponse(render(app.openapi()))


def render(document: dict[str, Any]) -> str:
    info = document.get("info", {})
    rows = []
    for path, operations in document.get("paths", {}).items():
        for method in _METHODS:
            operation = operations.get(method)
            if operation is None:
                continue
            summary = operation.get("summary") or operation.get("description", "")
            deprecated = " (deprecated)" if operation.get("deprecated") else ""
            rows.append(
                f'<tr><td class="m">{method}</td><td><code>{escape(path)}</code></td>'
                f"<td>{escape(summary)}{deprecated}</td></tr>"
            )
    title = escape(f"{info.get('title', 'API')} {info.get('version', '')}".strip())
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>"
        f"<style>{_STYLE}</style></head><body><h1>{title}</h1>"
        f"<p>{escape(info.get('description', ''))} The full OpenAPI document:"
        " <a href='openapi.json'>openapi.json</a> (load it into any OpenAPI viewer).</p>"
        f"<table><tr><th>method</th><th>path</th><th>what</th></tr>{''.join(rows)}</table>"
        "</body></html>"
    )
