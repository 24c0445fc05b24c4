"""The client: one object per service address and credentials, the calls a notebook needs."""

from __future__ import annotations

import json
import mimetypes
import os
import re
import tarfile
import tempfile
import time
import warnings
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, TypeVar, Union
from uuid import UUID

import httpx

from .auth import ApiKeyAuth
from .curation import CurationCalls, without_none
from .errors import ApiError, ConnectionFailed, MdsError, MdsWarning, NotTheService, TaskFailed
from .models import (
    Anchor,
    Dataset,
    ExploreResult,
    ExportFormat,
    ExportStarted,
    ExportStatus,
    NewDataset,
    StartedTask,
    Task,
    TaskPage,
    Transaction,
    UploadedFiles,
)
from .progress import progress_bar
from .dataset import web_link
from .vql import Filter, elements, vql_json
from .vql import labels as labels_filter
from .vql import tags as tags_filter

DEFAULT_URL = "http://localhost:8080"
API_PREFIX = "/api/v1"
# The extensions the service ingests (lib/media/mediaTypes.ts); a folder's other files are skipped.
MEDIA_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".gif", ".tif", ".tiff", ".avif", ".mp4", ".mov", ".m4v", ".webm", ".mkv", ".avi")
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz")
# A read the API answers 503 (a dependency is down) or 429 with Retry-After is tried again this often,
# so a notebook waiting on a long task outlives a short outage; writes are never repeated.
READ_RETRIES = 5
MAX_RETRY_AFTER_SECONDS = 30.0
# Explore answers 100 clusters a page (the spec's Limits).
EXPLORE_PAGE_SIZE = 100
# The spec recommends about 50 files per upload request.
UPLOAD_BATCH_FILES = 50
# Waiting on a task reads it again after FIRST_POLL_SECONDS, then half as long again each time, up to POLL_SECONDS:
# a quick task is seen done at once, and a long one costs a request a second.
FIRST_POLL_SECONDS = 0.1
POLL_SECONDS = 1.0
# Where a 202 that started a task points: /api/v1/tasks/{task_id}.
TASK_LOCATION = re.compile(r"/tasks/([0-9a-fA-F-]{36})$")


def poll_delays() -> Iterator[float]:
    """The pauses between two reads of a task being waited on: FIRST_POLL_SECONDS, growing by half, at most POLL_SECONDS."""
    delay = FIRST_POLL_SECONDS
    while True:
        yield min(delay, POLL_SECONDS)
        delay *= 1.5

T = TypeVar("T")

PathLike = Union[str, "os.PathLike[str]"]
Id = Union[str, UUID]
Source = Union[PathLike, Sequence[PathLike]]


def is_media(path: Path) -> bool:
    return path.name.lower().endswith(MEDIA_SUFFIXES)


def is_archive(path: Path) -> bool:
    return path.name.lower().endswith(ARCHIVE_SUFFIXES)


def media_files(source: Source) -> List[Path]:
    """The media files of a folder (recursively, sorted, hidden ones left out), or a list of paths as given."""
    if isinstance(source, (str, os.PathLike)):
        folder = Path(source)
        if folder.is_file():
            if not is_media(folder):
                raise MdsError(f"{folder} is neither a folder, an archive (.zip, .tar, .tar.gz) nor a media file ({', '.join(MEDIA_SUFFIXES)})")
            return [folder]
        if not folder.is_dir():
            raise MdsError(f"{folder} does not exist")
        files = sorted(path for path in folder.rglob("*") if path.is_file() and is_media(path) and not hidden(path.relative_to(folder)))
        if not files:
            raise MdsError(f"No media files in {folder} (supported: {', '.join(MEDIA_SUFFIXES)})")
        return files
    files = [Path(path) for path in source]
    for path in files:
        if not path.is_file():
            raise MdsError(f"{path} is not a file")
    return files


def sent_names(files: Sequence[Path], root: Optional[Path], labels_from_folders: bool = False) -> List[str]:
    """The name each file is sent under, which the dataset keeps: its path below ``root`` (``cats/0001.jpg``, so the same
    name in two folders is two files), or for a list of files its base name (``<folder>/<name>`` with ``labels_from_folders``,
    the folder being its label; files directly in ``root`` have none)."""
    if root is not None:
        names = [path.relative_to(root).as_posix() for path in files]
    else:
        names = [f"{path.parent.name}/{path.name}" if labels_from_folders and path.parent.name else path.name for path in files]
    if labels_from_folders and not any("/" in name for name in names):
        raise MdsError("No file is in a folder: labels from folders need a layout such as cats/1.jpg, dogs/2.jpg")
    return names


