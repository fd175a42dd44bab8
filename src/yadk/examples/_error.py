"""The error of malformed example data (its own module: raising it needs no pydantic)."""

from __future__ import annotations

from yadk.errors import ExampleError

__all__ = ["ExampleValidationError"]


class ExampleValidationError(ExampleError):
    """An example (given as data) is malformed.

    ``index`` is the position of the bad example in its list and ``loc`` the key path inside it
    (``("output", 0, "parts", 0, "text")``), so a config loader can point at the YAML line;
    ``path`` and ``line`` are set when the examples came from a file.
    """

    def __init__(
        self,
        message: str,
        *,
        index: int | None = None,
        loc: tuple[str | int, ...] = (),
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.index = index
        self.loc = loc
        self.path = path
        self.line = line
        self.column = column
