"""Typed records of the API, written against docs/openapi.json.

Each model names the schema it mirrors in ``openapi`` (a JSON pointer into the OpenAPI document);
tests/test_models.py fails when a model's fields, types, enums, required or nullable fields drift
from that schema. Fields the server adds later are kept (``extra="allow"``) until a model names them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Dict, List, Literal, Optional
from uuid import UUID

from pydantic import BaseModel, ConfigDict


def _schema(name: str) -> str:
    return f"#/components/schemas/{name}"


def _response(path: str, method: str, status: int = 200, content: str = "application/json") -> str:
    """The pointer to an operation's inline response schema (``/`` in a path is ``~1`` in a pointer)."""
    escaped = path.replace("~", "~0").replace("/", "~1")
    return f"#/paths/{escaped}/{method}/responses/{status}/content/{content.replace('/', '~1')}/schema"


TaskType = Literal[
    "DATASET_CREATION",
    "MEDIA_ADDITION",
    "REINDEX",
    "ENRICHMENT",
    "CUSTOM_METADATA",
    "SNAPSHOT_RESTORE",
    "SNAPSHOT_CLONE",
    "LABEL_PROPAGATION",
    "LABEL_QUALITY",
    "EXPORT",
]
TaskStatus = Literal["INITIALIZING", "RUNNING", "COMPLETED", "FAILED", "ABORTED"]
FINAL_TASK_STATUSES = ("COMPLETED", "FAILED", "ABORTED")


class Model(BaseModel):
    """Base of every record: attribute access, unknown fields kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    openapi: ClassVar[str]


class Dataset(Model):
    openapi: ClassVar[str] = _schema("Dataset")

    id: UUID
    display_name: str
    status: Literal["READY", "UPDATING", "UPLOADING", "ERROR"]
    """Retiring; use ``status_new``."""
    status_new: Literal["UPLOADING", "INDEXING", "READY", "READ ONLY", "PARTIAL INDEX", "ERROR"]
    progress: int
    owned_by: str
    created_at: datetime
    n_images: int
    n_videos: int


class Task(Model):
    openapi: ClassVar[str] = _schema("Task")

    task_id: UUID
    dataset_id: UUID
    dataset_name: str
    dataset_status: str
    created_by: str
    task_type: TaskType
    status: TaskStatus
    status_message: str
    progress_percentage: Optional[int]
    error_message: Optional[str]
    start_time: datetime
    end_time: Optional[datetime]
    can_abort: bool
    abort_refusal: Optional[str]
    can_retry: bool
    retry_refusal: Optional[str]

    @property
    def is_final(self) -> bool:
        return self.status in FINAL_TASK_STATUSES


class TaskPage(Model):
    openapi: ClassVar[str] = _response("/api/v1/tasks", "get")

    tasks: List[Task]
    total: int
    page: int
    page_size: int


class BoundingBox(Model):
    openapi: ClassVar[str] = _schema("Preview") + "/properties/bounding_box/anyOf/0"

    x: float
    y: float
    width: float
    height: float


class Preview(Model):
    openapi: ClassVar[str] = _schema("Preview")

    type: Literal["IMAGE"]
    media_id: UUID
    media_uri: str
    media_thumb_uri: str
    caption: Optional[str]
    file_name: str
    bounding_box: Optional[BoundingBox]
    width: Optional[int]
    height: Optional[int]
    relevance_score: Optional[float] = None
    """Cosine distance to the query (search results only): lower is closer."""
    relevance_score_type: Optional[Literal["cosine_distance"]] = None


class UserTag(Model):
    openapi: ClassVar[str] = _schema("Cluster") + "/properties/user_tags/anyOf/0/items"

    id: UUID
    name: str


class Cluster(Model):
    openapi: ClassVar[str] = _schema("Cluster")

    cluster_id: UUID
    type: Literal["IMAGES", "OBJECTS"]
    n_images: int
    n_objects: int
    n_videos: int
    similarity_threshold: str
    captions: Optional[List[str]]
    previews: List[Preview]
    labels: Optional[List[str]]
    user_tags: Optional[List[UserTag]]
    relevance_score: Optional[float] = None
    relevance_score_type: Optional[Literal["cosine_distance"]] = None


class ExploreMetadata(Model):
    openapi: ClassVar[str] = _response("/api/v1/explore/{dataset_id}", "get") + "/properties/metadata"

    used_duckdb: bool


class ExploreResult(Model):
    """One page of Explore: clusters, ranked by relevance for a search."""

    openapi: ClassVar[str] = _response("/api/v1/explore/{dataset_id}", "get")

    clusters: List[Cluster]
    metadata: ExploreMetadata

    def media(self) -> List[Dict[str, Any]]:
        """One flat record per preview (the media a notebook looks at), with its cluster's fields."""
        rows = []
        for rank, cluster in enumerate(self.clusters):
            for preview in cluster.previews:
                rows.append(
                    {
                        "rank": rank,
                        "cluster_id": str(cluster.cluster_id),
                        "cluster_size": cluster.n_images,
                        "media_id": str(preview.media_id),
                        "file_name": preview.file_name,
                        "caption": preview.caption,
                        "labels": cluster.labels,
                        "relevance_score": preview.relevance_score
                        if preview.relevance_score is not None
                        else cluster.relevance_score,
                        "width": preview.width,
                        "height": preview.height,
                        "media_uri": preview.media_uri,
                        "thumbnail_uri": preview.media_thumb_uri,
                    }
                )
        return rows

    def to_pandas(self) -> Any:
        """``media()`` as a pandas DataFrame (``pip install 'mds-client[pandas]'``)."""
        try:
            import pandas
        except ImportError as error:  # pragma: no cover - depends on the environment
            raise ImportError("to_pandas needs pandas: pip install 'mds-client[pandas]'") from error
        return pandas.DataFrame(self.media())