def hidden(relative: Path) -> bool:
    """Dot files and folders, and the resource forks macOS puts in archives, are not the user's media."""
    return any(part.startswith(".") or part == "__MACOSX" for part in relative.parts)


@contextmanager
def extracted(archive: Path) -> Iterator[Path]:
    """The archive's contents in a temporary folder (creation takes files, not archives)."""
    with tempfile.TemporaryDirectory(prefix="mds-archive-") as folder:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(folder)  # zipfile drops absolute paths and ".." itself
        elif tarfile.is_tarfile(archive):
            with tarfile.open(archive) as tarred:
                members = [member for member in tarred.getmembers() if member.isfile() and safe_member(member.name)]
                if hasattr(tarfile, "data_filter"):  # 3.12+, and security releases of 3.9-3.11
                    tarred.extractall(folder, members=members, filter="data")
                else:  # pragma: no cover - older Pythons; members were checked above
                    tarred.extractall(folder, members=members)
        else:
            raise MdsError(f"{archive} is not a .zip or .tar archive")
        yield Path(folder)


def safe_member(name: str) -> bool:
    parts = Path(name).parts
    return not Path(name).is_absolute() and ".." not in parts


class _CountingReader:
    """A file whose reads advance a progress bar: upload progress as the bytes leave."""

    def __init__(self, file: IO[bytes], bar: Any) -> None:
        self._file = file
        self._bar = bar

    def read(self, size: int = -1) -> bytes:
        data = self._file.read(size)
        self._bar.update(len(data))
        return data

    def fileno(self) -> int:
        return self._file.fileno()

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._file.seek(offset, whence)

    def tell(self) -> int:
        return self._file.tell()


def service_url(url: str) -> str:
    """The service's address as given, with http:// when no scheme is (``localhost:8080``) and without a trailing /api/v1."""
    url = url.strip().rstrip("/")
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", url):
        url = f"http://{url}"
    scheme = url.split("://", 1)[0].lower()
    if scheme not in ("http", "https"):
        raise MdsError(f"{redact(url)} is not an http:// or https:// address")
    # The README's curl examples name the API's root (.../api/v1); the service's address is meant.
    if url.endswith(API_PREFIX):
        url = url[: -len(API_PREFIX)]
    return url


def redact(text: str) -> str:
    """``text`` with the query of every link in it cut (signed links carry their signature there)."""
    return re.sub(r"(https?://[^\s?#]+)\?[^\s]*", r"\1?…", text)


def origin(url: Union[str, httpx.URL]) -> tuple:
    parsed = httpx.URL(str(url))
    return (parsed.scheme, parsed.host, parsed.port or {"http": 80, "https": 443}.get(parsed.scheme))


