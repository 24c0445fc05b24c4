"""The client against the real API and worker (see conftest.py)."""

import html
import json
import os
import shutil
import uuid
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from mds_client import ApiError, Client, ConnectionFailed, Dataset, MdsError, vql
from conftest import PHOTOS, TASK_TIMEOUT, unique


def test_creates_a_dataset_from_a_folder(client: Client, photos_dataset: Dataset) -> None:
    assert photos_dataset.status_new == "READY"
    assert photos_dataset.n_images == len(list(PHOTOS.glob("*.jpg")))
    assert photos_dataset.id in [dataset.id for dataset in client.datasets()]
    kinds = {(task.task_type, task.status) for task in client.tasks(photos_dataset.id).tasks}
    assert ("DATASET_CREATION", "COMPLETED") in kinds
    assert ("CUSTOM_METADATA", "COMPLETED") in kinds


def test_creates_datasets_from_a_list_of_files_and_an_archive(client: Client, tmp_path: Path) -> None:
    archive = tmp_path / "batch.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.write(PHOTOS / "camera.jpg", "shots/camera.jpg")
        zipped.write(PHOTOS / "coffee.jpg", "coffee.jpg")
        zipped.writestr("notes.txt", "not media: skipped")
        zipped.writestr("__MACOSX/._coffee.jpg", b"a resource fork, not an image: skipped")
    # Both index at once; then each is followed to its end.
    from_list = client.create_dataset(unique("py-list"), [PHOTOS / "rocket.jpg", PHOTOS / "astronaut.jpg", PHOTOS / "chelsea.jpg"])
    from_archive = client.create_dataset(unique("py-archive"), archive)
    for dataset, count in ((from_list, 3), (from_archive, 2)):
        creation = client.tasks(dataset.id, task_type="DATASET_CREATION").tasks[0]
        finished = client.wait_for_task(creation, timeout=TASK_TIMEOUT)
        assert finished.status == "COMPLETED" and finished.progress_percentage == 100
        ready = client.dataset(dataset.id)
        assert (ready.status_new, ready.n_images) == ("READY", count)


def test_adds_media_from_a_folder_with_its_folders_as_labels(client: Client, tmp_path: Path) -> None:
    dataset = client.create_dataset(unique("py-add"), [PHOTOS / "rocket.jpg", PHOTOS / "astronaut.jpg"], wait=True, timeout=TASK_TIMEOUT)
    for folder, name in (("cats", "chelsea.jpg"), ("drinks", "coffee.jpg"), ("drinks", "camera.jpg")):
        (tmp_path / folder).mkdir(exist_ok=True)
        shutil.copy(PHOTOS / name, tmp_path / folder / name)
    task = client.add_media(dataset.id, tmp_path, labels_from_folders=True, label_field="kind", auto_reindex=True, timeout=TASK_TIMEOUT)
    assert (task.task_type, task.status) == ("MEDIA_ADDITION", "COMPLETED")
    ready = client.dataset(dataset.id)
    assert (ready.status_new, ready.n_images) == ("READY", 5)
    report = client.request("GET", f"/dataset/{dataset.id}/label_quality")
    assert (report["label_field"], report["n_labelled"]) == ("kind", 3)
    assert sorted(row["label"] for row in report["classes"]) == ["cats", "drinks"]
    # A file that is neither media nor an archive is refused before anything is sent.
    notes = tmp_path / "notes.txt"
    notes.write_text("not media")
    with pytest.raises(MdsError, match="is neither a folder, an archive"):
        client.add_media(dataset.id, notes)


def test_adds_media_with_a_labels_file_then_reindexes_following_the_located_task(client: Client, tmp_path: Path) -> None:
    dataset = client.create_dataset(unique("py-add-csv"), [PHOTOS / "rocket.jpg", PHOTOS / "astronaut.jpg"], wait=True, timeout=TASK_TIMEOUT)
    (tmp_path / "batch" / "pets").mkdir(parents=True)
    shutil.copy(PHOTOS / "chelsea.jpg", tmp_path / "batch" / "pets" / "chelsea.jpg")
    shutil.copy(PHOTOS / "coffee.jpg", tmp_path / "batch" / "coffee.jpg")
    labels = tmp_path / "labels.csv"
    labels.write_text("file,label\npets/chelsea.jpg,cat\ncoffee.jpg,drink\n")
    added = client.add_media(dataset.id, tmp_path / "batch", labels_file=labels, timeout=TASK_TIMEOUT)
    assert (added.task_type, added.status) == ("MEDIA_ADDITION", "COMPLETED")
    assert client.dataset(dataset.id).status_new == "PARTIAL INDEX"
    table = client.media(dataset.id, brief=True)
    assert len(table) == 4 and list(table.columns[:4]) == ["media_id", "file_name", "kind", "class"]
    # pandas reads a missing class as NaN.
    assert {row["file_name"]: row["class"] if isinstance(row["class"], str) else None for _, row in table.iterrows()} == {
        "rocket.jpg": None, "astronaut.jpg": None, "pets/chelsea.jpg": "cat", "coffee.jpg": "drink",
    }  # fmt: skip
    # The listing pages: two pages of two hold every item once.
    pages = [client.media_page(dataset.id, page=page, page_size=2) for page in (1, 2, 3)]
    assert [len(p.media) for p in pages] == [2, 2, 0] and {p.total for p in pages} == {4}
    assert sorted(str(item.media_id) for p in pages for item in p.media) == sorted(table["media_id"])

    reindexed = client.reindex(dataset.id, timeout=TASK_TIMEOUT)
    assert (reindexed.task_type, reindexed.status, str(reindexed.dataset_id)) == ("REINDEX", "COMPLETED", str(dataset.id))
    assert client.task(reindexed.task_id).task_id == reindexed.task_id
    assert client.dataset(dataset.id).status_new == "READY"
    with pytest.raises(ApiError) as unknown:
        client.task("6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11")
    assert unknown.value.status_code == 404
    with pytest.raises(MdsError, match="labels_from must be csv or coco"):
        client.add_media(dataset.id, tmp_path / "batch", labels_file=labels, labels_from="folder")


