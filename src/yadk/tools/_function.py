"""FunctionTool: a plain Python function as a tool, its declaration built from the signature."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from functools import cached_property
from typing import Any

import pydantic

from yadk._contexts import ToolContext
from yadk._tool_confirmation import required
from yadk.errors import AgentDefinitionError, ToolDeclarationError
from yadk.models import FunctionDeclaration
from yadk.tools._base import BaseTool

__all__ = ["FunctionTool"]

# Parameters the framework fills in; the model never sees them.
_CONTEXT_PARAM = "tool_context"


class FunctionTool(BaseTool):
    """Wraps ``func`` (sync or async). A ``tool_context`` parameter receives the ``ToolContext``.

    The description is the cleaned docstring; the parameters schema is the JSON Schema pydantic
    builds from the annotations and defaults. Arguments are validated and coerced before the call;
    validation errors and missing arguments go back to the model as ``{"error": ...}`` so it can
    retry, as in ADK.

    ``require_confirmation`` (google-adk's): ``True``, or a predicate taking the call's
    arguments (and ``tool_context`` if it names it) that says whether this call needs the user's
    confirmation; such a call runs only once the user approves it (see docs/tools.md).
    """

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        require_confirmation: bool | Callable[..., Any] = False,
    ) -> None:
        if not callable(func):
            raise AgentDefinitionError(f"FunctionTool needs a callable, got {func!r}.")
        self.func = func
        self.require_confirmation = require_confirmation
        tool_name = name or getattr(func, "__name__", "") or type(func).__name__
        super().__init__(
            name=tool_name,
            description=description
            if description is not None
            else inspect.cleandoc(getattr(func, "__doc__", None) or ""),
        )
        try:
            self._signature = inspect.signature(func)
        except (TypeError, ValueError) as exc:
            raise AgentDefinitionError(
                f"Cannot read the signature of tool {tool_name!r}: {exc}"
            ) from None
        hints = _type_hints(func)
        self._context_param: str | None = None
        self._params: dict[str, inspect.Parameter] = {}
        self._annotations: dict[str, Any] = {}
        for pname, param in self._signature.parameters.items():
            annotation = hints.get(pname, param.annotation)
            if pname == _CONTEXT_PARAM or annotation is ToolContext:
                self._context_param = pname
                continue
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            self._params[pname] = param
            self._annotations[pname] = annotation
        self._accepts_kwargs = any(
            p.kind is p.VAR_KEYWORD for p in self._signature.parameters.values()
        )
        # A callable object with an ``async def __call__`` counts as async too.
        call_method = None if inspect.isroutine(func) else type(func).__call__
        self._is_async = inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
            call_method
        )
        self._adapters: dict[str, pydantic.TypeAdapter[Any]] = {}

    @cached_property
    def _schema(self) -> dict[str, Any] | None:
        if not self._params:
            return None  # as google-adk: a function without parameters declares none
        fields: dict[str, Any] = {}
        for pname, param in self._params.items():
            annotation = self._annotations[pname]
            if annotation is inspect.Parameter.empty:
                annotation = Any
            default = ... if param.default is inspect.Parameter.empty else param.default
            fields[pname] = (annotation, default)
        try:
            model = pydantic.create_model(f"{self.name}Params", **fields)
            schema: dict[str, Any] = model.model_json_schema()
            return schema
        except Exception:  # an exotic annotation must not hide the tool
            raise self._declaration_error(fields) from None

    def _declaration_error(self, fields: dict[str, Any]) -> AgentDefinitionError:
        """Which parameter cannot become a schema, at the function's ``def`` line, without the
        schema library's advice (which is about its own models, not a tool's signature)."""
        code = getattr(self.func, "__code__", None)
        file = code.co_filename if code is not None else None
        line = code.co_firstlineno if code is not None else 0
        for pname, (annotation, _) in fields.items():
            try:
                pydantic.TypeAdapter(annotation).json_schema()
            except Exception:
                return ToolDeclarationError(
                    f"Tool `{self.name}`: parameter `{pname}` has type"
                    f" `{_type_name(annotation)}`, which cannot become a JSON schema for the"
                    " model.",
                    hint=f"Annotate `{pname}` with a JSON-compatible type (str, int, float, bool,"
                    " list, dict, an Enum, a dataclass or a pydantic model), or"
                    " read the value from tool_context.state instead of taking it from the"
                    " model.",
                    parameter=pname,
                    file=file,
                    line=line,
                )
        return AgentDefinitionError(
            f"Tool `{self.name}`: its parameters cannot become a JSON schema together; check"
            " that their names are valid identifiers and do not clash."
        )

    def check_declaration(self) -> None:
        """Build the declaration now (it is otherwise built at the first model call); raises
        ``ToolDeclarationError`` naming the parameter that cannot become a schema."""
        self.declaration()

    def declaration(self) -> FunctionDeclaration:
        return FunctionDeclaration(
            name=self.name, description=self.description, parameters=self._schema
        )

    @property
    def mandatory_args(self) -> list[str]:
        return [n for n, p in self._params.items() if p.default is inspect.Parameter.empty]

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        call_args, errors = self._coerce(args)
        if errors:
            listed = "\n".join(errors)
            return {
                "error": f"Invoking `{self.name}()` failed due to argument validation errors:\n"
                f"{listed}\nYou could retry calling this tool with corrected argument types."
            }
        missing = [n for n in self.mandatory_args if n not in call_args]
        if missing:
            listed = "\n".join(missing)
            return {
                "error": f"Invoking `{self.name}()` failed as the following mandatory input"
                f" parameters are not present:\n{listed}\nYou could retry calling this tool,"
                " but it is IMPORTANT for you to provide all the mandatory parameters."
            }
        if self._context_param is not None:
            call_args[self._context_param] = tool_context
        result = self.func(**call_args)
        if self._is_async or inspect.isawaitable(result):
            result = await result
        return result

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        call_args, _ = self._coerce(args) if callable(self.require_confirmation) else ({}, [])
        names = {_CONTEXT_PARAM, self._context_param or _CONTEXT_PARAM}
        return await required(self.require_confirmation, call_args, tool_context, names)

    def _coerce(self, args: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        converted: dict[str, Any] = {}
        errors: list[str] = []
        for key, value in args.items():
            if key not in self._params:
                if self._accepts_kwargs:
                    converted[key] = value
                continue
            annotation = self._annotations[key]
            if annotation is inspect.Parameter.empty or annotation is Any:
                converted[key] = value
                continue
            try:
                adapter = self._adapters.get(key)
                if adapter is None:
                    adapter = self._adapters[key] = pydantic.TypeAdapter(annotation)
                converted[key] = adapter.validate_python(value)
            except pydantic.ValidationError as exc:
                type_name = getattr(annotation, "__name__", annotation)
                errors.append(
                    f"Parameter '{key}': expected type '{type_name}', validation error: {exc}"
                )
            except Exception:  # an annotation pydantic cannot handle: pass the raw value
                converted[key] = value
        return converted, errors


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        module = annotation.__module__
        return (
            annotation.__qualname__
            if module == "builtins"
            else f"{module}.{annotation.__qualname__}"
        )
    if inspect.isroutine(annotation):  # a factory function such as threading.Lock
        return f"{annotation.__module__ or 'builtins'}.{annotation.__qualname__}"
    return str(annotation).replace("typing.", "")


def _type_hints(func: Callable[..., Any]) -> dict[str, Any]:
    target = func if inspect.isfunction(func) or inspect.ismethod(func) else type(func).__call__
    try:
        return typing.get_type_hints(target)
    except Exception:
        return {}
