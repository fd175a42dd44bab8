"""A skill's files (references/, assets/, scripts/): held in memory, or read from its folder
only when asked for, with a size cap and without ever leaving the skill folder.

Reading lazily keeps ``load_skill_from_dir`` cheap for skills with many resources and means an
edited resource is seen on the next read. Every path is confined twice: lexically (no absolute
paths, no ``..``) and after resolving symlinks (the real file must lie inside the real skill
folder), so a symlink cannot smuggle ``/etc/passwd`` into the model's context.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Final, Literal

from pydantic import BaseModel, Field, PrivateAttr

from yadk._files import FileProblem, read_bytes
from yadk.errors import SkillError

__all__ = [
    "DEFAULT_MAX_RESOURCE_BYTES",
    "ResourceKind",
    "ResourceTooLargeError",
    "Resources",
    "Script",
    "normalize_resource_path",
]

DEFAULT_MAX_RESOURCE_BYTES: Final = 1024 * 1024
RESOURCE_KINDS: Final = ("references", "assets", "scripts")
ResourceKind = Literal["references", "assets", "scripts"]


class ResourceTooLargeError(SkillError):
    """A resource file is larger than the cap it is read with."""

    def __init__(self, path: str, size: int, limit: int) -> None:
        super().__init__(f"Resource '{path}' is {size} bytes, over the limit of {limit} bytes.")
        self.size = size
        self.limit = limit


class Script(BaseModel):
    """The source of a skill script."""

    src: str

    def __str__(self) -> str:
        return self.src


def normalize_resource_path(path: str) -> str | None:
    """``path`` as a clean relative POSIX path, or ``None`` if it could point outside."""
    if "\x00" in path or any("\ud800" <= c <= "\udfff" for c in path):
        return None  # no file name holds a NUL byte or a lone surrogate
    posix = path.replace("\\", "/")
    pure = PurePosixPath(posix)
    normalized = pure.as_posix()
    if (
        not posix
        or normalized == "."
        or pure.is_absolute()
        or ".." in pure.parts
        or PureWindowsPath(path).drive
        or PureWindowsPath(path).is_absolute()
    ):
        return None
    return normalized


def _inside(real: str, root: str) -> bool:
    return real.startswith(root + os.sep) and real != root


class Resources(BaseModel):
    """L3 skill content: references, assets and scripts, addressed by path within their folder
    (``get_reference("guide.md")`` is ``references/guide.md``).

    Entries given in memory win over files; a skill loaded from a folder has none in memory and
    reads its files on demand.
    """

    references: dict[str, str | bytes] = Field(default_factory=dict)
    assets: dict[str, str | bytes] = Field(default_factory=dict)
    scripts: dict[str, Script] = Field(default_factory=dict)

    _root: str | None = PrivateAttr(default=None)

    @classmethod
    def from_dir(cls, skill_dir: str | os.PathLike[str]) -> Resources:
        """Resources read lazily from ``skill_dir``'s references/, assets/ and scripts/."""
        resources = cls()
        resources._root = os.path.realpath(skill_dir)
        return resources

    @property
    def root(self) -> Path | None:
        """The (resolved) skill folder the files are read from, if any."""
        return None if self._root is None else Path(self._root)

    # -- ADK-compatible accessors ------------------------------------------------------------

    def get_reference(self, reference_id: str) -> str | bytes | None:
        return self.read("references", reference_id)

    def get_asset(self, asset_id: str) -> str | bytes | None:
        return self.read("assets", asset_id)

    def get_script(self, script_id: str) -> Script | None:
        if script_id in self.scripts:
            return self.scripts[script_id]
        content = self.read("scripts", script_id)
        if content is None or isinstance(content, bytes):
            return None
        return Script(src=content)

    def list_references(self) -> list[str]:
        return self.list_files("references")

    def list_assets(self) -> list[str]:
        return self.list_files("assets")

    def list_scripts(self) -> list[str]:
        return self.list_files("scripts")

    # -- the general forms -------------------------------------------------------------------

    def list_files(self, kind: ResourceKind) -> list[str]:
        """Every file of one kind, as paths relative to its folder, sorted."""
        names = set(self._memory(kind))
        if self._root is not None:
            names.update(self._scan(kind))
        return sorted(names)

    def read(
        self, kind: ResourceKind, name: str, *, max_bytes: int = DEFAULT_MAX_RESOURCE_BYTES
    ) -> str | bytes | None:
        """A file's text (UTF-8) or bytes, ``None`` if there is no such file inside the skill.

        Raises ``ResourceTooLargeError`` for a file over ``max_bytes``.
        """
        memory = self._memory(kind)
        if name in memory:
            value = memory[name]
            return value.src if isinstance(value, Script) else value
        path = self.path_of(kind, name)
        if path is None:
            return None
        size = os.path.getsize(path)
        if size > max_bytes:
            raise ResourceTooLargeError(f"{kind}/{name}", size, max_bytes)
        try:
            data = read_bytes(path, kind="resource", root=self._root, limit=max_bytes)
        except FileProblem as problem:
            if problem.rule == "file-too-large":  # the file grew between stat and read
                raise ResourceTooLargeError(f"{kind}/{name}", max_bytes + 1, max_bytes) from None
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data

    def path_of(self, kind: ResourceKind, name: str) -> str | None:
        """The real path of a file inside the skill folder, or ``None`` (missing or escaping)."""
        if self._root is None:
            return None
        relative = normalize_resource_path(name)
        if relative is None:
            return None
        real = os.path.realpath(os.path.join(self._root, kind, relative))
        if not _inside(real, self._root) or not os.path.isfile(real):
            return None
        return real

    def _memory(self, kind: ResourceKind) -> dict[str, str | bytes] | dict[str, Script]:
        if kind == "references":
            return self.references
        if kind == "assets":
            return self.assets
        return self.scripts

    def _scan(self, kind: ResourceKind) -> list[str]:
        assert self._root is not None
        base = os.path.join(self._root, kind)
        real_base = os.path.realpath(base)
        if not _inside(real_base, self._root) or not os.path.isdir(real_base):
            return []
        found: list[str] = []
        pending = [(real_base, "")]
        while pending:
            folder, prefix = pending.pop()
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if entry.name == "__pycache__":
                    continue
                relative = prefix + entry.name
                if entry.is_symlink():
                    # Listed only if the target is a file inside the skill; symlinked folders
                    # are not followed, which also rules out cycles.
                    real = os.path.realpath(entry.path)
                    if _inside(real, self._root) and os.path.isfile(real):
                        found.append(relative)
                elif entry.is_dir():
                    pending.append((entry.path, relative + "/"))
                elif entry.is_file():
                    found.append(relative)
        return found
