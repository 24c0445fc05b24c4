"""Tests against a running service: MDS_URL (and MDS_API_KEY, MDS_API_SECRET when it has auth on).

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
