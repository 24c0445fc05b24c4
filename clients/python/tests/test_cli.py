"""The installed ``mds`` command against the real API and worker (see conftest.py)."""

import json
import os
import shutil
import re
import subprocess
import sys
import tarfile
import uuid
import zipfile
from pathlib import Path
from typing import List

import pytest

from mds_client import Client, Dataset
from conftest import PHOTOS, unique

# The console script installed beside this Python (the venv's bin/), as `pip install` puts it.
MDS = str(Path(sys.executable).with_name("mds"))


def mds(*args: str, env_overrides: dict = None, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, **(env_overrides or {})}
    return subprocess.run([MDS, *args], capture_output=True, text=True, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("cli-photos")
    for name in ("grace_hopper.jpg", "hubble_deep_field.jpg", "camera.jpg"):
        shutil.copy(PHOTOS / name, folder / name)
    return folder


def lines(output: str) -> List[str]:
    return [line for line in output.splitlines() if line.strip()]


def test_create_wait_prints_the_id_and_shows_progress(client: Client, folder: Path) -> None:
    name = unique("cli-created")
    created = mds("create", name, str(folder), "--wait")
    assert created.returncode == 0, created.stderr
    dataset_id = created.stdout.strip()
    assert str(uuid.UUID(dataset_id)) == dataset_id
    # The bars write to stderr: the upload and the creation task to its end.
    assert re.search(r"upload: 100%", created.stderr) and "DATASET_CREATION COMPLETED" in created.stderr
    assert client.dataset(dataset_id).status_new == "READY"

    table = mds("datasets")
    assert table.returncode == 0, table.stderr
    row = next(line for line in lines(table.stdout) if line.startswith(dataset_id))
    assert row.split()[1:3] == ["READY", "3"] and row.endswith(name)
    listed = json.loads(mds("datasets", "--json").stdout)
    assert any(item["id"] == dataset_id and item["n_images"] == 3 for item in listed)

    tasks = mds("tasks", "--dataset", dataset_id)
    assert tasks.returncode == 0, tasks.stderr
    assert lines(tasks.stdout)[0].split()[:4] == ["TASK", "TYPE", "STATUS", "PROGRESS"]
    assert lines(tasks.stdout)[1].split()[1:4] == ["DATASET_CREATION", "COMPLETED", "100%"]


def test_create_labels_from_folders_checks_them_while_indexing(client: Client, tmp_path: Path) -> None:
    for label, names in {"portraits": ("grace_hopper.jpg", "astronaut.jpg"), "space": ("hubble_deep_field.jpg", "rocket.jpg")}.items():
        (tmp_path / label).mkdir()
        # The same file names in both folders (0001.jpg, 0002.jpg), as class-folder datasets have them: each file is kept.
        for number, name in enumerate(names, 1):
            shutil.copy(PHOTOS / name, tmp_path / label / f"{number:04}.jpg")
    created = mds("create", unique("cli-labelled"), str(tmp_path), "--labels-from-folders", "--label-field", "kind", "--wait", "--no-progress")
    assert created.returncode == 0, created.stderr
    dataset_id = created.stdout.strip()
    report = client.request("GET", f"/dataset/{dataset_id}/label_quality")
    assert report["label_field"] == "kind" and report["n_labelled"] == 4
    assert sorted((entry["label"], entry["count"]) for entry in report["classes"]) == [("portraits", 2), ("space", 2)]


def test_create_labels_from_a_csv_names_files_by_path_or_base_name(client: Client, tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    for folder, names in {"a": ("grace_hopper.jpg", "astronaut.jpg"), "b": ("hubble_deep_field.jpg", "rocket.jpg")}.items():
        (photos / folder).mkdir(parents=True)
        for number, name in enumerate(names, 1):
            shutil.copy(PHOTOS / name, photos / folder / f"{folder}{number}.jpg")
    labels = tmp_path / "labels.csv"
    labels.write_text("file,label,split\na/a1.jpg,portrait,train\na2.jpg,portrait,test\nb/b1.jpg,space,train\nb2.jpg,space,test\n")
    created = mds("create", unique("cli-csv"), str(photos), "--labels-from", "csv", "--labels", str(labels), "--wait", "--no-progress")
    assert created.returncode == 0, created.stderr
    dataset_id = created.stdout.strip()
    classes = client.request("GET", f"/dataset/{dataset_id}/classes")
    assert (classes["label_field"], classes["split_field"], classes["unlabelled"]) == ("label", "split", 0)
    assert sorted((entry["label"], entry["count"]) for entry in classes["classes"]) == [("portrait", 2), ("space", 2)]

    # A row naming a file not sent: the API's 400 in one line, nothing indexed.
    labels.write_text("file,label\nmissing.jpg,portrait\n")
    refused = mds("create", unique("cli-csv-bad"), str(photos), "--labels-from", "csv", "--labels", str(labels), "--no-progress")
    assert refused.returncode != 0 and "names files that were not uploaded: missing.jpg" in refused.stderr
    alone = mds("create", unique("cli-csv-alone"), str(photos), "--labels-from", "csv", "--no-progress")
    assert alone.returncode != 0 and "--labels FILE goes with --labels-from csv or coco" in alone.stderr


def test_add_prints_the_task_id_once_the_batch_completes(client: Client, folder: Path) -> None:
    dataset = client.create_dataset(unique("cli-add"), [PHOTOS / "rocket.jpg"], wait=True, timeout=300)
    added = mds("add", str(dataset.id), str(folder), "--auto-reindex", "--no-progress")
    assert added.returncode == 0, added.stderr
    task = client.task(added.stdout.strip())
    assert (task.task_type, task.status) == ("MEDIA_ADDITION", "COMPLETED")
    assert (client.dataset(dataset.id).status_new, client.dataset(dataset.id).n_images) == ("READY", 4)


def test_tasks_watch_follows_a_running_task_to_its_end(client: Client, folder: Path, tmp_path: Path) -> None:
    archive = tmp_path / "photos.tar.gz"
    with tarfile.open(archive, "w:gz") as tarred:
        tarred.add(folder, arcname="photos")
    started = mds("create", unique("cli-watched"), str(archive), "--no-progress")
    assert started.returncode == 0, started.stderr
    dataset_id = started.stdout.strip()
    watched = mds("tasks", "--dataset", dataset_id, "--watch")
    assert watched.returncode == 0, watched.stderr
    assert "DATASET_CREATION" in watched.stdout
    assert lines(watched.stdout)[-1].split()[1:3] == ["DATASET_CREATION", "COMPLETED"]
    ready = client.dataset(dataset_id)
    assert (ready.status_new, ready.n_images) == ("READY", 3)


def test_search_by_text_and_by_image(photos_dataset: Dataset) -> None:
    by_text = mds("search", str(photos_dataset.id), "--text", "spacecraft launch", "--json")
    assert by_text.returncode == 0, by_text.stderr
    assert json.loads(by_text.stdout)[0]["file_name"] == "rocket.jpg"
    by_image = mds("search", str(photos_dataset.id), "--image", str(PHOTOS / "coffee.jpg"), "--limit", "1")
    assert by_image.returncode == 0, by_image.stderr
    assert lines(by_image.stdout)[1].split()[1] == "coffee.jpg"


def test_export_writes_the_zip(photos_dataset: Dataset, tmp_path: Path) -> None:
    out = tmp_path / "photos-coco.zip"
    exported = mds("export", str(photos_dataset.id), "--format", "coco", "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.strip() == str(out)
    with zipfile.ZipFile(out) as zipped:
        coco = json.loads(zipped.read("annotations.json"))
    assert len(coco["images"]) == photos_dataset.n_images


def test_export_yolo_and_hf_carry_the_images(photos_dataset: Dataset, tmp_path: Path) -> None:
    yolo = tmp_path / "photos-yolo.zip"
    assert mds("export", str(photos_dataset.id), "--format", "yolo", "--out", str(yolo)).returncode == 0
    with zipfile.ZipFile(yolo) as zipped:
        names = zipped.namelist()
    assert "data.yaml" in names
    assert len([n for n in names if n.startswith("images/")]) == photos_dataset.n_images
    assert len([n for n in names if n.startswith("labels/") and n.endswith(".txt")]) == photos_dataset.n_images
    hf = tmp_path / "photos-hf.zip"
    assert mds("export", str(photos_dataset.id), "--format", "hf", "--out", str(hf)).returncode == 0
    with zipfile.ZipFile(hf) as zipped:
        assert sorted(zipped.namelist()) == ["README.md", "data/train-00000-of-00001.parquet"]


def test_errors_print_the_apis_detail_and_exit_1(tmp_path: Path) -> None:
    missing = mds("export", str(uuid.uuid4()), "--format", "json", "--out", str(tmp_path / "x.zip"))
    assert missing.returncode == 1
    assert "mds: error: 404: Dataset not found" in missing.stderr
    assert not (tmp_path / "x.zip").exists()
    if os.environ.get("MDS_API_KEY"):
        refused = mds("datasets", "--api-secret", "not-the-secret")
        assert refused.returncode == 1 and "mds: error: 401" in refused.stderr
    unreachable = mds("datasets", "--url", "http://127.0.0.1:9")
    assert unreachable.returncode == 1 and "Cannot reach http://127.0.0.1:9" in unreachable.stderr
    usage = mds("search", str(uuid.uuid4()))
    assert usage.returncode == 2 and "one of the arguments --text --image is required" in usage.stderr


def test_options_before_the_command_and_every_listing_as_json(client: Client, folder: Path) -> None:
    url = os.environ["MDS_URL"]
    # Global options first, as `mds --help` shows them; MDS_URL points nowhere, so an ignored --url would fail.
    nowhere = {"MDS_URL": "http://127.0.0.1:9"}
    created = mds("--url", url, "--no-progress", "create", unique("cli-media"), str(folder), "--wait", env_overrides=nowhere)
    assert created.returncode == 0, created.stderr
    assert created.stderr == ""
    dataset_id = created.stdout.strip()
    media = mds("--url", url, "media", dataset_id, "--json", env_overrides=nowhere)
    assert media.returncode == 0, media.stderr
    records = json.loads(media.stdout)
    assert sorted(record["file_name"] for record in records) == sorted(path.name for path in folder.iterdir())
    assert {"media_id", "class", "issues", "cluster_id_0", "caption"} <= set(records[0])

    listings = {
        "datasets": ["datasets"],
        "tasks": ["tasks", "--dataset", dataset_id],
        "duplicates": ["duplicates", dataset_id],
        "mislabels": ["mislabels", dataset_id],
        "classes": ["classes", dataset_id],
        "tags": ["tags", dataset_id],
        "snapshots": ["snapshot", "list", dataset_id],
        "enrichment models": ["enrich", dataset_id, "--list"],
        "search": ["search", dataset_id, "--image", str(folder / "camera.jpg")],
    }
    for name, args in listings.items():
        listed = mds(*args, "--json", "--url", url, env_overrides=nowhere)
        assert listed.returncode == 0, f"{name}: {listed.stderr}"
        assert isinstance(json.loads(listed.stdout), (list, dict)), name


def test_tag_snapshot_rename_and_delete_commands(client: Client, folder: Path) -> None:
    dataset = client.create_dataset(unique("cli-curate"), folder, wait=True, timeout=300)
    tagged = mds("tag", str(dataset.id), "keep", "--vql", "[]")
    assert (tagged.returncode, tagged.stdout.strip()) == (0, "tagged 3"), tagged.stderr
    taken = mds("snapshot", "take", str(dataset.id), "--name", "first")
    assert taken.returncode == 0, taken.stderr
    diff = mds("snapshot", "diff", str(dataset.id), taken.stdout.strip(), "--json")
    assert json.loads(diff.stdout)["added"]["count"] == 0
    renamed = mds("rename", str(dataset.id), "cli renamed")
    assert renamed.stdout.strip() == "cli renamed" and client.dataset(dataset.id).display_name == "cli renamed"
    refused = mds("delete", str(dataset.id))
    assert refused.returncode == 1 and "needs --yes" in refused.stderr
    deleted = mds("delete", str(dataset.id), "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert str(dataset.id) not in mds("datasets").stdout


def test_text_search_on_a_fresh_dataset_says_it_needs_enrichment(folder: Path) -> None:
    created = mds("create", unique("cli-fresh"), str(folder), "--wait", "--no-progress")
    found = mds("search", created.stdout.strip(), "--text", "a dog on a beach", "--json")
    assert found.returncode == 0, found.stderr
    if json.loads(found.stdout) == []:
        assert "never enriched" in found.stderr
