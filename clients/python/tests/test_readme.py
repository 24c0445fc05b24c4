"""The READMEs' code, run as a reader runs it against the real API and worker (see conftest.py).

Every ```python block of clients/python/README.md in order and in one namespace, as one notebook; its ```sh block
with bash; the Python blocks of the main README's "Python client and CLI" section. Each runs in a fresh folder
holding the files the README names; the address the blocks write (http://localhost:8080) is read as MDS_URL, the key
comes from MDS_API_KEY and MDS_API_SECRET. A block that no longer runs, or a walkthrough that no longer ends where it
says, fails here."""

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

from mds_client import Client
from conftest import PHOTOS, REPO_ROOT

CLIENT_README = REPO_ROOT / "clients" / "python" / "README.md"
WRITTEN_URL = "http://localhost:8080"


def readme_photos() -> Dict[str, bytes]:
    """photos/ as the client's README describes it: two classes by folder, three copies of one rocket in space/
    (other files, the same picture) and a fourth filed under things/ by mistake."""
    rocket = (PHOTOS / "rocket.jpg").read_bytes()
    files = {"space/rocket.jpg": rocket, "space/rocket-2.jpg": rocket + b"\0copy 2", "space/rocket-3.jpg": rocket + b"\0copy 3", "things/rocket-4.jpg": rocket + b"\0misfiled"}
    for label, names in {"space": ("hubble_deep_field.jpg", "astronaut.jpg"), "things": ("coffee.jpg", "camera.jpg", "motorcycle_left.jpg")}.items():
        files.update({f"{label}/{name}": (PHOTOS / name).read_bytes() for name in names})
    return files


def blocks(readme: Path, language: str, heading: Optional[str] = None) -> List[str]:
    """The ```language blocks of ``readme`` (of its ``## heading`` section only, when given), in order."""
    text = readme.read_text()
    if heading is not None:
        start = text.index(f"\n## {heading}\n")
        end = text.find("\n## ", start + 1)
        text = text[start : end if end != -1 else len(text)]
    found = re.findall(rf"^```{language}\n(.*?)^```$", text, flags=re.S | re.M)
    assert found, f"{readme.name}: no {language} block" + (f" under ## {heading}" if heading else "")
    return [block.replace(WRITTEN_URL, os.environ["MDS_URL"]) for block in found]


def run_blocks(python: List[str], folder: Path, monkeypatch: pytest.MonkeyPatch) -> Dict[str, Any]:
    monkeypatch.chdir(folder)
    namespace: Dict[str, Any] = {"__name__": "__readme__"}
    for index, block in enumerate(python):
        exec(compile(block, f"<block {index + 1}>", "exec"), namespace)  # noqa: S102 - the README's own code, as a reader runs it
    return namespace


@pytest.fixture
def photos(tmp_path: Path) -> Path:
    for relative, data in readme_photos().items():
        (tmp_path / "photos" / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "photos" / relative).write_bytes(data)
    return tmp_path


def test_the_clients_readme_runs_as_one_notebook(client: Client, photos: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (photos / "new" / "images").mkdir(parents=True)
    for name in ("grace_hopper.jpg", "chelsea.jpg"):
        (photos / "new" / "images" / name).write_bytes((PHOTOS / name).read_bytes())
    (photos / "new" / "labels.csv").write_text("file,label\ngrace_hopper.jpg,people\nchelsea.jpg,animals\n")

    namespace = run_blocks(blocks(CLIENT_README, "python"), photos, monkeypatch)
    ds = namespace["ds"]
    try:
        assert sorted(namespace["table"]["class"]) == ["space"] * 5 + ["things"] * 4
        # Text search found nothing on the fresh dataset and said why; the enriched copy's captions answer it.
        assert namespace["found"].clusters and all(row["caption"] for row in namespace["found"].media())
        # The misfiled rocket was the most doubted label and took the class of its copies.
        assert namespace["doubts"]["file_name"].iloc[0] == "things/rocket-4.jpg"
        kept = namespace["kept"]
        classes = dict(zip(kept["file_name"], kept["class"]))
        assert classes["things/rocket-4.jpg"] == "space"
        assert (classes["grace_hopper.jpg"], classes["chelsea.jpg"]) == ("people", "animals")
        # Of the four rockets one is kept; the export holds the kept images by class.
        rockets = kept[kept["file_name"].str.contains("rocket")]
        assert len(rockets) == 4 and (~rockets["discarded"]).sum() == 1
        assert (namespace["task"].task_type, ds.refresh().status_new) == ("REINDEX", "READY")
        with zipfile.ZipFile(photos / "walkthrough.zip") as exported:
            images = [name for name in exported.namelist() if name.endswith(".jpg")]
        assert len(images) == (~kept["discarded"]).sum() and sum("rocket" in name for name in images) == 1
        with zipfile.ZipFile(photos / "space.zip") as exported:
            coco = json.loads(exported.read("annotations.json"))
        assert sorted(image["file_name"] for image in coco["images"]) == sorted(kept[kept["media_id"].isin(namespace["space_ids"])]["file_name"])
        assert [view.name for view in ds.views()] == ["space, checked"]
        diff = namespace["diff"]
        assert (diff.added.count, diff.changed.custom_metadata.count, diff.changed.tags.count) == (2, 1, 6)
    finally:
        ds.delete()


def test_the_clients_readme_mds_session_runs(client: Client, photos: Path) -> None:
    [session] = blocks(CLIENT_README, "sh")
    # The console script installed beside this Python, as `pip install` puts it on PATH.
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    ran = subprocess.run(["bash", "-euo", "pipefail", "-c", session + '\nprintf %s "$DS" > dataset-id\n'], cwd=photos, env=env, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr
    media = json.loads((photos / "media.json").read_text())
    assert sorted(record["file_name"] for record in media) == sorted(readme_photos())
    assert "no captions and no concept vectors" in ran.stderr and "drilling platform" in ran.stdout  # the copy's caption of the rocket
    assert "changed the class of 1 media" in ran.stdout and "tagged 6" in ran.stdout  # the misfiled rocket is in space now
    with zipfile.ZipFile(photos / "pets.zip") as exported:
        rockets = [name for name in exported.namelist() if name.endswith(".jpg") and "rocket" in name]
    assert len(rockets) == 1 and rockets[0].startswith("space/")  # one kept of the four, in its class's folder
    client.delete_dataset((photos / "dataset-id").read_text())

def test_the_main_readmes_python_example_runs(client: Client, photos: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    namespace = run_blocks(blocks(REPO_ROOT / "README.md", "python", "Python client and CLI"), photos, monkeypatch)
    ds = namespace["ds"]
    try:
        now = ds.refresh()
        assert (now.status_new, now.n_images) == ("READY", 9)
        assert (photos / "pets.zip").stat().st_size > 0
    finally:
        ds.delete()
