"""Tests against a running service: MDS_URL (and MDS_API_KEY, MDS_API_SECRET when it has auth on), and
MDS_TEST_COLLEAGUE, the email of another account of it, to share datasets with.

test/integration/pythonClient.test.ts starts the real API and worker, mints an API key and runs
this suite; without MDS_URL the tests that need a service are skipped.
"""

import json
import os
import uuid
from pathlib import Path
from typing import Iterator

import pytest

from mds_client import Client, Dataset

REPO_ROOT = Path(__file__).resolve().parents[3]
PHOTOS = Path(os.environ.get("MDS_TEST_PHOTOS", REPO_ROOT / "test" / "fixtures" / "photos"))
# Indexing eight photos takes seconds; a loaded machine gets room.
TASK_TIMEOUT = 300.0


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def client() -> Iterator[Client]:
    if not os.environ.get("MDS_URL"):
        pytest.skip("MDS_URL is not set: these tests need a running service")
    with Client(progress=False) as client:
        yield client


@pytest.fixture(scope="session")
def colleague(client: Client) -> str:
    email = os.environ.get("MDS_TEST_COLLEAGUE")
    if not email:
        pytest.skip("MDS_TEST_COLLEAGUE is not set: sharing needs a second account of the service")
    return email


@pytest.fixture(scope="session")
def photos_dataset(client: Client) -> Dataset:
    """The fixture photos as one READY dataset, with captions imported so text search finds them."""
    dataset = client.create_dataset(unique("py-photos"), PHOTOS, wait=True, timeout=TASK_TIMEOUT)
    captions = [
        {"file_name": "rocket.jpg", "caption": "A rocket on the launch pad"},
        {"file_name": "coffee.jpg", "caption": "A cup of espresso on a saucer"},
        {"file_name": "chelsea.jpg", "caption": "A tabby cat resting on a red sofa"},
    ]
    metadata = Path(os.environ.get("TMPDIR", "/tmp")) / f"{unique('captions')}.json"
    metadata.write_text(json.dumps(captions))
    try:
        client.import_metadata(dataset.id, metadata)
    finally:
        metadata.unlink()
    return client.dataset(dataset.id)


@pytest.fixture(scope="session")
def with_a_mislabel(client: Client, tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    """Two classes by folder, one of them holding a planted mislabel: things/rocket-4.jpg is the rocket of space/ (its
    bytes with others after its end: another file, the same picture), so the label check suggests space for it, and
    the four rockets are one cluster and one duplicate group. Tests that change it undo what they did."""
    folder = tmp_path_factory.mktemp("mislabelled")
    rocket = (PHOTOS / "rocket.jpg").read_bytes()
    files = {
        "space": {"rocket.jpg": rocket, "rocket-2.jpg": rocket + b"\0copy 2", "rocket-3.jpg": rocket + b"\0copy 3"},
        "things": {"rocket-4.jpg": rocket + b"\0planted"},
    }
    for label, names in {"space": ("hubble_deep_field.jpg", "astronaut.jpg"), "things": ("coffee.jpg", "camera.jpg", "motorcycle_left.jpg")}.items():
        files[label].update({name: (PHOTOS / name).read_bytes() for name in names})
    for label, contents in files.items():
        (folder / label).mkdir()
        for name, data in contents.items():
            (folder / label / name).write_bytes(data)
    return client.create_dataset(unique("py-mislabelled"), folder, labels_from_folders=True, wait=True, timeout=TASK_TIMEOUT)