def test_explores_clusters_as_objects_and_as_a_dataframe(client: Client, photos_dataset: Dataset) -> None:
    result = client.explore(photos_dataset.id)
    assert sum(cluster.n_images for cluster in result.clusters) == photos_dataset.n_images
    frame = result.to_pandas()
    assert {"cluster_id", "media_id", "file_name", "caption", "media_uri"} <= set(frame.columns)
    assert "rocket.jpg" in set(frame["file_name"])
    assert frame.loc[frame["file_name"] == "rocket.jpg", "caption"].item() == "A rocket on the launch pad"
    everything = client.explore_all(photos_dataset.id)
    assert [cluster.cluster_id for cluster in everything.clusters] == [cluster.cluster_id for cluster in result.clusters]
    assert len(client.explore_all(photos_dataset.id, max_clusters=2).clusters) == 2


def test_searches_by_text(client: Client, photos_dataset: Dataset) -> None:
    result = client.search_text(photos_dataset.id, "spacecraft launch")
    media = result.media()
    assert media[0]["file_name"] == "rocket.jpg"
    scores = [row["relevance_score"] for row in media]
    assert scores == sorted(scores)
    # A tight distance keeps only what is close to the query.
    close = client.search_text(photos_dataset.id, "spacecraft launch", max_distance=0.6).media()
    assert "coffee.jpg" not in [row["file_name"] for row in close]
    # Nothing that close: the hint names the distance, not enrichment (the dataset has captions).
    none = client.search_text(photos_dataset.id, "spacecraft launch", max_distance=0.01)
    assert none.clusters == [] and none.hint == "nothing is closer than the distance 0.01: try a larger max_distance"
    assert result.hint is None


def test_searches_by_image(client: Client, photos_dataset: Dataset) -> None:
    result = client.search_image(photos_dataset.id, PHOTOS / "motorcycle_left.jpg")
    assert result.clusters[0].previews[0].file_name == "motorcycle_left.jpg"
    assert result.clusters[0].relevance_score_type == "cosine_distance"


def test_exports_and_downloads(client: Client, photos_dataset: Dataset, tmp_path: Path) -> None:
    out = client.export(photos_dataset.id, tmp_path / "photos.zip", "parquet", include_images=True)
    with zipfile.ZipFile(out) as zipped:
        names = zipped.namelist()
        assert zipped.read("metadata.parquet")[:4] == b"PAR1"
    assert len([name for name in names if name.startswith("images/")]) == photos_dataset.n_images
    assert not (tmp_path / "photos.zip.part").exists()


def test_lists_the_export_formats_and_refuses_others_before_exporting(client: Client, photos_dataset: Dataset) -> None:
    formats = {format.name: format for format in client.export_formats()}
    assert list(formats)[:2] == ["json", "parquet"]
    assert formats["parquet"].metadata_file == "metadata.parquet" and not formats["parquet"].always_includes_images
    assert formats["yolo"].always_includes_images and formats["imagefolder"].needs_label_field
    with pytest.raises(MdsError, match="export_format must be one of json, parquet"):
        client.start_export(photos_dataset.id, "tiff")


def test_surfaces_the_apis_detail_with_its_status(client: Client, tmp_path: Path) -> None:
    with pytest.raises(ApiError) as missing:
        client.dataset(uuid.uuid4())
    assert (missing.value.status_code, missing.value.detail) == (404, "Dataset not found")
    assert "404: Dataset not found" in str(missing.value)
    with pytest.raises(ApiError) as unnamed:
        client.create_dataset(" ", [PHOTOS / "rocket.jpg"])
    assert (unnamed.value.status_code, unnamed.value.detail) == (400, "dataset_name is required")


