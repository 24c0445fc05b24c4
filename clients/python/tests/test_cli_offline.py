"""The ``mds`` command against a stand-in service (tests/fake_service.py): options before and after the command,
and a one-line message, never a traceback, for each way a user can get it wrong. Needs no real service."""

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any, Dict, List

import pytest

from fake_service import fake_service

MDS = str(Path(sys.executable).with_name("mds"))
DATASET_ID = str(uuid.uuid4())
TASK_ID = str(uuid.uuid4())
PHOTO = Path(__file__).resolve().parents[3] / "test" / "fixtures" / "photos" / "rocket.jpg"


OPERATIONS = [
    "add_media", "reindex", "import_metadata", "propagate_labels", "edit_labels", "check_labels", "curate",
    "review_duplicates", "enrich", "export", "snapshot", "restore", "clone", "delete",
]  # fmt: skip


def dataset(name: str = "pets", dataset_id: str = DATASET_ID) -> Dict[str, Any]:
    return {
        "id": dataset_id, "display_name": name, "status": "READY", "status_new": "READY", "progress": 100,
        "owned_by": "me", "created_at": "2026-12-06T10:00:00Z", "n_images": 3, "n_videos": 0,
        "operations": {operation: {"can_start": True, "refusal": None} for operation in OPERATIONS},
    }  # fmt: skip


def task(status: str, message: str, progress: int) -> Dict[str, Any]:
    return {
        "task_id": TASK_ID, "dataset_id": DATASET_ID, "dataset_name": "pets", "dataset_status": "INDEXING", "created_by": "me",
        "task_type": "DATASET_CREATION", "status": status, "status_message": message, "progress_percentage": progress,
        "error_message": None, "start_time": "2026-12-06T10:00:00Z", "end_time": None, "can_abort": False,
        "abort_refusal": None, "can_retry": False, "retry_refusal": None,
    }  # fmt: skip


def mds(*args: str, env: Dict[str, str] = None, input: str = None) -> subprocess.CompletedProcess:
    # MDS_URL points nowhere: an option the command ignores would show as "Cannot reach http://127.0.0.1:9".
    environment = {**os.environ, "MDS_URL": "http://127.0.0.1:9", "MDS_API_KEY": "", "MDS_API_SECRET": "", **(env or {})}
    return subprocess.run([MDS, *args], capture_output=True, text=True, env=environment, timeout=60, input=input)


def paths(seen: List[Dict[str, Any]]) -> List[str]:
    return [request["path"].split("?")[0] for request in seen]