class Anchor(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/search-image-similarity", "post")

    anchor_media_id: UUID
    anchor_type: Literal["UPLOAD"]


class ExportSelection(Model):
    openapi: ClassVar[str] = _schema("ExportStatus") + "/properties/selection/anyOf/0"

    n_media: int
    n_clusters: int


class ExportStatus(Model):
    openapi: ClassVar[str] = _schema("ExportStatus")

    status: Literal["PENDING", "RUNNING", "COMPLETED", "FAILED"]
    download_uri: Optional[str]
    progress_percentage: Optional[int]
    error_message: Optional[str]
    file_name: str
    export_format: Literal["json", "parquet", "coco", "yolo", "hf", "imagefolder"]
    include_images: bool
    selection: Optional[ExportSelection]


class ApiKey(Model):
    openapi: ClassVar[str] = _schema("ApiKey")

    api_key: str
    created_at: datetime
    last_used_at: Optional[datetime]
    expires_at: Optional[datetime]
    revoked_at: Optional[datetime]
    status: Literal["active", "expired", "revoked"]


class NewDataset(Model):
    openapi: ClassVar[str] = _response("/api/v1/ingestion/new_dataset", "get")

    dataset_id: UUID


class Transaction(Model):
    openapi: ClassVar[str] = _response("/api/v1/ingestion/{dataset_id}/data_files", "get")

    trans_id: int


class UploadedFiles(Model):
    openapi: ClassVar[str] = _response("/api/v1/ingestion/{dataset_id}/data_files/{transaction_id}", "post", 202)

    trans_id: int
    files: List[str]


class StartedTask(Model):
    openapi: ClassVar[str] = _response("/api/v1/ingestion/{dataset_id}/process_files/{transaction_id}", "post", 202)

    task_id: UUID


class ExportStarted(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/export_context_async", "get")

    id: UUID
    """The export task's id."""


class ErrorBody(Model):
    openapi: ClassVar[str] = _schema("Error")

    detail: str


ALL_MODELS = [
    Dataset,
    Task,
    TaskPage,
    BoundingBox,
    Preview,
    UserTag,
    Cluster,
    ExploreMetadata,
    ExploreResult,
    Anchor,
    ExportSelection,
    ExportStatus,
    ApiKey,
    NewDataset,
    Transaction,
    UploadedFiles,
    StartedTask,
    ExportStarted,
    ErrorBody,
]