class Client(CurationCalls):
    """The media dataset service at ``url`` (default ``MDS_URL``, else http://localhost:8080).

    With an API key (``api_key`` and ``api_secret``, default ``MDS_API_KEY`` and ``MDS_API_SECRET``)
    every request carries a bearer token signed with the secret; without one, none (a service with
    authentication off). Errors are ``ApiError`` with the status code and the API's ``detail``.
    """

    def __init__(
        self,
        url: Optional[str] = None,
        api_key: Optional[str] = None,
        api_secret: Optional[str] = None,
        *,
        timeout: float = 120.0,
        progress: bool = True,
        transport: Optional[httpx.BaseTransport] = None,
    ) -> None:
        self.url = service_url(url or os.environ.get("MDS_URL") or DEFAULT_URL)
        api_key = api_key or os.environ.get("MDS_API_KEY") or None
        api_secret = api_secret or os.environ.get("MDS_API_SECRET") or None
        if bool(api_key) != bool(api_secret):
            raise MdsError("An API key needs its secret: give both api_key and api_secret (MDS_API_KEY, MDS_API_SECRET)")
        self.progress = progress
        auth = ApiKeyAuth(api_key, api_secret) if api_key and api_secret else None
        # Whether the service was asked if it checks keys (once, on the first call with a key).
        self._auth_checked = auth is None
        self._export_formats: Optional[List[ExportFormat]] = None
        self._http = httpx.Client(base_url=self.url + API_PREFIX, auth=auth, timeout=timeout, follow_redirects=True, transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- HTTP ---------------------------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> Any:
        """One API call (``path`` under /api/v1); the decoded JSON body, or ``ApiError``.

        ``NotTheService`` when the address answers with something else than the API's JSON (a web page, another program)."""
        response = self._send(method, path, **kwargs)
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError:
            raise NotTheService(self._not_the_service(response, method, path)) from None

    def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One API call's response (reads answered 503/429 with Retry-After tried again), or ``ApiError``."""
        if not self._auth_checked:
            self._auth_checked = True
            self._warn_if_keys_are_unchecked()
        for attempt in range(READ_RETRIES + 1):
            try:
                response = self._http.request(method, path, **kwargs)
            except httpx.TransportError as error:
                raise ConnectionFailed(f"Cannot reach {self.url}: {redact(str(error))}") from error
            wait = _retry_after(response)
            if method != "GET" or wait is None or attempt == READ_RETRIES:
                break
            time.sleep(wait)
        if response.is_error:
            raise ApiError(response.status_code, _detail(response), method, API_PREFIX + path)
        return response

    def _start(self, method: str, path: str, **kwargs: Any) -> Task:
        """A call the API answers 202 with an empty body and the started task in ``Location`` (add_media, reindex, restore, clone): the task."""
        response = self._send(method, path, **kwargs)
        match = TASK_LOCATION.search(response.headers.get("location", ""))
        if match is None:
            raise NotTheService(f"{self.url} answered {method} {API_PREFIX}{path} without the started task's Location: is it the service, and up to date?")
        return self.task(match.group(1))

    def _not_the_service(self, response: httpx.Response, method: str, path: str) -> str:
        kind = response.headers.get("content-type", "no content type").split(";")[0]
        return f"{self.url} answered {method} {API_PREFIX}{path} with {kind}, not the media dataset service's JSON: is it the service's address (MDS_URL, --url)?"

    def _warn_if_keys_are_unchecked(self) -> None:
        """A key sent to a service with authentication off is accepted without being checked: say so once."""
        try:
            session = self._http.get("/auth/session", auth=None)
        except httpx.TransportError:
            return  # the call itself reports that the service cannot be reached
        try:
            body = session.json() if session.is_success else {}
        except ValueError:
            raise NotTheService(self._not_the_service(session, "GET", "/auth/session")) from None
        if isinstance(body, dict) and body.get("auth_enabled") is False:
            warnings.warn(
                f"{self.url} has authentication off: the API key is not checked, and every request acts as its default user",
                MdsWarning,
                stacklevel=4,
            )

    def _bind(self, dataset: Dataset) -> Dataset:
        dataset._client = self
        return dataset

    # -- datasets -----------------------------------------------------------------------------

    def datasets(self) -> List[Dataset]:
        """The caller's datasets, newest first."""
        return [self._bind(Dataset.model_validate(item)) for item in self.request("GET", "/datasets")]

    def dataset(self, dataset_id: Id) -> Dataset:
        """One dataset, as an object with the calls about it (``ds.media()``, ``ds.duplicates()``, ``ds.snapshot()``, …)."""
        return self._bind(Dataset.model_validate(self.request("GET", f"/dataset/{str(dataset_id)}")))

    def rename_dataset(self, dataset_id: Id, name: str) -> Dataset:
        return self._bind(Dataset.model_validate(self.request("PATCH", f"/dataset/{dataset_id}", json={"name": name})))

    def delete_dataset(self, dataset_id: Id) -> None:
        """Deletes the dataset (owner only): its versions, snapshots, tasks, views and exports go."""
        self.request("DELETE", f"/dataset/{dataset_id}")

    def reindex(self, dataset_id: Id, *, wait: bool = True, progress: Optional[bool] = None, timeout: Optional[float] = None) -> Task:
        """Re-clusters a PARTIAL INDEX dataset (a REINDEX task), followed to its end with ``wait``."""
        task = self._start("POST", f"/dataset/{dataset_id}/reindex")
        return self.wait_for_task(task, progress=progress, timeout=timeout) if wait else task

    def _started(self, dataset_id: Id, task_type: str, wait: bool, progress: Optional[bool], timeout: Optional[float]) -> Task:
        """The task a call answered 202 without an id for: the dataset's newest of its type (one runs at a time)."""
        listed = self.tasks(dataset_id, task_type=task_type, page_size=5).tasks
        if not listed:
            raise MdsError(f"The {task_type} task of dataset {dataset_id} is not listed")
        return self.wait_for_task(listed[0], progress=progress, timeout=timeout) if wait else listed[0]

    def create_dataset(
        self,
        name: str,
        source: Source,
        *,
        wait: bool = False,
        progress: Optional[bool] = None,
        timeout: Optional[float] = None,
        labels_from_folders: bool = False,
        label_field: str = "label",
        labels_file: Optional[Union[str, "os.PathLike[str]"]] = None,
        labels_from: Optional[str] = None,
    ) -> Dataset:
        """A dataset from a folder (its media files, recursively), a list of files, or a .zip/.tar archive.

        Uploads in batches with a progress bar, starts indexing (a DATASET_CREATION task) and, with
        ``wait``, follows the task to its end (``TaskFailed`` unless it completes). With
        ``labels_from_folders`` each file's folder (``cats`` for ``cats/1.jpg``) becomes its label in the
        custom-metadata field ``label_field``, checked for likely mislabels as part of indexing. With
        ``labels_file`` the labels come from a CSV of ``file,label[,split]`` rows or a COCO JSON file
        (``labels_from`` "csv" or "coco", by default from its extension), its rows naming the files by their
        path below the folder (``cats/0001.png``) or a base name only one file has.
        """
        labels_from = _labels_file_kind(labels_file, labels_from, labels_from_folders)
        path = Path(source) if isinstance(source, (str, os.PathLike)) else None
        if path is not None and path.is_file() and is_archive(path) and not is_media(path):
            with extracted(path) as folder:
                return self.create_dataset(
                    name,
                    folder,
                    wait=wait,
                    progress=progress,
                    timeout=timeout,
                    labels_from_folders=labels_from_folders,
                    label_field=label_field,
                    labels_file=labels_file,
                    labels_from=labels_from,
                )
        files = media_files(source)
        names = sent_names(files, path if path is not None and path.is_dir() else None, labels_from_folders)
        dataset_id = NewDataset.model_validate(self.request("GET", "/ingestion/new_dataset", params={"dataset_name": name})).dataset_id
        trans_id = Transaction.model_validate(self.request("GET", f"/ingestion/{dataset_id}/data_files")).trans_id
        self.upload_files(dataset_id, trans_id, files, progress=progress, names=names)
        if labels_file is not None:
            # The labels file goes with process_files, when every file it names has been uploaded (read whole: a retry sends it again).
            parts = [("labels", (Path(labels_file).name, Path(labels_file).read_bytes(), "application/octet-stream"))]
            params = {"labels_from": labels_from, "label_field": label_field}
            body = self.request("POST", f"/ingestion/{dataset_id}/process_files/{trans_id}", params=params, files=parts)
        else:
            params = {"labels_from": "folder", "label_field": label_field} if labels_from_folders else None
            body = self.request("POST", f"/ingestion/{dataset_id}/process_files/{trans_id}", params=params)
        started = StartedTask.model_validate(body)
        if wait:
            self.wait_for_task(started.task_id, progress=progress, timeout=timeout)
        return self.dataset(dataset_id)

    def add_media(
        self,
        dataset_id: Id,
        source: Source,
        *,
        auto_reindex: bool = False,
        wait: bool = True,
        progress: Optional[bool] = None,
        timeout: Optional[float] = None,
        labels_from_folders: bool = False,
        label_field: Optional[str] = None,
        labels_file: Optional[PathLike] = None,
        labels_from: Optional[str] = None,
    ) -> Task:
        """Adds media to an indexed dataset (a MEDIA_ADDITION task) from a folder (its media files, recursively), a list
        of files, or a .zip/.tar archive; files go up as one uncompressed .zip, so a batch of any size is one request.

        With ``auto_reindex`` the reindex follows. With ``labels_from_folders`` each new file's folder becomes its
        label in ``label_field`` (default: the field the dataset's labels are checked in, else ``label``), checked
        again as part of the batch. With ``labels_file`` the labels come from a CSV of ``file,label[,split]`` rows or a
        COCO JSON file (``labels_from`` "csv" or "coco", by default from its extension) naming the new files by their path
        below the folder or a base name only one has; the files then go up as files (the API reads such a file with
        uploads only), an archive unpacked here first. Returns the task, followed to its end with ``wait`` (``TaskFailed``
        unless it completes).
        """
        labels_from = _labels_file_kind(labels_file, labels_from, labels_from_folders)
        path = Path(source) if isinstance(source, (str, os.PathLike)) else None
        fields = without_none(
            auto_reindex="true" if auto_reindex else None,
            labels_from="folder" if labels_from_folders else labels_from,
            label_field=label_field if labels_from_folders or labels_file is not None else None,
        )
        if labels_file is not None and path is not None and path.is_file() and is_archive(path) and not is_media(path):
            with extracted(path) as folder:
                return self.add_media(
                    dataset_id, folder, auto_reindex=auto_reindex, wait=wait, progress=progress, timeout=timeout,
                    label_field=label_field, labels_file=labels_file, labels_from=labels_from,
                )  # fmt: skip
        if labels_file is not None:
            files = media_files(source)
            names = sent_names(files, path if path is not None and path.is_dir() else None)
            task = self._send_files(dataset_id, files, names, Path(labels_file), fields, progress)
        elif path is not None and path.is_file() and is_archive(path):
            task = self._send_archive(dataset_id, path, fields, progress)
        else:
            files = media_files(source)
            names = sent_names(files, path if path is not None and path.is_dir() else None, labels_from_folders)
            with tempfile.TemporaryDirectory(prefix="mds-batch-") as folder:
                archive = Path(folder) / "batch.zip"
                with zipfile.ZipFile(archive, "w", zipfile.ZIP_STORED) as zipped:
                    for file, name in zip(files, names):
                        zipped.write(file, name)
                task = self._send_archive(dataset_id, archive, fields, progress)
        if wait:
            return self.wait_for_task(task, progress=progress, timeout=timeout)
        return task

    def _send_files(self, dataset_id: Id, files: Sequence[Path], names: Sequence[str], labels: Path, fields: Dict[str, Any], progress: Optional[bool]) -> Task:
        """One add_media request of ``files`` (under ``names``) with the labels file naming them; the task it started."""
        with progress_bar(self._show(progress), total=sum(path.stat().st_size for path in files), unit="B", unit_scale=True, desc="upload") as bar:
            handles = [path.open("rb") for path in files]
            try:
                parts = [
                    ("files", (name, _CountingReader(handle, bar), mimetypes.guess_type(path.name)[0] or "application/octet-stream"))
                    for path, handle, name in zip(files, handles, names)
                ]
                parts.append(("labels", (labels.name, labels.read_bytes(), "application/octet-stream")))
                return self._start("POST", f"/dataset/{dataset_id}/add_media", data=fields, files=parts)
            finally:
                for handle in handles:
                    handle.close()

    def _send_archive(self, dataset_id: Id, archive: Path, fields: Dict[str, Any], progress: Optional[bool]) -> Task:
        with progress_bar(self._show(progress), total=archive.stat().st_size, unit="B", unit_scale=True, desc="upload") as bar:
            with archive.open("rb") as handle:
                parts = [("archive", (archive.name, _CountingReader(handle, bar), "application/octet-stream"))]
                return self._start("POST", f"/dataset/{dataset_id}/add_media", data=fields, files=parts)

    def upload_files(
        self, dataset_id: Id, trans_id: int, files: Sequence[Path], *, progress: Optional[bool] = None, names: Optional[Sequence[str]] = None
    ) -> List[str]:
        """Step 3 of creation: the files, ``UPLOAD_BATCH_FILES`` per request, sent under ``names`` (default: their base names); the stored names."""
        sent = list(names) if names is not None else [path.name for path in files]
        stored: List[str] = []
        total = sum(path.stat().st_size for path in files)
        with progress_bar(self._show(progress), total=total, unit="B", unit_scale=True, desc="upload") as bar:
            for start in range(0, len(files), UPLOAD_BATCH_FILES):
                batch = files[start : start + UPLOAD_BATCH_FILES]
                handles = [path.open("rb") for path in batch]
                try:
                    parts = [
                        ("files", (sent_name, _CountingReader(handle, bar), mimetypes.guess_type(path.name)[0] or "application/octet-stream"))
                        for path, handle, sent_name in zip(batch, handles, sent[start : start + UPLOAD_BATCH_FILES])
                    ]
                    body = self.request("POST", f"/ingestion/{dataset_id}/data_files/{trans_id}", files=parts)
                finally:
                    for handle in handles:
                        handle.close()
                stored.extend(UploadedFiles.model_validate(body).files)
        return stored

    def import_metadata(self, dataset_id: Id, file: PathLike, *, wait: bool = True, progress: Optional[bool] = None) -> Task:
        """Captions, labels and fields from a .json, .csv or .parquet file (a CUSTOM_METADATA task)."""
        path = Path(file)
        with path.open("rb") as handle:
            body = self.request("POST", f"/dataset/{dataset_id}/custom_metadata", files=[("file", (path.name, handle))])
        task_id = StartedTask.model_validate(body).task_id
        if wait:
            return self.wait_for_task(task_id, progress=progress)
        return self.task(task_id)

    # -- tasks --------------------------------------------------------------------------------

    def tasks(
        self,
        dataset_id: Optional[Id] = None,
        *,
        task_type: Optional[str] = None,
        status: Optional[str] = None,
        page: int = 1,
        page_size: int = 20,
    ) -> TaskPage:
        """One page of the task list, newest first."""
        params = without_none(dataset_id=dataset_id, task_type=task_type, task_status=status, page=page, page_size=page_size)
        return TaskPage.model_validate(self.request("GET", "/tasks", params=params))

    def task(self, task_id: Id, dataset_id: Optional[Id] = None) -> Task:
        """One task, as the task list shows it (``ApiError`` 404 unless it is of a dataset you may read).

        ``dataset_id`` is accepted for callers of earlier versions, which needed it; it is not used."""
        return Task.model_validate(self.request("GET", f"/tasks/{task_id}"))

    def wait_for_task(
        self,
        task: Union[Task, Id],
        dataset_id: Optional[Id] = None,
        *,
        progress: Optional[bool] = None,
        timeout: Optional[float] = None,
    ) -> Task:
        """Polls a task (a ``Task``, or its id) until it ends, with a progress bar; ``TaskFailed`` unless it COMPLETED.

        ``dataset_id`` is accepted for callers of earlier versions, which needed it; it is not used."""
        task_id = task.task_id if isinstance(task, Task) else task
        task = self._poll(
            lambda: self.task(task_id),
            lambda found: found.is_final,
            lambda found: found.progress_percentage,
            describe_task,
            lambda found: TaskFailed(f"Task {task_id} still {found.status} after {timeout} s", found),
            desc="task",
            progress=progress,
            timeout=timeout,
        )
        if task.status != "COMPLETED":
            raise TaskFailed(f"Task {task_id} ({task.task_type}) {task.status}: {task.error_message or task.status_message}", task)
        return task

    def abort_task(self, task: Union[Task, Id]) -> Task:
        """Aborts a running task (409 with the reason when its type cannot be, or it is committing)."""
        task_id = task.task_id if isinstance(task, Task) else task
        return Task.model_validate(self.request("POST", f"/tasks/{task_id}/abort"))

    def retry_task(self, task: Union[Task, Id], *, wait: bool = False, progress: Optional[bool] = None, timeout: Optional[float] = None) -> Task:
        """Runs a FAILED or ABORTED task again with its original input; followed to its end with ``wait``."""
        task_id = task.task_id if isinstance(task, Task) else task
        retried = Task.model_validate(self.request("POST", f"/tasks/{task_id}/retry"))
        return self.wait_for_task(retried, progress=progress, timeout=timeout) if wait else retried

    # -- explore and search -------------------------------------------------------------------

    def explore(
        self,
        dataset_id: Id,
        *,
        entity_type: str = "IMAGES",
        threshold: int = 0,
        page: int = 0,
        caption: Optional[str] = None,
        max_distance: Optional[float] = None,
        labels: Optional[List[str]] = None,
        tags: Optional[List[Id]] = None,
        vql: Union[Filter, List[Dict[str, Any]], None] = None,
        anchor_media_id: Optional[Id] = None,
        anchor_type: Optional[str] = None,
    ) -> ExploreResult:
        """One page (100 clusters, at most 10 media shown a cluster) of Explore; filters and searches as the API's
        parameters, ``vql`` a ``Filter`` (``mds_client.vql``) or the API's JSON list. ``explore_media`` lists every match."""
        params = without_none(
            entity_type=entity_type,
            threshold=threshold,
            page_number=page,
            caption=caption,
            textual_similarity_threshold=max_distance,
            labels=None if labels is None else json.dumps(labels),
            tags=None if tags is None else json.dumps([str(tag) for tag in tags]),
            vql=vql_json(vql),
            anchor_media_id=anchor_media_id,
            anchor_type=anchor_type,
        )
        result = ExploreResult.model_validate(self.request("GET", f"/explore/{dataset_id}", params=params))
        # The web app's Explore reads labels and tags as VQL elements, and an uploaded image as similar_to.
        filters = elements(vql) + (elements(labels_filter(*labels)) if labels else []) + (elements(tags_filter(*tags)) if tags else [])
        result._web_url = web_link(
            self.url,
            dataset_id,
            threshold=threshold or None,
            page=page or None,
            caption=caption,
            vql=json.dumps(filters) if filters else None,
            entity_type=None if entity_type == "IMAGES" else entity_type,
            similar_to=anchor_media_id,
            anchor_type=anchor_type if anchor_media_id else None,
        )
        return result

    def explore_all(self, dataset_id: Id, *, max_clusters: Optional[int] = None, **filters: Any) -> ExploreResult:
        """Every page of Explore (or the first ``max_clusters`` clusters) as one result; ``filters`` as ``explore``."""
        clusters: List[Any] = []
        page = 0
        link = None
        while True:
            result = self.explore(dataset_id, page=page, **filters)
            link = link or result.web_url
            clusters.extend(result.clusters)
            if len(result.clusters) < EXPLORE_PAGE_SIZE or (max_clusters is not None and len(clusters) >= max_clusters):
                break
            page += 1
        every = ExploreResult(clusters=clusters[:max_clusters], metadata=result.metadata)
        every._web_url = link
        return every

    def search_text(self, dataset_id: Id, text: str, *, max_distance: Optional[float] = None, threshold: int = 0, page: int = 0) -> ExploreResult:
        """Natural-language search over captions (and concepts once enriched), closest first. When it finds nothing,
        ``result.hint`` says why when it can: the dataset has nothing text search reads (the server's word), or
        ``max_distance`` left out every match."""
        result = self.explore(dataset_id, caption=text, max_distance=max_distance, threshold=threshold, page=page)
        # Without the distance, a search ranks every captioned item: if it finds some, the distance left them out.
        if not result.clusters and page == 0 and max_distance is not None and self.explore(dataset_id, caption=text, threshold=threshold).clusters:
            result._hint = f"nothing is closer than the distance {max_distance}: try a larger max_distance"
        return result

    def search_image(self, dataset_id: Id, image: PathLike, *, threshold: int = 0, page: int = 0) -> ExploreResult:
        """Visual search: uploads the image as an anchor, then Explore ranks by similarity to it."""
        path = Path(image)
        with path.open("rb") as handle:
            body = self.request(
                "POST",
                f"/dataset/{dataset_id}/search-image-similarity",
                params={"entity_type": "IMAGES", "threshold": threshold},
                files=[("file", (path.name, handle, mimetypes.guess_type(path.name)[0] or "application/octet-stream"))],
            )
        anchor = Anchor.model_validate(body)
        return self.explore(dataset_id, threshold=threshold, page=page, anchor_media_id=anchor.anchor_media_id, anchor_type=anchor.anchor_type)

    # -- export -------------------------------------------------------------------------------

    def export_formats(self) -> List[ExportFormat]:
        """The export formats the service takes, each with what its archive holds (asked once per client)."""
        if self._export_formats is None:
            self._export_formats = [ExportFormat.model_validate(item) for item in self.request("GET", "/export-formats")]
        return self._export_formats

    def start_export(
        self,
        dataset_id: Id,
        export_format: str = "parquet",
        *,
        file_name: Optional[str] = None,
        include_images: bool = False,
        media_ids: Optional[Iterable[Id]] = None,
        cluster_ids: Optional[Iterable[Id]] = None,
    ) -> UUID:
        """Starts an EXPORT task in one of ``export_formats``: of the whole dataset, or of the media listed (ids, or a
        DataFrame's ``media_id`` column) and the clusters named (every member); its id, for ``export_status``."""
        names = [format.name for format in self.export_formats()]
        if export_format not in names:
            raise MdsError(f"export_format must be one of {', '.join(names)} (got {export_format})")
        params = {"file_name": file_name or f"dataset-{dataset_id}", "export_format": export_format, "include_images": "true" if include_images else "false"}
        if media_ids is None and cluster_ids is None:
            return ExportStarted.model_validate(self.request("GET", f"/dataset/{dataset_id}/export_context_async", params=params)).id
        chosen = [] if media_ids is None else [str(media_id) for media_id in media_ids]
        items = [{"type": "media", "payload": {"media_ids": chosen}}] if chosen else []
        items += [{"type": "cluster", "payload": {"cluster_id": str(cluster_id)}} for cluster_id in ([] if cluster_ids is None else cluster_ids)]
        if not items:
            raise MdsError("The selection is empty: give media_ids or cluster_ids (or neither, for the whole dataset)")
        body = {"media_selection": items}
        return ExportStarted.model_validate(self.request("POST", f"/dataset/{dataset_id}/export_entities_async", params=params, json=body)).id

    def export_status(self, dataset_id: Id, export_id: Id) -> ExportStatus:
        return ExportStatus.model_validate(self.request("GET", f"/dataset/{dataset_id}/export_status", params={"export_task_id": str(export_id)}))

    def wait_for_export(self, dataset_id: Id, export_id: Id, *, progress: Optional[bool] = None, timeout: Optional[float] = None) -> ExportStatus:
        """Polls until the export is COMPLETED (its status, with ``download_uri``); ``TaskFailed`` if FAILED."""
        status = self._poll(
            lambda: self.export_status(dataset_id, export_id),
            lambda found: found.status in ("COMPLETED", "FAILED"),
            lambda found: found.progress_percentage,
            None,
            lambda found: TaskFailed(f"Export {export_id} still {found.status} after {timeout} s"),
            desc="export",
            progress=progress,
            timeout=timeout,
        )
        if status.status == "FAILED":
            raise TaskFailed(f"Export {export_id} FAILED: {status.error_message}")
        return status

    def download(self, uri: str, out: PathLike, *, progress: Optional[bool] = None) -> Path:
        """Streams a download link (e.g. an export's ``download_uri``) into ``out``."""
        target = Path(out)
        partial = target.with_name(target.name + ".part")
        # The bearer token goes to the service's own origin only; a link elsewhere is signed and needs none.
        own = origin(httpx.URL(self.url).join(uri)) == origin(self.url)
        options: Dict[str, Any] = {} if own else {"auth": None}
        try:
            with self._http.stream("GET", uri, **options) as response:
                if response.is_error:
                    response.read()
                    raise ApiError(response.status_code, _detail(response), "GET", httpx.URL(uri).path)
                total = int(response.headers.get("content-length", 0)) or None
                with progress_bar(self._show(progress), total=total, unit="B", unit_scale=True, desc="download") as bar, partial.open("wb") as file:
                    for chunk in response.iter_bytes():
                        file.write(chunk)
                        bar.update(len(chunk))
            partial.replace(target)
        except httpx.TransportError as error:
            raise ConnectionFailed(f"Cannot download {redact(uri)}: {redact(str(error))}") from error
        finally:
            # Never leave half a file where a complete one is expected.
            partial.unlink(missing_ok=True)
        return target

    def export(
        self,
        dataset_id: Id,
        out: PathLike,
        export_format: str = "parquet",
        *,
        include_images: bool = False,
        media_ids: Optional[Iterable[Id]] = None,
        cluster_ids: Optional[Iterable[Id]] = None,
        progress: Optional[bool] = None,
        timeout: Optional[float] = None,
    ) -> Path:
        """Exports the dataset, or the media and clusters selected (as ``start_export``), as a ZIP in one of
        ``export_formats`` and downloads it to ``out``."""
        target = Path(out)
        export_id = self.start_export(
            dataset_id, export_format, file_name=target.stem or None, include_images=include_images, media_ids=media_ids, cluster_ids=cluster_ids
        )
        status = self.wait_for_export(dataset_id, export_id, progress=progress, timeout=timeout)
        if not status.download_uri:
            raise MdsError(f"Export {export_id} completed without a download link")
        return self.download(status.download_uri, target, progress=progress)

    def _poll(
        self,
        read: Callable[[], T],
        finished: Callable[[T], bool],
        percent: Callable[[T], Optional[int]],
        describe: Optional[Callable[[T], str]],
        overdue: Callable[[T], Exception],
        *,
        desc: str,
        progress: Optional[bool],
        timeout: Optional[float],
    ) -> T:
        """Reads (poll_delays apart) until ``finished``, showing ``percent`` on a progress bar; ``overdue`` is raised past ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        delays = poll_delays()
        with progress_bar(self._show(progress), total=100, unit="%", desc=desc) as bar:
            while True:
                found = read()
                if describe is not None:
                    bar.set_description(describe(found))
                bar.update((percent(found) or 0) - bar.n)
                if finished(found):
                    return found
                if deadline is not None and time.monotonic() > deadline:
                    raise overdue(found)
                time.sleep(next(delays))

    def _show(self, progress: Optional[bool]) -> bool:
        return self.progress if progress is None else progress


def describe_task(task: Task) -> str:
    """A progress bar's text: the task's type and its stage (``DATASET_CREATION: Clustering (1/1)``), or its status."""
    stage = (task.status_message or "").strip()
    if task.is_final or not stage:
        return f"{task.task_type} {task.status}"
    return f"{task.task_type}: {stage}"


def _labels_file_kind(labels_file: Optional[PathLike], labels_from: Optional[str], labels_from_folders: bool) -> Optional[str]:
    """What a labels file is sent as: ``labels_from`` (csv or coco), by default from its extension; None without one."""
    if labels_file is None:
        if labels_from is not None:
            raise MdsError("labels_from goes with labels_file (or use labels_from_folders)")
        return None
    if labels_from_folders:
        raise MdsError("Give labels_file or labels_from_folders, not both")
    kind = labels_from or ("coco" if str(labels_file).lower().endswith(".json") else "csv")
    if kind not in ("csv", "coco"):
        raise MdsError(f"labels_from must be csv or coco (got {kind})")
    return kind


def _retry_after(response: httpx.Response) -> Optional[float]:
    """How long to wait before reading again, when the API says a failure will pass."""
    if response.status_code not in (429, 503):
        return None
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER_SECONDS)


def _detail(response: httpx.Response) -> str:
    """The API's ``{"detail": ...}``, or the status's reason when the body has none."""
    try:
        body = response.json()
    except ValueError:
        kind = response.headers.get("content-type", "").split(";")[0]
        reason = response.reason_phrase or "error"
        return f"{reason} (a {kind} answer, not the service's JSON)" if kind and "json" not in kind else reason
    detail = body.get("detail") if isinstance(body, dict) else None
    return detail if isinstance(detail, str) else json.dumps(body)
