"""Resources: lazy listing and reading, the size cap, and confinement to the skill folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from yadk.skills import Resources, load_skill_from_dir
from yadk.skills._resources import ResourceTooLargeError, Script


@pytest.fixture
def resources(make_skill) -> Resources:
    folder = make_skill(
        "demo",
        files={
            "references/guide.md": "Guide",
            "references/deep/more.md": "More",
            "references/__pycache__/x.pyc": b"\x00",
            "assets/logo.png": b"\x89PNG\r\n\x1a\n\xff",
            "scripts/run.py": "print('hi')",
        },
    )
    return load_skill_from_dir(folder).resources


def test_lists_files_relative_to_their_folder(resources: Resources) -> None:
    assert resources.list_references() == ["deep/more.md", "guide.md"]
    assert resources.list_assets() == ["logo.png"]
    assert resources.list_scripts() == ["run.py"]


def test_reads_text_bytes_and_scripts(resources: Resources) -> None:
    assert resources.get_reference("guide.md") == "Guide"
    assert resources.get_reference("deep/more.md") == "More"
    assert resources.get_asset("logo.png") == b"\x89PNG\r\n\x1a\n\xff"
    assert resources.get_script("run.py") == Script(src="print('hi')")
    assert resources.get_reference("missing.md") is None


def test_reads_are_lazy_and_fresh(resources: Resources) -> None:
    assert resources.root is not None
    (resources.root / "references" / "guide.md").write_text("Edited")
    (resources.root / "references" / "new.md").write_text("New")

    assert resources.get_reference("guide.md") == "Edited"
    assert "new.md" in resources.list_references()


@pytest.mark.parametrize(
    "name",
    ["../SKILL.md", "../../etc/passwd", "/etc/passwd", "deep/../../SKILL.md", "", ".", "C:\\x"],
)
def test_paths_cannot_escape(resources: Resources, name: str) -> None:
    assert resources.get_reference(name) is None
    assert resources.path_of("references", name) is None


def test_symlinks_are_confined_to_the_skill_folder(make_skill, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret")
    outside_dir = tmp_path / "outside"
    outside_dir.mkdir()
    (outside_dir / "x.md").write_text("x")
    folder = make_skill("demo", files={"assets/shared.md": "shared"})
    refs = folder / "references"
    refs.mkdir()
    os.symlink(secret, refs / "leak.txt")
    os.symlink(folder / "assets" / "shared.md", refs / "shared.md")
    os.symlink(outside_dir, refs / "linked-dir")

    resources = load_skill_from_dir(folder).resources

    assert resources.list_references() == ["shared.md"]
    assert resources.get_reference("leak.txt") is None
    assert resources.get_reference("linked-dir/x.md") is None
    assert resources.get_reference("shared.md") == "shared"


def test_a_symlinked_resource_folder_pointing_outside_is_ignored(
    make_skill, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.md").write_text("x")
    folder = make_skill("demo")
    os.symlink(outside, folder / "references")

    resources = load_skill_from_dir(folder).resources

    assert resources.list_references() == []
    assert resources.get_reference("x.md") is None


def test_a_symlinked_skill_folder_works(make_skill, tmp_path: Path) -> None:
    real = make_skill("demo", files={"references/a.md": "A"}, parent=tmp_path / "real")
    (tmp_path / "links").mkdir()
    os.symlink(real, tmp_path / "links" / "demo")

    skill = load_skill_from_dir(tmp_path / "links" / "demo")

    assert skill.path == tmp_path / "links" / "demo"
    assert skill.resources.get_reference("a.md") == "A"


def test_size_cap(make_skill) -> None:
    folder = make_skill("demo", files={"assets/big.txt": "x" * 101})
    resources = load_skill_from_dir(folder).resources

    with pytest.raises(ResourceTooLargeError) as caught:
        resources.read("assets", "big.txt", max_bytes=100)

    assert (
        str(caught.value) == "Resource 'assets/big.txt' is 101 bytes, over the limit of 100 bytes."
    )
    assert resources.read("assets", "big.txt", max_bytes=101) == "x" * 101


def test_in_memory_entries_win_and_are_listed(make_skill) -> None:
    folder = make_skill("demo", files={"references/a.md": "disk"})
    resources = Resources.from_dir(folder)
    resources.references["a.md"] = "memory"
    resources.scripts["s.py"] = Script(src="pass")

    assert resources.get_reference("a.md") == "memory"
    assert resources.list_scripts() == ["s.py"]
    assert resources.get_script("s.py") == Script(src="pass")
