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
from typing import Any, List

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


def test_media_json_lists_every_image_of_a_dataset_made_by_create_wait(tmp_path: Path) -> None:
    """The issue's own commands: `mds --url URL create NAME DIR --wait`, then `mds --url URL media DATASET --json`."""
    url = os.environ["MDS_URL"]
    for relative in ("grace_hopper.jpg", "camera.jpg", "space/rocket.jpg", "space/deep/hubble_deep_field.jpg"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PHOTOS / Path(relative).name, tmp_path / relative)
    # Global options first, as `mds --help` shows them; MDS_URL points nowhere, so an ignored --url would fail.
    nowhere = {"MDS_URL": "http://127.0.0.1:9"}
    created = mds("--url", url, "create", unique("cli-media"), str(tmp_path), "--wait", env_overrides=nowhere)
    assert created.returncode == 0, created.stderr
    dataset_id = created.stdout.strip()
    media = mds("--url", url, "media", dataset_id, "--json", env_overrides=nowhere)
    assert media.returncode == 0, media.stderr
    records = json.loads(media.stdout)
    assert sorted(record["file_name"] for record in records) == ["camera.jpg", "grace_hopper.jpg", "space/deep/hubble_deep_field.jpg", "space/rocket.jpg"]
    assert {record["media_type"] for record in records} == {"IMAGE"} and len({record["media_id"] for record in records}) == 4
    assert {"media_id", "class", "issues", "cluster_id_0", "caption", "uniqueness_score"} <= set(records[0])


def test_every_listing_prints_json_with_the_options_after_the_command(client: Client, folder: Path, with_a_mislabel: Dataset) -> None:
    url = os.environ["MDS_URL"]
    nowhere = {"MDS_URL": "http://127.0.0.1:9"}

    def listed(*args: str) -> Any:
        answer = mds(*args, "--json", "--url", url, env_overrides=nowhere)
        assert answer.returncode == 0, f"{args}: {answer.stderr}"
        return json.loads(answer.stdout)

    dataset = client.create_dataset(unique("cli-listings"), folder, wait=True, timeout=300)
    dataset_id = str(dataset.id)
    taken = mds("snapshot", "take", dataset_id, "--name", "untagged")
    assert taken.returncode == 0, taken.stderr
    snapshot_id = taken.stdout.strip()
    assert mds("tag", dataset_id, "keep", "--vql", "[]").stdout.strip() == "tagged 3"

    assert dataset_id in [item["id"] for item in listed("datasets")]
    tasks = listed("tasks", "--dataset", dataset_id)
    assert [(t["task_type"], t["status"]) for t in tasks] == [("DATASET_CREATION", "COMPLETED")]
    assert listed("task", tasks[0]["task_id"])["task_id"] == tasks[0]["task_id"]
    assert listed("search", dataset_id, "--image", str(folder / "camera.jpg"))[0]["file_name"] == "camera.jpg"
    assert sorted(item["file_name"] for item in listed("media", dataset_id, "--brief")) == sorted(path.name for path in folder.iterdir())
    assert [(tag["name"], tag["n_media"]) for tag in listed("tags", dataset_id)] == [("keep", 3)]
    snapshots = listed("snapshot", "list", dataset_id)
    assert snapshot_id in [s["snapshot_id"] for s in snapshots] and len(snapshots) == 2
    diff = listed("snapshot", "diff", dataset_id, snapshot_id)
    assert (diff["changed"]["tags"]["count"], diff["added"]["count"], diff["removed"]["count"]) == (3, 0, 0)
    assert "CAPTION_IMAGES" in [model["type"] for model in listed("enrich", dataset_id, "--list")]
    assert {"parquet", "coco", "imagefolder"} <= {entry["name"] for entry in listed("export-formats")}

    # Listings with something in them: the dataset with a planted mislabel and four copies of one rocket.
    labelled = str(with_a_mislabel.id)
    classes = listed("classes", labelled)
    assert classes["label_field"] == "label" and sorted((c["label"], c["count"]) for c in classes["classes"]) == [("space", 5), ("things", 4)]
    mislabels = listed("mislabels", labelled)
    assert (mislabels[0]["file_name"], mislabels[0]["suggested_label"]) == ("things/rocket-4.jpg", "space")
    rockets = {"space/rocket.jpg", "space/rocket-2.jpg", "space/rocket-3.jpg", "things/rocket-4.jpg"}
    assert any({member["file_name"] for member in group["members"]} == rockets for group in listed("duplicates", labelled))