def one_line(result: subprocess.CompletedProcess, kind: str = "error") -> str:
    """The one line ``mds`` printed on stderr (``mds: error: …`` or ``mds: warning: …``), never a traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    printed = result.stderr.strip().splitlines()
    assert len(printed) == 1 and printed[0].startswith(f"mds: {kind}: "), result.stderr
    return printed[0]


@pytest.mark.parametrize(
    "order",
    [
        ["--url", "{url}", "--no-progress", "datasets", "--json"],
        ["datasets", "--url", "{url}", "--json", "--no-progress"],
        ["--no-progress", "datasets", "--url", "{url}", "--json"],
    ],
    ids=["before", "after", "both"],
)
def test_global_options_work_before_and_after_the_command(order: List[str]) -> None:
    with fake_service({"/api/v1/datasets": (200, "application/json", [dataset()])}) as (url, seen):
        listed = mds(*[part.format(url=url) for part in order])
    assert listed.returncode == 0, listed.stderr
    assert [item["id"] for item in json.loads(listed.stdout)] == [DATASET_ID]
    assert paths(seen) == ["/api/v1/datasets"]


def test_no_progress_before_the_command_hides_the_bars() -> None:
    calls = {"n": 0}

    def one_task(_: str):
        calls["n"] += 1
        return 200, "application/json", task("COMPLETED", "Done", 100)

    routes = ingestion_routes()
    routes[f"/api/v1/tasks/{TASK_ID}"] = one_task
    with fake_service(routes) as (url, _):
        quiet = mds("--url", url, "--no-progress", "create", "pets", str(PHOTO), "--wait")
        loud = mds("--url", url, "create", "pets", str(PHOTO), "--wait")
    assert quiet.returncode == 0 and loud.returncode == 0, quiet.stderr + loud.stderr
    assert "upload" not in quiet.stderr and "%" not in quiet.stderr
    assert "upload" in loud.stderr


def ingestion_routes() -> Dict[str, Any]:
    return {
        "/api/v1/ingestion/new_dataset": (200, "application/json", {"dataset_id": DATASET_ID}),
        f"/api/v1/ingestion/{DATASET_ID}/data_files": (200, "application/json", {"trans_id": 1}),
        f"/api/v1/ingestion/{DATASET_ID}/data_files/1": (202, "application/json", {"trans_id": 1, "files": ["rocket.jpg"]}),
        f"/api/v1/ingestion/{DATASET_ID}/process_files/1": (202, "application/json", {"task_id": TASK_ID}),
        f"/api/v1/dataset/{DATASET_ID}": (200, "application/json", dataset()),
    }


def test_create_takes_a_single_media_file(tmp_path: Path) -> None:
    with fake_service(ingestion_routes()) as (url, seen):
        created = mds("--url", url, "create", "pets", str(PHOTO))
    assert created.returncode == 0, created.stderr
    assert created.stdout.strip() == DATASET_ID
    assert f"/api/v1/ingestion/{DATASET_ID}/data_files/1" in paths(seen)


def test_create_names_what_a_file_that_is_no_media_is(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not an image")
    for refused in (mds("create", "pets", str(notes)), mds("add", DATASET_ID, str(notes))):
        assert refused.returncode == 1
        assert "is neither a folder, an archive (.zip, .tar, .tar.gz) nor a media file" in one_line(refused)
    missing = mds("create", "pets", str(tmp_path / "nowhere"))
    assert missing.returncode == 1 and one_line(missing) == f"mds: error: {tmp_path / 'nowhere'} does not exist"


def test_an_address_without_a_scheme_is_http() -> None:
    with fake_service({"/api/v1/datasets": (200, "application/json", [dataset()])}) as (url, seen):
        listed = mds("--url", url.replace("http://", ""), "datasets")
    assert listed.returncode == 0, listed.stderr
    assert paths(seen) == ["/api/v1/datasets"]
    other = mds("--url", "ftp://example.com", "datasets")
    assert other.returncode == 1 and one_line(other) == "mds: error: ftp://example.com is not an http:// or https:// address"
    # The "localhost:48080": http, not a scheme named localhost (nothing listens on port 9).
    local = mds("--url", "localhost:9", "datasets")
    assert local.returncode == 1 and one_line(local).startswith("mds: error: Cannot reach http://localhost:9")


def test_an_address_answering_html_is_not_the_service() -> None:
    page = "<!doctype html><html><body>Welcome to nginx</body></html>"
    with fake_service({"*": (200, "text/html", page)}) as (url, _):
        answered = mds("--url", url, "datasets")
    assert answered.returncode == 1
    assert "answered GET /api/v1/datasets with text/html, not the media dataset service's JSON" in one_line(answered)
    assert "JSONDecodeError" not in answered.stderr


@pytest.mark.parametrize("listing", [["datasets"], ["datasets", "--json"]], ids=["table", "json"])
def test_a_closed_pipe_ends_quietly(listing: List[str]) -> None:
    # Far more than a pipe holds, so mds is still writing when head has gone.
    many = [dataset(f"set-{number}", str(uuid.uuid4())) for number in range(3000)]
    with fake_service({"/api/v1/datasets": (200, "application/json", many)}) as (url, _):
        piped = subprocess.run(
            ["bash", "-c", f"set -o pipefail; '{MDS}' --url {url} {' '.join(listing)} | head -1"],
            capture_output=True, text=True, timeout=60, env={**os.environ, "MDS_API_KEY": "", "MDS_API_SECRET": ""},
        )  # fmt: skip
    assert len(piped.stdout.splitlines()) == 1
    assert piped.stderr == ""
    # mds's own status (pipefail): 128 + SIGPIPE, as `yes | head -1` ends.
    assert piped.returncode == 141


def test_a_key_sent_to_a_service_with_authentication_off_is_a_warning() -> None:
    routes = {
        "/api/v1/auth/session": (200, "application/json", {"user": None, "auth_enabled": False, "password_login": False, "oidc_login_url": None}),
        "/api/v1/datasets": (200, "application/json", [dataset()]),
    }
    with fake_service(routes) as (url, seen):
        listed = mds("--url", url, "--api-key", "key-1", "--api-secret", "secret-1", "datasets")
    assert listed.returncode == 0, listed.stderr
    assert "has authentication off: the API key is not checked" in one_line(listed, "warning")
    assert listed.stdout.splitlines()[1].startswith(DATASET_ID)
    # The question goes without the key.
    session = next(request for request in seen if request["path"] == "/api/v1/auth/session")
    assert "Authorization" not in session["headers"]


def test_names_cannot_drive_the_terminal() -> None:
    hostile = "pets\x1b]0;owned\x07\r\x1b[2KFAKE LINE\u202e"
    with fake_service({"/api/v1/datasets": (200, "application/json", [dataset(hostile)])}) as (url, _):
        table = mds("--url", url, "datasets")
        as_json = mds("--url", url, "datasets", "--json")
    assert table.returncode == 0, table.stderr
    assert "\x1b" not in table.stdout and "\r" not in table.stdout and "\u202e" not in table.stdout
    assert "pets\\x1b]0;owned\\x07\\r\\x1b[2KFAKE LINE\\u202e" in table.stdout
    assert "\x1b" not in as_json.stdout and json.loads(as_json.stdout)[0]["display_name"] == hostile


def test_errors_from_the_service_are_escaped_too() -> None:
    with fake_service({"*": (404, "application/json", {"detail": "No dataset \x1b[31mred\r"})}) as (url, _):
        failed = mds("--url", url, "datasets")
    assert failed.returncode == 1
    assert "mds: error: 404: No dataset \\x1b[31mred\\r" in failed.stderr and "\x1b" not in failed.stderr


def test_progress_shows_the_tasks_stage() -> None:
    answers = iter([task("RUNNING", "Clustering (1/1)", 92), task("COMPLETED", "Done", 100)])
    last = {"task": None}

    def one_task(_: str):
        last["task"] = next(answers, last["task"])
        return 200, "application/json", last["task"]

    routes = ingestion_routes()
    routes[f"/api/v1/tasks/{TASK_ID}"] = one_task
    with fake_service(routes) as (url, _):
        created = mds("--url", url, "create", "pets", str(PHOTO), "--wait")
    assert created.returncode == 0, created.stderr
    assert "DATASET_CREATION: Clustering (1/1)" in created.stderr
    assert "DATASET_CREATION COMPLETED" in created.stderr


def test_text_search_that_finds_nothing_says_why() -> None:
    hint = "This dataset has no captions and no concept vectors, which text search reads: enrich a copy with a captioning model."
    routes = {f"/api/v1/explore/{DATASET_ID}": (200, "application/json", {"clusters": [], "metadata": {"used_duckdb": False, "hint": hint}})}
    with fake_service(routes) as (url, _):
        found = mds("--url", url, "search", DATASET_ID, "--text", "a dog on a beach", "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout) == []
    assert f"no results: {hint}" in found.stderr


def test_delete_needs_yes_when_not_at_a_terminal() -> None:
    with fake_service({f"/api/v1/dataset/{DATASET_ID}": (200, "application/json", dataset())}) as (url, seen):
        refused = mds("--url", url, "delete", DATASET_ID, input="")
    assert refused.returncode == 1 and "needs --yes when not at a terminal" in refused.stderr
    assert all(request["method"] == "GET" for request in seen)


def test_reindex_follows_the_task_its_answer_locates() -> None:
    """The 202 has the contract's empty body; the task is read from its Location, not guessed from the task list."""
    answers = iter([task("INITIALIZING", "Queued", 0), task("RUNNING", "Clustering (1/1)", 50), task("COMPLETED", "Done", 100)])
    last = {"task": None}

    def one_task(_: str):
        last["task"] = {**next(answers, last["task"]), "task_type": "REINDEX"}
        return 200, "application/json", last["task"]

    routes = {
        f"/api/v1/dataset/{DATASET_ID}/reindex": (202, "text/plain", b"", {"Location": f"/api/v1/tasks/{TASK_ID}"}),
        f"/api/v1/tasks/{TASK_ID}": one_task,
    }
    with fake_service(routes) as (url, seen):
        reindexed = mds("--url", url, "reindex", DATASET_ID)
        shown = mds("--url", url, "task", TASK_ID, "--json")
    assert reindexed.returncode == 0, reindexed.stderr
    assert reindexed.stdout.strip() == TASK_ID
    assert "REINDEX: Clustering (1/1)" in reindexed.stderr
    assert json.loads(shown.stdout)["task_type"] == "REINDEX"
    assert "/api/v1/tasks" not in paths(seen)


