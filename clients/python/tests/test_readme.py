"""The READMEs' Python walkthroughs, run as a notebook would run them against the real API and worker (see conftest.py).

Every ```python block of a section, in order and in one namespace, in a fresh folder holding the files the section
names; the address the blocks write (http://localhost:8080) is read as MDS_URL, the key comes from MDS_API_KEY and
MDS_API_SECRET. A block that no longer runs, or a walkthrough that no longer ends where it says, fails here."""

import json
import os
import re
import shutil
import zipfile
from pathlib import Path
from typing import Any, Dict, List

import pytest

from mds_client import Client
from conftest import PHOTOS, REPO_ROOT

# Two classes by folder, as the walkthroughs' photos/ holds them.
CLASS_FOLDERS = {"space": ("rocket.jpg", "hubble_deep_field.jpg", "astronaut.jpg"), "things": ("camera.jpg", "coffee.jpg", "motorcycle_left.jpg")}
WRITTEN_URL = "http://localhost:8080"


def python_blocks(readme: Path, heading: str) -> List[str]:
    """The ```python blocks of the ``## heading`` section of ``readme``, in order."""
    text = readme.read_text()
    start = text.index(f"\n## {heading}\n")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end != -1 else len(text)]
    blocks = re.findall(r"^```python\n(.*?)^```$", section, flags=re.S | re.M)
    assert blocks, f"{readme.name}: no Python block under ## {heading}"
    return blocks


def run_blocks(blocks: List[str], folder: Path, monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    monkeypatch.chdir(folder)
    namespace: Dict[str, Any] = {"__name__": "__readme__"}
    for index, block in enumerate(blocks):
        code = compile(block.replace(WRITTEN_URL, os.environ["MDS_URL"]), f"<block {index + 1}>", "exec")
        exec(code, namespace)  # noqa: S102 - the README's own code, as a reader runs it
    return namespace


@pytest.fixture
def class_folders(tmp_path: Path) -> Path:
    for label, names in CLASS_FOLDERS.items():
        (tmp_path / "photos" / label).mkdir(parents=True)
        for name in names:
            shutil.copy(PHOTOS / name, tmp_path / "photos" / label / name)
    return tmp_path


def test_the_clients_walkthrough_runs(client: Client, class_folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (class_folders / "new" / "images").mkdir(parents=True)
    for name in ("grace_hopper.jpg", "chelsea.jpg"):
        shutil.copy(PHOTOS / name, class_folders / "new" / "images" / name)
    (class_folders / "new" / "labels.csv").write_text("file,label\ngrace_hopper.jpg,people\nchelsea.jpg,animals\n")

    namespace = run_blocks(python_blocks(REPO_ROOT / "clients" / "python" / "README.md", "Walkthrough"), class_folders, monkeypatch)
    ds = namespace["ds"]
    try:
        assert sorted(namespace["table"]["class"]) == ["space"] * 3 + ["things"] * 3
        assert (namespace["task"].task_type, namespace["task"].status) == ("REINDEX", "COMPLETED")
        now = ds.refresh()
        assert (now.status_new, now.n_images) == ("READY", 8)
        classes = {row["file_name"]: row["class"] for _, row in ds.media(brief=True).iterrows()}
        assert classes["grace_hopper.jpg"] == "people" and classes["chelsea.jpg"] == "animals"
        with zipfile.ZipFile(class_folders / "walkthrough.zip") as exported:
            assert any(name.startswith("space/") or "/space/" in name for name in exported.namelist())
        with zipfile.ZipFile(class_folders / "space.zip") as exported:
            coco = json.loads(exported.read("annotations.json"))
        assert sorted(image["file_name"] for image in coco["images"]) == sorted(namespace["space"]["file_name"])
    finally:
        ds.delete()


def test_the_main_readmes_python_example_runs(client: Client, class_folders: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = run_blocks(python_blocks(REPO_ROOT / "README.md", "Python client and CLI"), class_folders, monkeypatch)
    ds = namespace["ds"]
    try:
        now = ds.refresh()
        assert (now.status_new, now.n_images) == ("READY", 6)
        assert (class_folders / "pets.zip").stat().st_size > 0
    finally:
        ds.delete()
