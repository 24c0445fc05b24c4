"""Offline (no service): the API-key token against the spec's recipe, how a Client is set up, and retries of reads."""

import base64
import hashlib
import hmac
import inspect
import json
import re

import httpx
import pytest

from mds_client import ApiError, Client, MdsError
from mds_client.auth import ApiKeyAuth, sdk_token
from mds_client.dataset import DatasetCalls


def decode(part: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def test_token_is_an_hs256_jwt_of_the_key() -> None:
    token = sdk_token("key-1", "secret-1", now=1_700_000_000)
    header, payload, signature = token.split(".")
    assert decode(header) == {"alg": "HS256", "typ": "JWT", "kid": "key-1"}
    assert decode(payload) == {"sub": "key-1", "iss": "sdk", "iat": 1_700_000_000, "exp": 1_700_000_600}
    expected = hmac.new(b"secret-1", f"{header}.{payload}".encode(), hashlib.sha256).digest()
    assert base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)) == expected


def test_token_is_reused_until_it_nears_expiry() -> None:
    auth = ApiKeyAuth("key-1", "secret-1")
    assert auth.token() == auth.token()


def test_a_key_without_its_secret_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MDS_API_SECRET", raising=False)
    with pytest.raises(MdsError, match="needs its secret"):
        Client("http://127.0.0.1:1", api_key="key-1")


def test_the_apis_root_names_the_service_too() -> None:
    with Client("http://localhost:8080/api/v1/", progress=False) as client:
        assert client.url == "http://localhost:8080"


def test_reads_wait_out_a_503_with_retry_after_and_writes_do_not() -> None:
    answers = []

    def service(request: httpx.Request) -> httpx.Response:
        answers.append(request.method)
        if len(answers) == 1 or request.method == "POST":
            return httpx.Response(503, headers={"Retry-After": "0"}, json={"detail": "Database unavailable"})
        return httpx.Response(200, json=[])

    with Client("http://mds.test", progress=False, transport=httpx.MockTransport(service)) as client:
        assert client.datasets() == []
        assert answers == ["GET", "GET"]
        with pytest.raises(ApiError) as refused:
            client.request("POST", "/ingestion/x/process_files/1")
    assert (refused.value.status_code, refused.value.detail) == (503, "Database unavailable")
    assert answers == ["GET", "GET", "POST"]


def test_files_are_sent_under_their_paths_below_the_folder_given(tmp_path) -> None:
    from mds_client.client import sent_names

    for relative in ("cats/0001.jpg", "dogs/0001.jpg", "pets/cats/0002.jpg", "top.jpg"):
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_bytes(b"")
    files = [tmp_path / "cats/0001.jpg", tmp_path / "dogs/0001.jpg", tmp_path / "pets/cats/0002.jpg", tmp_path / "top.jpg"]
    # The same name in two folders is two files; a file directly in the folder given has no folder, so no label.
    relative = ["cats/0001.jpg", "dogs/0001.jpg", "pets/cats/0002.jpg", "top.jpg"]
    assert sent_names(files, tmp_path) == relative
    assert sent_names(files, tmp_path, labels_from_folders=True) == relative
    # A list of files: base names, or each one's own folder with labels from folders.
    assert sent_names(files, None) == ["0001.jpg", "0001.jpg", "0002.jpg", "top.jpg"]
    assert sent_names(files, None, labels_from_folders=True) == ["cats/0001.jpg", "dogs/0001.jpg", "cats/0002.jpg", f"{tmp_path.name}/top.jpg"]
    with pytest.raises(MdsError, match="No file is in a folder"):
        sent_names([tmp_path / "top.jpg"], tmp_path, labels_from_folders=True)


def test_an_address_without_a_scheme_is_http_and_other_schemes_are_refused() -> None:
    from mds_client.client import service_url

    assert service_url("localhost:48080") == "http://localhost:48080"
    assert service_url(" https://mds.example/api/v1/ ") == "https://mds.example"
    with pytest.raises(MdsError, match="is not an http:// or https:// address"):
        service_url("ftp://mds.example")


def test_an_html_answer_is_not_the_service() -> None:
    from mds_client import NotTheService

    page = httpx.MockTransport(lambda request: httpx.Response(200, headers={"content-type": "text/html"}, text="<html>nginx</html>"))
    with Client("http://mds.test", progress=False, transport=page) as client:
        with pytest.raises(NotTheService, match="with text/html, not the media dataset service's JSON"):
            client.datasets()