HINT = "This dataset has no captions and no concept vectors, which text search reads: enrich a copy"


def test_text_search_on_a_fresh_dataset_says_it_needs_enrichment(with_a_mislabel: Dataset) -> None:
    found = mds("search", str(with_a_mislabel.id), "--text", "a dog on a beach", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout) == []
    assert found.stderr.startswith(f"mds: no results: {HINT}")


def test_snapshot_restore_clone_rename_and_delete_commands(client: Client, folder: Path) -> None:
    dataset_id = str(client.create_dataset(unique("cli-snapshots"), folder, wait=True, timeout=300).id)
    first = mds("snapshot", "take", dataset_id, "--name", "untagged").stdout.strip()
    assert mds("tag", dataset_id, "keep", "--vql", "[]").stdout.strip() == "tagged 3"
    assert mds("tag", dataset_id, "keep", "--media", str(client.media_items(dataset_id)[0].media_id), "--remove").stdout.strip() == "untagged 1"

    restored = mds("snapshot", "restore", dataset_id, first, "--no-progress")
    assert restored.returncode == 0, restored.stderr
    task = client.task(restored.stdout.strip())
    assert (task.task_type, task.status) == ("SNAPSHOT_RESTORE", "COMPLETED")
    assert all(tag.n_media == 0 for tag in client.tags(dataset_id))

    cloned = mds("snapshot", "clone", dataset_id, first, "--no-progress")
    assert cloned.returncode == 0, cloned.stderr
    clone = client.dataset(cloned.stdout.strip())
    assert (clone.status_new, clone.n_images) == ("READY", 3) and clone.display_name.endswith("(cloned)")
    assert mds("delete", str(clone.id), "--yes").returncode == 0

    second = mds("snapshot", "take", dataset_id, "--name", "restored").stdout.strip()
    current = mds("snapshot", "delete", dataset_id, second)
    assert current.returncode == 1 and current.stderr.startswith("mds: error: 409")
    assert mds("snapshot", "delete", dataset_id, first).returncode == 0
    assert [s["snapshot_id"] for s in json.loads(mds("snapshot", "list", dataset_id, "--json").stdout)].count(first) == 0

    renamed = mds("rename", dataset_id, "cli renamed")
    assert renamed.stdout.strip() == "cli renamed" and client.dataset(dataset_id).display_name == "cli renamed"
    refused = mds("delete", dataset_id)
    assert refused.returncode == 1 and "needs --yes" in refused.stderr
    deleted = mds("delete", dataset_id, "--yes")
    assert deleted.returncode == 0, deleted.stderr
    assert dataset_id not in mds("datasets").stdout


def test_abort_then_retry_a_creation(client: Client, tmp_path: Path) -> None:
    # 40 images (five files of each photo): indexing takes seconds, so the abort comes while it runs.
    for number in range(5):
        for photo in PHOTOS.glob("*.jpg"):
            (tmp_path / f"{photo.stem}-{number}.jpg").write_bytes(photo.read_bytes() + bytes([number]))
    started = mds("create", unique("cli-aborted"), str(tmp_path), "--no-progress")
    assert started.returncode == 0, started.stderr
    dataset_id = started.stdout.strip()
    task_id = str(client.tasks(dataset_id).tasks[0].task_id)
    aborted = mds("abort", task_id)
    assert aborted.returncode == 0 and aborted.stdout.startswith(f"{task_id} DATASET_CREATION "), aborted.stderr
    # Waiting for a task that ends ABORTED is exit 1, in one line.
    ended = mds("task", task_id, "--wait", "--no-progress")
    assert ended.returncode == 1 and ended.stderr.strip().splitlines() == [ended.stderr.strip()] and "ABORTED" in ended.stderr
    retried = mds("retry", task_id)
    assert retried.returncode == 0 and retried.stdout.startswith(f"{task_id} DATASET_CREATION "), retried.stderr
    done = mds("task", task_id, "--wait", "--json", "--no-progress")
    assert done.returncode == 0 and json.loads(done.stdout)["status"] == "COMPLETED"
    assert client.dataset(dataset_id).n_images == 40
