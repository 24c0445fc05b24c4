"""Typed records of the API, written against docs/openapi.json.

Each model names the schema it mirrors in ``openapi`` (a JSON pointer into the OpenAPI document);
tests/test_models.py fails when a model's fields, types, enums, required or nullable fields drift
from that schema. Fields the server adds later are kept (``extra="allow"``) until a model names them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, ClassVar, Dict, List, Literal, Optional
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from .dataset import DatasetCalls
from .frames import EXPLORE_COLUMNS, frame


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
    "SELECTION",
    "EXPORT",
    "MAP_LAYOUT",
]
TaskStatus = Literal["INITIALIZING", "RUNNING", "COMPLETED", "FAILED", "ABORTED"]
FINAL_TASK_STATUSES = ("COMPLETED", "FAILED", "ABORTED")


class Model(BaseModel):
    """Base of every record: attribute access, unknown fields kept."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    openapi: ClassVar[str]


class OperationOffer(Model):
    """Whether an operation may start now, and why not, in the words of the request's refusal."""

    openapi: ClassVar[str] = _schema("OperationOffer")

    can_start: bool
    refusal: Optional[str]


class DatasetOperations(Model):
    """The operations started from a dataset's pages, each answered by the server's state machine and access policy."""

    openapi: ClassVar[str] = _schema("Dataset") + "/properties/operations"

    add_media: OperationOffer
    reindex: OperationOffer
    import_metadata: OperationOffer
    propagate_labels: OperationOffer
    edit_labels: OperationOffer
    check_labels: OperationOffer
    curate: OperationOffer
    review_duplicates: OperationOffer
    enrich: OperationOffer
    export: OperationOffer
    snapshot: OperationOffer
    restore: OperationOffer
    clone: OperationOffer
    delete: OperationOffer


class Dataset(Model, DatasetCalls):
    """A dataset's record; read through a Client, it also carries the calls about the dataset (``DatasetCalls``)."""

    openapi: ClassVar[str] = _schema("Dataset")
    _client: Any = PrivateAttr(default=None)

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
    operations: DatasetOperations
    """Not in the contract: what may start now on the dataset for the caller, and why not."""


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
    class_: Optional[str] = Field(alias="class")
    """The user's label (the dataset's declared label field); None without one."""
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
    classes: Optional[List[str]]
    user_tags: Optional[List[UserTag]]
    relevance_score: Optional[float] = None
    relevance_score_type: Optional[Literal["cosine_distance"]] = None


class ExploreMetadata(Model):
    openapi: ClassVar[str] = _response("/api/v1/explore/{dataset_id}", "get") + "/properties/metadata"

    used_duckdb: bool
    #: The server's word on an empty text search of a dataset with nothing to read (no captions, no concept vectors).
    hint: Optional[str] = None


class ExploreResult(Model):
    """One page of Explore: clusters, ranked by relevance for a search."""

    openapi: ClassVar[str] = _response("/api/v1/explore/{dataset_id}", "get")

    clusters: List[Cluster]
    metadata: ExploreMetadata

    _hint: Optional[str] = PrivateAttr(default=None)
    _web_url: Optional[str] = PrivateAttr(default=None)

    @property
    def hint(self) -> Optional[str]:
        """Why a search found nothing, when it can be told (no captions or concept vectors yet, a distance too small); None otherwise."""
        return self._hint if self._hint is not None else self.metadata.hint

    @property
    def web_url(self) -> Optional[str]:
        """The same view (filters, search, threshold) in the web app's Explore, for a result a ``Client`` read."""
        return self._web_url

    def media(self) -> List[Dict[str, Any]]:
        """One flat record per media item the result holds (each cluster's previews: every matching member from
        ``Client.explore_media``, at most 10 a cluster from ``explore``), with its cluster's fields."""
        rows = []
        seen = set()
        for rank, cluster in enumerate(self.clusters):
            for preview in cluster.previews:
                key = (str(preview.media_id), preview.bounding_box is not None and tuple(preview.bounding_box.model_dump().values()))
                if key in seen:
                    continue
                seen.add(key)
                rows.append(
                    {
                        "rank": rank,
                        "cluster_id": str(cluster.cluster_id),
                        "cluster_size": cluster.n_images,
                        "media_id": str(preview.media_id),
                        "file_name": preview.file_name,
                        "class": preview.class_,
                        "caption": preview.caption,
                        "labels": getattr(preview, "labels", None) or cluster.labels,
                        "tags": [tag.get("name") if isinstance(tag, dict) else tag for tag in (getattr(preview, "tags", None) or [])],
                        "relevance_score": preview.relevance_score if preview.relevance_score is not None else cluster.relevance_score,
                        "width": preview.width,
                        "height": preview.height,
                        "media_uri": preview.media_uri,
                        "thumbnail_uri": preview.media_thumb_uri,
                    }
                )
        return rows

    def to_pandas(self) -> Any:
        """``media()`` as a pandas DataFrame (``pip install 'mds-client[pandas]'``); an empty result keeps the columns."""
        return frame(self.media(), EXPLORE_COLUMNS)

    def _repr_html_(self) -> str:
        from .frames import thumbnails_html

        return thumbnails_html(self.media(), self.hint, self.web_url)


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
    export_format: str
    """A name ``Client.export_formats`` lists."""
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