def test_a_202_without_the_tasks_location_is_not_the_service() -> None:
    with fake_service({f"/api/v1/dataset/{DATASET_ID}/reindex": (202, "text/plain", b"")}) as (url, _):
        refused = mds("--url", url, "reindex", DATASET_ID)
    assert refused.returncode == 1 and "without the started task's Location" in refused.stderr


def test_media_brief_reads_every_page_of_the_listing() -> None:
    items = [
        {
            "media_id": str(uuid.UUID(int=index)), "file_name": f"cats/{index}.jpg", "kind": "IMAGE", "video_id": None,
            "class": "cats", "size_bytes": 100 + index, "width": 8, "height": 8, "discarded": False, "created_at": "2026-12-06T10:00:00Z",
        }  # fmt: skip
        for index in range(1001)
    ]

    def listing(path: str):
        page = int(path.split("page=")[1].split("&")[0])
        return 200, "application/json", {"media": items[(page - 1) * 1000 : page * 1000], "total": len(items), "page": page, "page_size": 1000}

    with fake_service({f"/api/v1/dataset/{DATASET_ID}/media": listing}) as (url, seen):
        listed = mds("--url", url, "media", DATASET_ID, "--brief", "--json")
        table = mds("--url", url, "media", DATASET_ID, "--brief")
    assert listed.returncode == 0, listed.stderr
    assert [item["file_name"] for item in json.loads(listed.stdout)] == [item["file_name"] for item in items]
    assert json.loads(listed.stdout)[0]["class"] == "cats"
    assert paths(seen).count(f"/api/v1/dataset/{DATASET_ID}/media") == 4
    assert table.stdout.splitlines()[0].split() == ["MEDIA", "KIND", "FILE", "CLASS", "BYTES"]


