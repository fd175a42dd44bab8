"""Running an app's plugins: google-adk 2.13's order and early exit, failures named once.

Plugins run in the order the app lists them, before the agent's own callbacks. The first
plugin callback that returns something other than ``None`` wins: the plugins after it and the
agent's callbacks of that kind are skipped. A plugin callback that raises becomes one
``PluginError`` naming the plugin and the callback; the runner turns it into one error event
(``PLUGIN_ERROR``). ``on_agent_error_callback`` and ``on_run_error_callback`` are
notifications: every plugin hears them, and a plugin that fails there is only logged.

This module sits below the agents and the runner, which call it; ``yadk.apps.BasePlugin`` (above
them) marks its do-nothing callbacks with ``NOOP_MARK`` so a callback no plugin implements costs
nothing per call.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Sequence
from typing import Any

from yadk.errors import PluginError

__all__ = ["NOOP_MARK", "PLUGIN_CALLBACKS", "PluginManager", "plugin_manager_for"]

logger = logging.getLogger("yadk.plugins")

# Set on a BasePlugin callback that does nothing; such a callback is never called.
NOOP_MARK = "__yadk_plugin_noop__"

PLUGIN_CALLBACKS = (
    "on_user_message_callback",
    "before_run_callback",
    "on_event_callback",
    "after_run_callback",
    "before_agent_callback",
    "after_agent_callback",
    "before_model_callback",
    "after_model_callback",
    "on_model_error_callback",
    "before_tool_callback",
    "after_tool_callback",
    "on_tool_error_callback",
    "on_agent_error_callback",
    "on_run_error_callback",
)


class PluginManager:
    """The plugins of one app, with each callback's implementers found once."""

    __slots__ = ("_by_callback", "plugins")

    def __init__(self, plugins: Sequence[Any]) -> None:
        names: set[str] = set()
        for plugin in plugins:
            name = getattr(plugin, "name", None)
            if not isinstance(name, str) or not name:
                raise ValueError(
                    f"Plugin {plugin!r} has no name: a plugin passes name= to"
                    " BasePlugin.__init__ (super().__init__(name='my_plugin'))."
                )
            if name in names:
                raise ValueError(f"Plugin with name '{name}' already registered.")
            names.add(name)
        self.plugins = list(plugins)
        self._by_callback: dict[str, list[tuple[str, Any]]] = {
            callback: [
                (plugin.name, method)
                for plugin in self.plugins
                if (method := getattr(plugin, callback, None)) is not None
                and not getattr(method, NOOP_MARK, False)
            ]
            for callback in PLUGIN_CALLBACKS
        }

    def get_plugin(self, name: str) -> Any | None:
        return next((p for p in self.plugins if p.name == name), None)

    def implements(self, callback: str) -> bool:
        """Whether any plugin does something in ``callback``."""
        return bool(self._by_callback[callback])

    async def run(self, callback: str, **kwargs: Any) -> Any:
        """Call ``callback`` on each plugin in order; the first non-``None`` result wins."""
        for name, method in self._by_callback[callback]:
            try:
                result = method(**kwargs)
                if inspect.isawaitable(result):
                    result = await result
            except Exception as exc:
                raise PluginError(
                    f"Error in plugin '{name}' during '{callback}' callback:"
                    f" {type(exc).__name__}: {exc}",
                    plugin=name,
                    callback=callback,
                ) from exc
            if result is not None:
                return result
        return None

    async def notify(self, callback: str, **kwargs: Any) -> None:
        """Tell every plugin (an error notification); a plugin failing here is only logged."""
        for name, method in self._by_callback[callback]:
            try:
                result = method(**kwargs)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                logger.exception("plugin %r failed in %s", name, callback)

    async def close(self, *, timeout: float = 5.0) -> None:
        """Call each plugin's ``close()`` in order (each within ``timeout`` seconds); failures
        are logged, then reported together."""
        failed: list[str] = []
        for plugin in self.plugins:
            close = getattr(plugin, "close", None)
            if close is None or getattr(close, NOOP_MARK, False):
                continue
            try:
                async with asyncio.timeout(timeout):
                    result = close()
                    if inspect.isawaitable(result):
                        await result
            except Exception as exc:
                logger.warning("plugin %r failed to close", plugin.name, exc_info=exc)
                failed.append(f"'{plugin.name}': {type(exc).__name__}")
        if failed:
            raise RuntimeError(f"Failed to close plugins: {', '.join(failed)}")


def plugin_manager_for(app: Any) -> PluginManager | None:
    """The manager of ``app``'s plugins, or ``None`` when it has none (the runner and agents
    then skip every plugin hook at the cost of one ``is None`` test)."""
    plugins = getattr(app, "plugins", None) if app is not None else None
    return PluginManager(plugins) if plugins else None