def test_the_bearer_token_goes_to_the_services_own_origin_only(tmp_path) -> None:
    seen = {}

    def anywhere(request: httpx.Request) -> httpx.Response:
        seen[request.url.host + ":" + str(request.url.port)] = request.headers.get("authorization")
        return httpx.Response(200, content=b"PK")

    with Client("http://mds.test:8080", "key-1", "secret-1", progress=False, transport=httpx.MockTransport(anywhere)) as client:
        client.download("http://mds.test:8080/api/v1/exports/t/a.zip?expires=1&signature=abc", tmp_path / "own.zip")
        client.download("http://mds.test:9999/api/v1/exports/t/a.zip?expires=1&signature=abc", tmp_path / "port.zip")
        client.download("http://elsewhere.test:8080/a.zip?signature=abc", tmp_path / "host.zip")
    assert seen["mds.test:8080"].startswith("Bearer ")
    assert seen["mds.test:9999"] is None and seen["elsewhere.test:8080"] is None


def test_a_failed_download_does_not_print_the_signed_link(tmp_path) -> None:
    from mds_client import ConnectionFailed

    with Client("http://127.0.0.1:9", progress=False) as client:
        with pytest.raises(ConnectionFailed) as failed:
            client.download("http://127.0.0.1:9/api/v1/exports/t/a.zip?expires=1&signature=SECRET", tmp_path / "a.zip")
    assert "SECRET" not in str(failed.value) and "http://127.0.0.1:9/api/v1/exports/t/a.zip?…" in str(failed.value)


def test_terminal_text_escapes_controls() -> None:
    from mds_client.terminal import printable

    assert printable("a\x1b[31mb\rc\nd\u202ee\x9bf") == "a\\x1b[31mb\\rc\\nd\\u202ee\\x9bf"
    assert printable("chat été 猫") == "chat été 猫"


def preview(media_id: str, name: str) -> dict:
    return {"type": "IMAGE", "media_id": media_id, "media_uri": "u", "media_thumb_uri": "t", "caption": None, "file_name": name,
            "bounding_box": None, "width": 1, "height": 1, "class": "coat" if name.startswith("a") else None}  # fmt: skip


def cluster(cluster_id: str, previews: list, n_images: int) -> dict:
    return {"cluster_id": cluster_id, "type": "IMAGES", "n_images": n_images, "n_objects": 0, "n_videos": 0, "similarity_threshold": "0",
            "captions": None, "previews": previews, "labels": None, "classes": None, "user_tags": None}  # fmt: skip


def test_to_pandas_has_one_row_per_media_item_and_keeps_its_columns_when_empty() -> None:
    import uuid

    from mds_client import ExploreResult

    empty = ExploreResult.model_validate({"clusters": [], "metadata": {"used_duckdb": False}}).to_pandas()
    assert len(empty) == 0 and {"media_id", "file_name", "cluster_id", "caption"} <= set(empty.columns)
    ids = [str(uuid.uuid4()) for _ in range(3)]
    result = ExploreResult.model_validate(
        {"clusters": [cluster(str(uuid.uuid4()), [preview(ids[0], "a.jpg"), preview(ids[1], "b.jpg")], 2), cluster(str(uuid.uuid4()), [preview(ids[2], "c.jpg")], 1)],
         "metadata": {"used_duckdb": False}}  # fmt: skip
    )
    table = result.to_pandas()
    assert list(table["media_id"]) == ids
    assert list(table["class"].fillna("-")) == ["coat", "-", "-"]