def test_add_labels_from_without_a_labels_file_is_one_line(tmp_path: Path) -> None:
    refused = mds("add", DATASET_ID, str(PHOTO), "--labels-from", "csv")
    assert refused.returncode == 1 and refused.stderr.strip() == "mds: error: --labels-from csv or coco goes with --labels FILE"


EXPORT_FORMATS = [
    {"name": "json", "title": "JSON", "description": "metadata.json", "metadata_file": "metadata.json", "always_includes_images": False, "needs_label_field": False},
    {"name": "tiles", "title": "Tiles", "description": "a format this client has never heard of", "metadata_file": "tiles.json", "always_includes_images": True, "needs_label_field": False},
]  # fmt: skip


def test_export_formats_come_from_the_service() -> None:
    routes = {"/api/v1/export-formats": (200, "application/json", EXPORT_FORMATS)}
    with fake_service(routes) as (url, seen):
        listed = mds("--url", url, "export-formats")
        refused = mds("--url", url, "export", DATASET_ID, "--format", "coco", "--out", "never.zip")
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[0] for line in listed.stdout.splitlines()[1:]] == ["json", "tiles"]
    assert refused.returncode == 1
    assert refused.stderr.strip() == "mds: error: export_format must be one of json, tiles (got coco)"
    assert paths(seen) == ["/api/v1/export-formats", "/api/v1/export-formats"]


def test_an_export_takes_a_format_only_the_service_knows(tmp_path: Path) -> None:
    routes = {
        "/api/v1/export-formats": (200, "application/json", EXPORT_FORMATS),
        f"/api/v1/dataset/{DATASET_ID}/export_context_async": (200, "application/json", {"id": TASK_ID}),
        f"/api/v1/dataset/{DATASET_ID}/export_status": (200, "application/json", {
            "status": "COMPLETED", "download_uri": None, "progress_percentage": 100, "error_message": None,
            "file_name": "tiles.zip", "export_format": "tiles", "include_images": True, "selection": None,
        }),
    }  # fmt: skip
    with fake_service(routes) as (url, seen):
        exported = mds("--url", url, "export", DATASET_ID, "--format", "tiles", "--out", str(tmp_path / "tiles.zip"))
    # The status has no link: the command stops there, after asking for the format the service listed.
    assert exported.returncode == 1 and "completed without a download link" in exported.stderr
    assert any("export_format=tiles" in request["path"] for request in seen)
