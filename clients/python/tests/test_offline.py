"""Offline (no service): the API-key token against the spec's recipe, how a Client is set up, and retries of reads."""

import base64
import hashlib
import hmac
import json

import httpx
import pytest

from mds_client import ApiError, Client, MdsError
from mds_client.auth import ApiKeyAuth, sdk_token


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
