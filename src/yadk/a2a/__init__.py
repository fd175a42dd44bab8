"""The Agent2Agent (A2A) protocol: yadk's parts in both protocol versions' shapes (the server in
``yadk.serve`` and the remote-agent client share one conversion)."""

from __future__ import annotations

__all__: list[str] = []