def test_a_wrong_secret_is_401(client: Client) -> None:
    api_key = os.environ.get("MDS_API_KEY")
    if not api_key:
        pytest.skip("the service runs without authentication")
    with Client(api_key=api_key, api_secret="not-the-secret", progress=False) as stranger:
        with pytest.raises(ApiError) as refused:
            stranger.datasets()
    assert refused.value.status_code == 401
    assert refused.value.detail


def test_an_unreachable_service_is_a_connection_error() -> None:
    with Client("http://127.0.0.1:9", progress=False) as nowhere:
        with pytest.raises(ConnectionFailed, match="Cannot reach"):
            nowhere.datasets()


def test_an_export_started_then_followed_by_its_status(client: Client, photos_dataset: Dataset, tmp_path: Path) -> None:
    export_id = client.start_export(photos_dataset.id, "json", file_name="followed")
    started = client.export_status(photos_dataset.id, export_id)
    assert (started.file_name, started.export_format, started.include_images) == ("followed.zip", "json", False)
    assert started.status in ("PENDING", "RUNNING", "COMPLETED")
    done = client.wait_for_export(photos_dataset.id, export_id, timeout=TASK_TIMEOUT)
    assert (done.status, done.progress_percentage) == ("COMPLETED", 100) and done.download_uri
    assert client.export_status(photos_dataset.id, export_id).status == "COMPLETED"
    with zipfile.ZipFile(client.download(done.download_uri, tmp_path / "followed.zip")) as zipped:
        records = json.loads(zipped.read("metadata.json"))
    assert sorted(record["file_name"] for record in records) == sorted(path.name for path in PHOTOS.glob("*.jpg"))
    with pytest.raises(ApiError) as unknown:
        client.export_status(photos_dataset.id, uuid.uuid4())
    assert unknown.value.status_code == 404


def test_upload_files_sends_batches_of_50_under_the_names_given(client: Client, tmp_path: Path) -> None:
    # 51 files: two requests of the upload step, each file kept under the name it was sent as.
    files = []
    for index in range(51):
        path = tmp_path / f"{index:02}.jpg"
        path.write_bytes((PHOTOS / "rocket.jpg").read_bytes() + str(index).encode())
        files.append(path)
    names = [f"part-{index // 50}/{path.name}" for index, path in enumerate(files)]
    dataset_id = client.request("GET", "/ingestion/new_dataset", params={"dataset_name": unique("py-upload")})["dataset_id"]
    trans_id = client.request("GET", f"/ingestion/{dataset_id}/data_files")["trans_id"]
    assert sorted(client.upload_files(dataset_id, trans_id, files, names=names)) == names
    assert client.dataset(dataset_id).status_new == "UPLOADING"
    # Without names, base names.
    assert client.upload_files(dataset_id, trans_id, [PHOTOS / "coffee.jpg"]) == ["coffee.jpg"]
    client.delete_dataset(dataset_id)
    with pytest.raises(ApiError) as gone:
        client.dataset(dataset_id)
    assert gone.value.status_code == 404


def test_results_show_thumbnails_and_link_the_same_view_in_the_web_app(client: Client, photos_dataset: Dataset) -> None:
    explore = f"{client.url}/datasets/{photos_dataset.id}/explore"
    found = client.search_text(photos_dataset.id, "spacecraft launch")
    assert found.web_url == f"{explore}?caption=spacecraft+launch"
    shown = found._repr_html_()
    assert f'href="{html.escape(found.web_url, quote=True)}"' in shown and "open in the web app" in shown
    thumbnails = [row["thumbnail_uri"] for row in found.media()]
    assert thumbnails and all(f'src="{html.escape(uri, quote=True)}"' in shown for uri in thumbnails)
    # The notebook's browser loads them as they are: signed links, no key needed.
    loaded = httpx.get(thumbnails[0])
    assert loaded.status_code == 200 and loaded.headers["content-type"].startswith("image/")

    filtered = client.explore_all(photos_dataset.id, threshold=2, labels=["cat"], vql=vql.issue("blur"))
    query = parse_qs(urlsplit(filtered.web_url).query)
    assert query["threshold"] == ["2"] and "page" not in query
    assert json.loads(query["vql"][0]) == [{"issues": {"op": "issue", "value": "blur"}}, {"labels": {"op": "one_of", "value": ["cat"]}}]
    by_image = client.search_image(photos_dataset.id, PHOTOS / "coffee.jpg")
    query = parse_qs(urlsplit(by_image.web_url).query)
    assert query["anchor_type"] == ["UPLOAD"] and uuid.UUID(query["similar_to"][0])
    # A dataset shows its name, counts and the same link's page.
    assert f'href="{explore}"' in photos_dataset._repr_html_() and photos_dataset.display_name in photos_dataset._repr_html_()