def test_explore_media_lists_every_member_of_a_cluster_past_its_previews() -> None:
    import uuid

    dataset_id, cluster_id = str(uuid.uuid4()), str(uuid.uuid4())
    members = [preview(str(uuid.uuid4()), f"{number:02}.jpg") for number in range(25)]
    blurred = {member["media_id"] for member in members[::2]}

    def service(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        vql = request.url.params.get("vql")
        if path.endswith(f"/explore/{dataset_id}"):
            shown = [m for m in members if not vql or m["media_id"] in blurred]
            page = int(request.url.params["page_number"])
            clusters = [cluster(cluster_id, shown[:10], len(shown))] if page == 0 else []
            return httpx.Response(200, json={"clusters": clusters, "metadata": {"used_duckdb": False}})
        if path.endswith(f"/clusters/{cluster_id}/media"):
            return httpx.Response(200, json={"cluster_id": cluster_id, "similarity_threshold": "0", "n_media": 25, "media": members})
        media_id = path.rsplit("/", 1)[-1]
        facts = {"media_id": media_id, "kind": "IMAGE", "file_name": "x", "size_bytes": 1, "width": 1, "height": 1, "caption": None, "labels": [],
                 "class": None, "tags": [], "issues": ["blur"] if media_id in blurred else [], "mislabel": None, "leakage": None}  # fmt: skip
        return httpx.Response(200, json=facts)

    from mds_client import vql

    with Client("http://mds.test", progress=False, transport=httpx.MockTransport(service)) as client:
        every = client.explore_media(dataset_id).to_pandas()
        assert sorted(every["media_id"]) == sorted(m["media_id"] for m in members)
        only_blurred = client.explore_media(dataset_id, vql=vql.issue("blur")).to_pandas()
        assert sorted(only_blurred["media_id"]) == sorted(blurred)
        with pytest.warns(Warning, match="matching media are not listed"):
            client.explore_media(dataset_id, vql=vql.uniqueness(0.5))


def test_the_vql_builder_writes_the_apis_elements() -> None:
    from mds_client import vql

    combined = vql.issue("mislabel", suggested_label="dog") & vql.ground_truth("cat") & vql.tags("0b1c")
    assert json.loads(combined.json()) == [
        {"issues": {"op": "issue", "value": "mislabel", "details": {"suggested_label": ["dog"]}}},
        {"ground_truth": {"op": "one_of", "value": ["cat"]}},
        {"tags": {"op": "is", "value": ["0b1c"]}},
    ]
    with pytest.raises(ValueError):
        vql.issue("smudge")


def test_map_points_read_every_page_and_refuse_a_new_layout_midway(monkeypatch: pytest.MonkeyPatch) -> None:
    import struct
    import uuid

    from mds_client import curation

    # Five points over pages of two, their ids asked three at a time.
    monkeypatch.setattr(curation, "MAP_SELECTION_SIZE", 3)
    dataset_id, layout = str(uuid.uuid4()), str(uuid.uuid4())
    ids = [str(uuid.uuid4()) for _ in range(5)]
    layouts = {"now": layout}

    # The map is being laid out when first asked (its MAP_LAYOUT task runs after the dataset is READY), then ready.
    from mds_client import client as client_module

    monkeypatch.setattr(client_module, "POLL_SECONDS", 0)
    summaries = iter(["laying_out", "ready"])

    def service(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/auth/session"):  # asked once when MDS_API_KEY is set
            return httpx.Response(200, json={"auth_enabled": True})
        if request.url.path.endswith("/map"):
            return httpx.Response(200, json={"layout_status": next(summaries, "ready")})
        if request.url.path.endswith("/map/points"):
            assert next(summaries, None) is None, "points read while the map was being laid out"
            offset = int(request.url.params["offset"])
            indices = range(offset, min(5, offset + 2))
            n = len(indices)
            body = struct.pack(f"<{n}f{n}f", *[float(i) for i in indices], *[-float(i) for i in indices]) + bytes(4 * n)
            headers = {"X-Map-Points": str(n), "X-Map-Total": "5", "X-Map-Layout-Id": layouts["now"]}
            if offset == 2 and "relaid" in layouts:
                headers["X-Map-Layout-Id"] = layouts["relaid"]
            return httpx.Response(200, content=body, headers=headers)
        asked = json.loads(request.content)
        assert asked["layout_id"] == layout and len(asked["indices"]) <= 3
        return httpx.Response(200, json={"media_ids": [ids[i] for i in asked["indices"]]})

    with Client("http://mds.test", progress=False, transport=httpx.MockTransport(service)) as client:
        assert client.map_records(dataset_id) == [{"media_id": ids[i], "x": float(i), "y": -float(i)} for i in range(5)]
        layouts["relaid"] = str(uuid.uuid4())
        with pytest.raises(MdsError, match="laid out anew"):
            client.map_records(dataset_id)


def test_each_dataset_call_is_typed_as_the_client_call_it_makes() -> None:
    """``ds.duplicates()`` is annotated as ``client.duplicates(ds.id)`` is, so an editor completes both alike."""
    checked = 0
    for name, call in vars(DatasetCalls).items():
        made = re.search(r"self\.client\.(\w+)\(self\.id", inspect.getsource(call)) if inspect.isfunction(call) else None
        if made:
            assert call.__annotations__["return"] == getattr(Client, made.group(1)).__annotations__["return"], name
            checked += 1
    assert checked >= 60