class ExportFormat(Model):
    """An export format the service takes (GET /export-formats)."""

    openapi: ClassVar[str] = _schema("ExportFormat")

    name: str
    title: str
    description: str
    metadata_file: str
    always_includes_images: bool
    needs_label_field: bool


class ExportStarted(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/export_context_async", "get")

    id: UUID
    """The export task's id."""


class ErrorBody(Model):
    openapi: ClassVar[str] = _schema("Error")

    detail: str


class Mislabel(Model):
    openapi: ClassVar[str] = _schema("MediaFacts") + "/properties/mislabel/anyOf/0"

    label: str
    suggested_label: str
    score: float


class Leakage(Model):
    openapi: ClassVar[str] = _schema("MediaFacts") + "/properties/leakage/anyOf/0"

    split: str
    duplicate_of: UUID
    duplicate_split: str
    similarity: float


class MediaFacts(Model):
    """One image or video of a dataset; ``class_`` is the user's own label (``class`` in the API)."""

    openapi: ClassVar[str] = _schema("MediaFacts")

    media_id: UUID
    kind: Literal["IMAGE", "VIDEO", "VIDEO_FRAME"]
    file_name: str
    size_bytes: int
    width: Optional[int]
    height: Optional[int]
    caption: Optional[str]
    labels: List[str]
    class_: Optional[str] = Field(alias="class")
    tags: List[UserTag]
    issues: List[str]
    mislabel: Optional[Mislabel]
    leakage: Optional[Leakage]


class MediaItem(Model):
    """One item of a dataset's media listing; ``class_`` is the user's own label (``class`` in the API)."""

    openapi: ClassVar[str] = _schema("MediaItem")

    media_id: UUID
    file_name: str
    kind: Literal["IMAGE", "VIDEO", "VIDEO_FRAME"]
    video_id: Optional[UUID]
    class_: Optional[str] = Field(alias="class")
    size_bytes: Optional[int]
    width: Optional[int]
    height: Optional[int]
    discarded: bool
    created_at: datetime


class MediaPage(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/media", "get")

    media: List[MediaItem]
    total: int
    page: int
    page_size: int


class ClusterMembers(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/clusters/{cluster_id}/media", "get")

    cluster_id: UUID
    similarity_threshold: str
    n_media: int
    media: List[Preview]


class ClassCount(Model):
    openapi: ClassVar[str] = _schema("Classes") + "/properties/classes/items"

    label: str
    count: int


class Classes(Model):
    openapi: ClassVar[str] = _schema("Classes")

    label_field: Optional[str]
    split_field: Optional[str]
    classes: List[ClassCount]
    unlabelled: int


class ClassAction(Model):
    """What a change of classes did: its ``action_id`` (for undo) and how many media changed."""

    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/classes/set", "post")

    action_id: UUID
    changed: int


class ClassUndo(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/classes/undo", "post")

    action_id: UUID
    action: str
    undone: int


class ClassChange(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/media/{media_id}/class_history", "get") + "/properties/changes/items"

    action_id: UUID
    action: Literal["set", "accept", "propagate", "undo"]
    field: str
    previous: Optional[str]
    label: Optional[str]
    undone: bool
    created_by: Optional[str]
    created_at: str


class DuplicateMember(Model):
    openapi: ClassVar[str] = _schema("DuplicateGroup") + "/properties/members/items"

    media_id: UUID
    file_name: str
    width: Optional[int]
    height: Optional[int]
    file_size: Optional[int]
    issues: List[str]
    format: Optional[str]
    uploaded_at: datetime
    role: Optional[Literal["keep", "discard", "distinct"]]
    media_uri: str
    media_thumb_uri: str


class SuggestedKeeper(Model):
    openapi: ClassVar[str] = _schema("DuplicateGroup") + "/properties/suggested_keeper"

    media_id: UUID
    reasons: List[str]
    deciding_fact: Literal["kept_before", "decodable", "pixels", "lossless", "least_edited", "bits_per_pixel", "quality_issues", "earlier_upload", "file_name"]


class MergeConflict(Model):
    """A value the discarded copies disagree on with the keeper: left as it was, for the curator."""

    openapi: ClassVar[str] = _schema("DuplicateMergeConflict")

    keeper_media_id: UUID
    field: str
    kind: Literal["class", "metadata"]
    kept: Any
    discarded: List[Dict[str, Any]]


class Merged(Model):
    """What keepers gained from the discarded copies: labels, tags and custom-metadata fields they lacked."""

    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/duplicates/accept_suggestions", "post") + "/properties/merged"

    labels: int
    tags: int
    metadata_fields: int


class DuplicateDecision(Model):
    openapi: ClassVar[str] = _schema("DuplicateGroup") + "/properties/decision/anyOf/0"

    decision_id: UUID
    verdict: Literal["duplicates", "not_duplicates"]
    decided_at: datetime
    decided_by: Optional[UUID]
    action_id: Optional[UUID]
    """The Accept all that made it (undone together), if one did."""
    conflicts: List[MergeConflict]


class DuplicatePair(Model):
    openapi: ClassVar[str] = _schema("DuplicatePair")

    media_id: UUID
    duplicate_of: UUID
    similarity: float
    tier: Literal["exact", "near_identical", "similar"]
    """exact: the same bytes; near_identical: the pixels confirm it; similar: the embedding alone."""
    reason: str


class DuplicateGroup(Model):
    openapi: ClassVar[str] = _schema("DuplicateGroup")

    group_id: str
    state: Literal["open", "changed", "decided"]
    similarity: float
    members: List[DuplicateMember]
    """The suggested keeper first; at most ``members_limit`` of ``member_count``."""
    member_count: int
    suggested_keeper: SuggestedKeeper
    decision: Optional[DuplicateDecision]
    pairs: List[DuplicatePair]


class DuplicateCounts(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/duplicates", "get") + "/properties/counts"

    open: int
    changed: int
    decided: int


class DuplicatePage(Model):
    """Near-duplicate groups (one page, or every page from ``Client.duplicates``)."""

    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/duplicates", "get")

    groups: List[DuplicateGroup]
    total: int
    counts: DuplicateCounts

    _web_url: Optional[str] = PrivateAttr(default=None)

    @property
    def web_url(self) -> Optional[str]:
        """The same review (similarity, state) on the web app's Duplicates page, for groups a ``Client`` read."""
        return self._web_url

    def media(self) -> List[Dict[str, Any]]:
        """One record per member of each group: its role if decided, and whether it is the suggested keeper."""
        return [
            {
                "group_id": group.group_id,
                "state": group.state,
                "similarity": group.similarity,
                "media_id": str(member.media_id),
                "file_name": member.file_name,
                "suggested_keeper": member.media_id == group.suggested_keeper.media_id,
                "deciding_fact": group.suggested_keeper.deciding_fact,
                "role": member.role,
                "width": member.width,
                "height": member.height,
                "file_size": member.file_size,
                "format": member.format,
                "issues": member.issues,
                "media_uri": member.media_uri,
                "thumbnail_uri": member.media_thumb_uri,
            }
            for group in self.groups
            for member in group.members
        ]

    def to_pandas(self) -> Any:
        from .frames import DUPLICATE_COLUMNS

        return frame(self.media(), DUPLICATE_COLUMNS)

    def _repr_html_(self) -> str:
        from .frames import thumbnails_html

        return thumbnails_html(self.media(), f"{len(self.groups)} of {self.total} groups, each suggested keeper first", self.web_url)


class Decision(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/duplicates/decisions", "post") + "/properties/decisions/items"

    decision_id: UUID
    media_ids: List[UUID]
    merged: Merged
    conflicts: List[MergeConflict]


class AcceptedDuplicates(Model):
    """What Accept all decided; ``Client.undo_accept(dataset_id, action_id)`` undoes it whole."""

    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/duplicates/accept_suggestions", "post")

    action_id: UUID
    decided_groups: int
    discarded_media: int
    merged: Merged
    conflicts: List[MergeConflict]
    conflict_count: int


class AcceptPreviewGroup(Model):
    openapi: ClassVar[str] = _schema("DuplicateAcceptPreview") + "/properties/groups/items"

    group_id: str
    state: Literal["open", "changed"]
    similarity: float
    keep: List[DuplicateMember]
    keeper_reasons: List[str]
    discard: List[DuplicateMember]
    pairs: List[DuplicatePair]
    """At most 24 of ``discard_count``."""
    discard_count: int


class AcceptPreview(Model):
    """What Accept all would decide; its ``preview_token`` makes ``accept_suggestions`` refuse (409) if that changed."""

    openapi: ClassVar[str] = _schema("DuplicateAcceptPreview")

    groups: List[AcceptPreviewGroup]
    total_groups: int
    discarded_media: int
    preview_token: str


class PropagationPreview(Model):
    openapi: ClassVar[str] = _schema("PropagationPreview")

    seeds: int
    neighbours: int
    changes: Optional[int]
    by_similarity: List[Dict[str, Any]]


class ClassQuality(Model):
    openapi: ClassVar[str] = _schema("LabelQualityReport") + "/properties/classes/items"

    label: str
    count: int
    flagged: int
    estimated_error_rate: float


class ConfusedPair(Model):
    openapi: ClassVar[str] = _schema("LabelQualityReport") + "/properties/confused_pairs/items"

    label: str
    suggested_label: str
    count: int


class LeakageReport(Model):
    openapi: ClassVar[str] = _schema("LabelQualityReport") + "/properties/leakage"

    pairs: int
    by_splits: List[Dict[str, Any]]


class LabelQualityReport(Model):
    openapi: ClassVar[str] = _schema("LabelQualityReport")

    label_field: str
    split_field: Optional[str]
    checked_at: datetime
    n_media: int
    n_labelled: int
    n_flagged: int
    estimated_error_rate: float
    classes: List[ClassQuality]
    confused_pairs: List[ConfusedPair]
    leakage: LeakageReport

    def to_pandas(self) -> Any:
        """Per class: count, flagged, estimated error rate."""
        return frame([row.model_dump() for row in self.classes], ["label", "count", "flagged", "estimated_error_rate"])


class LabelFieldCandidate(Model):
    openapi: ClassVar[str] = _schema("LabelFields") + "/properties/candidates/items"

    name: str
    media: int
    values: int


class LabelFields(Model):
    openapi: ClassVar[str] = _schema("LabelFields")

    label_field: Optional[str]
    split_field: Optional[str]
    candidates: List[LabelFieldCandidate]


class DatasetMember(Model):
    openapi: ClassVar[str] = _schema("DatasetMember")

    email: str
    role: Literal["viewer", "editor", "owner"]


class Notification(Model):
    """A message to the caller: a monitored view's new matches (``entity_type`` saved_view), a finished task, …"""

    openapi: ClassVar[str] = _schema("Notification")

    id: UUID
    user_id: UUID
    entity_type: str
    entity_id: Optional[UUID]
    title: str
    message: Optional[str]
    metadata: Dict[str, Any]
    dataset_id: Optional[UUID]
    created_at: datetime
    read_at: Optional[datetime]


class SelectionCount(Model):
    """How many media a selection holds (each once), by kind."""

    openapi: ClassVar[str] = _schema("SelectionCount")

    total: int
    images: int
    video_frames: int
    videos: int


class Tag(Model):
    openapi: ClassVar[str] = _schema("Tag")

    id: UUID
    name: str
    created_at: datetime
    n_media: int


class Snapshot(Model):
    openapi: ClassVar[str] = _schema("Snapshot")

    snapshot_id: UUID
    snapshot_name: str
    source_dataset_name: str
    created_at: datetime
    created_by: Optional[str]
    n_images: int
    n_videos: int
    description: str
    reason: Literal["manual", "creation", "clone"]
    training_model_id: Optional[UUID]
    training_model_name: Optional[str]
    is_current: bool
    is_restoring: bool


class DiffPart(Model):
    openapi: ClassVar[str] = _schema("SnapshotDiff") + "/properties/added"

    count: int
    media_ids: List[UUID]


class DiffChanges(Model):
    openapi: ClassVar[str] = _schema("SnapshotDiff") + "/properties/changed"

    captions: DiffPart
    labels: DiffPart
    tags: DiffPart
    issues: DiffPart
    custom_metadata: DiffPart


class SnapshotDiff(Model):
    openapi: ClassVar[str] = _schema("SnapshotDiff")

    added: DiffPart
    removed: DiffPart
    changed: DiffChanges


class ViewFilters(Model):
    openapi: ClassVar[str] = _schema("View") + "/properties/filters"

    entity_type: Literal["IMAGES", "OBJECTS", "VIDEOS"]
    threshold: str
    caption: Optional[str]
    vql: List[Any]


class View(Model):
    openapi: ClassVar[str] = _schema("View")

    id: UUID
    dataset_id: UUID
    name: str
    created_at: datetime
    created_by: Dict[str, Any]
    filters: ViewFilters
    stats: Dict[str, Any]
    monitoring_enabled: bool
    monitoring_started_at: datetime
    alerting_enabled: bool
    total_results: int
    last_results: Optional[datetime]


EnrichmentType = Literal["IMAGE_TAGGING", "OBJECT_DETECTION", "CAPTION_IMAGES", "CAPTION_OBJECTS", "MULTIMODEL_IMAGE_ENCODING"]


class EnrichmentModel(Model):
    openapi: ClassVar[str] = _schema("EnrichmentModel")

    id: str
    name: str
    type: EnrichmentType
    status: Literal["Active", "Coming Soon"]
    vendor: str
    description: str
    dependencies: Optional[List[EnrichmentType]]


class EnrichmentModels(Model):
    openapi: ClassVar[str] = _schema("EnrichmentContext") + "/properties/dataset_enrichment_models"

    enrichment_models: Dict[str, str]


class EnrichmentContext(Model):
    openapi: ClassVar[str] = _schema("EnrichmentContext")

    enrichment_context_id: UUID
    status: Literal["NEW", "ENRICHED"]
    dataset_enrichment_models: EnrichmentModels


class EnrichedCopy(Model):
    openapi: ClassVar[str] = _response("/api/v1/dataset/{dataset_id}/enrich_dataset", "post")

    dataset_id: UUID


ALL_MODELS = [
    Dataset,
    DatasetMember,
    Notification,
    SelectionCount,
    OperationOffer,
    DatasetOperations,
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
    ExportFormat,
    ApiKey,
    NewDataset,
    Transaction,
    UploadedFiles,
    StartedTask,
    ExportStarted,
    ErrorBody,
    Mislabel,
    Leakage,
    MediaFacts,
    MediaItem,
    MediaPage,
    ClusterMembers,
    ClassCount,
    Classes,
    ClassAction,
    ClassUndo,
    ClassChange,
    DuplicateMember,
    SuggestedKeeper,
    MergeConflict,
    Merged,
    DuplicateDecision,
    DuplicatePair,
    DuplicateGroup,
    DuplicateCounts,
    DuplicatePage,
    Decision,
    AcceptedDuplicates,
    AcceptPreviewGroup,
    AcceptPreview,
    PropagationPreview,
    ClassQuality,
    ConfusedPair,
    LeakageReport,
    LabelQualityReport,
    LabelFieldCandidate,
    LabelFields,
    Tag,
    Snapshot,
    DiffPart,
    DiffChanges,
    SnapshotDiff,
    ViewFilters,
    View,
    EnrichmentModel,
    EnrichmentModels,
    EnrichmentContext,
    EnrichedCopy,
]
