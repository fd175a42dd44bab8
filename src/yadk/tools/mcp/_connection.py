"""One live connection to an MCP server, owned by a background task.

The ``mcp`` SDK's transports are anyio context managers that must be entered and left by the same
task, so a private task opens the transport and the client session, publishes the session, and
waits to be told to close. Every caller uses the published session. The connection starts at first
use and is reused; after a call times out or the transport dies it is torn down (the subprocess is
terminated) and the next use starts a fresh one. If the event loop goes away (Ctrl-C ends
``asyncio.run``), the loop cancels the owner task and the SDK's shielded shutdown stops the server.

The ``mcp`` SDK (the ``mcp`` extra) and each transport are imported only when a connection is
opened, so a config naming an MCPToolset loads and validates without it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import subprocess
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from yadk._secrets import mask_secrets, mask_url
from yadk.errors import ToolErrorType, ToolExecutionError
from yadk.tools.mcp._params import (
    ConnectionParams,
    SseConnectionParams,
    StdioConnectionParams,
    StdioServerParameters,
    StreamableHTTPConnectionParams,
)

__all__ = ["McpConnection", "import_mcp"]

logger = logging.getLogger("yadk.tools.mcp")

T = TypeVar("T")

_CLOSE_GRACE_SECONDS = 10.0


def import_mcp() -> Any:
    """The ``mcp`` package, or a clear error saying how to install it."""
    try:
        import mcp
    except ImportError:
        raise ToolExecutionError(
            "MCPToolset needs the `mcp` package: pip install 'yadk[mcp]'.",
            error_type=ToolErrorType.INTERNAL_ERROR,
        ) from None
    return mcp


class McpConnection:
    """A lazily started, reused, restartable client session to one MCP server."""

    def __init__(
        self,
        params: ConnectionParams,
        *,
        on_notification: Callable[[Any], None] | None = None,
        errlog: Any = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.params = params
        # Sent with every HTTP request, over the connection params' own ``headers`` (auth and
        # header-provider headers); a stdio server has no headers to carry them.
        self.headers = dict(headers or {})
        self._on_notification = on_notification
        self._errlog = errlog
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closing: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self.starts = 0

    @property
    def connect_timeout(self) -> float:
        return self.params.timeout if not isinstance(self.params, StdioServerParameters) else 5.0

    @property
    def call_timeout(self) -> float:
        """Seconds one request may take: google-adk's read timeout for the transport."""
        if isinstance(self.params, (SseConnectionParams, StreamableHTTPConnectionParams)):
            return self.params.sse_read_timeout
        return self.connect_timeout

    @property
    def is_open(self) -> bool:
        return self._session is not None and self._task is not None and not self._task.done()

    async def request(
        self, send: Callable[[Any], Awaitable[T]], *, timeout: float | None = None, what: str
    ) -> T:
        """``send(session)`` on the live session, within ``timeout`` seconds (the call timeout).

        A timeout or a broken transport tears the connection down (so a hung server is stopped)
        and raises ``ToolExecutionError``; the next request reconnects. An error the server
        answers with (a JSON-RPC error) leaves the connection open.
        """
        mcp = import_mcp()
        session = await self._session_for_request()
        limit = self.call_timeout if timeout is None else timeout
        try:
            async with asyncio.timeout(limit):
                return await send(session)
        except TimeoutError:
            await self.close()
            raise ToolExecutionError(
                f"MCP server {self.describe()} did not answer {what} within {limit:g} s; it was"
                " stopped and will be restarted on the next call.",
                error_type=ToolErrorType.TIMEOUT,
            ) from None
        except mcp.MCPError as exc:
            if exc.code == _connection_closed_code() or not self.is_open:
                await self.close()
                raise ToolExecutionError(
                    f"MCP server {self.describe()} closed the connection during {what}"
                    f" ({exc.message}); it will be restarted on the next call.",
                    error_type=ToolErrorType.INTERNAL_ERROR,
                ) from None
            raise
        except Exception as exc:
            if not isinstance(exc, (OSError, *_anyio_closed_errors())):
                raise
            await self.close()
            raise ToolExecutionError(
                f"MCP server {self.describe()} failed during {what}:"
                f" {type(exc).__name__}: {exc}; it will be restarted on the next call.",
                error_type=ToolErrorType.INTERNAL_ERROR,
            ) from None

    async def _session_for_request(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            # A new event loop (a second asyncio.run): the old one took its task with it.
            self._reset_state(loop)
        assert self._lock is not None
        async with self._lock:
            if not self.is_open:
                await self._start()
            return self._session

    def _reset_state(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = asyncio.Lock()
        self._session = None
        self._task = None
        self._closing = None

    async def _start(self) -> None:
        if self._task is not None:
            await self._stop_task()
        ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._closing = asyncio.Event()
        self._task = asyncio.get_running_loop().create_task(
            self._own(ready, self._closing), name=f"mcp:{self.describe()}"
        )
        self.starts += 1
        try:
            async with asyncio.timeout(self.connect_timeout):
                self._session = await asyncio.shield(ready)
        except TimeoutError:
            await self._stop_task()
            raise ToolExecutionError(
                f"MCP server {self.describe()} did not start within {self.connect_timeout:g} s.",
                error_type=ToolErrorType.TIMEOUT,
            ) from None
        except ToolExecutionError:
            await self._stop_task()
            raise

    async def _own(self, ready: asyncio.Future[Any], closing: asyncio.Event) -> None:
        mcp = import_mcp()
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(
                    mcp.ClientSession(read, write, message_handler=self._handle_message)
                )
                await session.initialize()
                if not ready.done():
                    ready.set_result(session)
                await closing.wait()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            logger.debug("MCP connection %s ended: %r", self.describe(), exc)
            if not ready.done():
                ready.set_exception(
                    ToolExecutionError(
                        f"Could not start MCP server {self.describe()}: {_explain(exc)}",
                        error_type=ToolErrorType.INTERNAL_ERROR,
                    )
                )
        finally:
            self._session = None
            if not ready.done():
                ready.cancel()

    def _transport(self) -> contextlib.AbstractAsyncContextManager[Any]:
        params = self.params
        if isinstance(params, StdioConnectionParams):
            params = params.server_params
        if isinstance(params, StdioServerParameters):
            from mcp.client.stdio import StdioServerParameters as SdkParameters
            from mcp.client.stdio import stdio_client

            sdk_params = SdkParameters(
                command=params.command, args=params.args, env=params.env, cwd=params.cwd
            )
            return stdio_client(sdk_params, errlog=self._errlog or _stderr())
        if isinstance(params, SseConnectionParams):
            from mcp.client.sse import sse_client

            return sse_client(
                params.url,
                headers=self._http_headers(params.headers),
                timeout=params.timeout,
                sse_read_timeout=params.sse_read_timeout,
            )
        return _streamable_http(params, self._http_headers(params.headers))

    def _http_headers(self, own: dict[str, Any] | None) -> dict[str, Any]:
        names = {name.lower() for name in self.headers}
        merged = {k: v for k, v in (own or {}).items() if k.lower() not in names}
        merged.update(self.headers)
        return merged

    async def _handle_message(self, message: Any) -> None:
        if isinstance(message, Exception):
            logger.debug("MCP server %s sent an error: %r", self.describe(), message)
        elif self._on_notification is not None:
            self._on_notification(message)

    async def close(self) -> None:
        """Stop the server (or end the HTTP session); safe to call twice, or when never started."""
        if self._loop is not None and self._loop is not _running_loop():
            self._session = None
            self._task = None
            return
        await self._stop_task()

    async def _stop_task(self) -> None:
        task, self._task = self._task, None
        self._session = None
        if task is None:
            return
        if self._closing is not None:
            self._closing.set()
        if task.done():
            with contextlib.suppress(BaseException):
                task.result()
            return
        try:
            async with asyncio.timeout(_CLOSE_GRACE_SECONDS):
                await asyncio.shield(task)
        except TimeoutError:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        except Exception as exc:
            logger.debug("closing MCP connection %s: %r", self.describe(), exc)

    def describe(self) -> str:
        params = self.params
        if isinstance(params, StdioConnectionParams):
            params = params.server_params
        if isinstance(params, StdioServerParameters):
            return mask_secrets("`" + " ".join([params.command, *params.args]) + "`")
        return mask_url(params.url)  # what describes the server is printed: no secrets


def _stderr() -> Any:
    """Where a stdio server's stderr goes: ours, when it is a real file (a replaced
    ``sys.stderr``, as under test capture, has no descriptor to hand to a subprocess)."""
    try:
        sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        return subprocess.DEVNULL
    return sys.stderr


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@contextlib.asynccontextmanager
async def _streamable_http(params: StreamableHTTPConnectionParams, headers: dict[str, Any]) -> Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    timeout = httpx2.Timeout(params.timeout, read=params.sse_read_timeout)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as client,
        streamable_http_client(
            params.url, http_client=client, terminate_on_close=params.terminate_on_close
        ) as streams,
    ):
        yield streams[0], streams[1]


def _connection_closed_code() -> int:
    import mcp_types

    code: int = mcp_types.CONNECTION_CLOSED
    return code


def _anyio_closed_errors() -> tuple[type[BaseException], ...]:
    import anyio

    return (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)


def _explain(exc: BaseException) -> str:
    """The innermost useful message of an (exception-group wrapped) failure."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found ({exc.filename or exc})"
    return mask_secrets(f"{type(exc).__name__}: {exc}")
