"""Python client of the media dataset service: ``Client`` and the ``mds`` command line."""

from . import vql
from .client import Client
from .errors import ApiError, ConnectionFailed, MdsError, MdsWarning, NotTheService, TaskFailed
from .models import (
    Classes,
    Cluster,
    Dataset,
    DuplicateGroup,
    DuplicatePage,
    EnrichmentModel,
    ExploreResult,
    ExportStatus,
    LabelQualityReport,
    MediaFacts,
    Preview,
    Snapshot,
    SnapshotDiff,
    Tag,
    Task,
    TaskPage,
    View,
)
from .vql import Filter

__all__ = [
    "ApiError",
    "Classes",
    "Client",
    "Cluster",
    "ConnectionFailed",
    "Dataset",
    "DuplicateGroup",
    "DuplicatePage",
    "EnrichmentModel",
    "ExploreResult",
    "ExportStatus",
    "Filter",
    "LabelQualityReport",
    "MdsError",
    "MdsWarning",
    "MediaFacts",
    "NotTheService",
    "Preview",
    "Snapshot",
    "SnapshotDiff",
    "Tag",
    "Task",
    "TaskFailed",
    "TaskPage",
    "View",
    "vql",
]
__version__ = "0.2.0"
