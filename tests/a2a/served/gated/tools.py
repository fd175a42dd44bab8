"""The gated agent's tool: it returns once the test opens the gate, a byte sent on the socket
that ``YADK_TEST_GATE`` (host:port) names."""

import asyncio
import os


async def wait_for_gate() -> dict[str, str]:
    """Wait until the gate opens."""
    host, port = os.environ["YADK_TEST_GATE"].rsplit(":", 1)
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        opened = await reader.read(1)
    finally:
        writer.close()
    return {"gate": opened.decode()}
