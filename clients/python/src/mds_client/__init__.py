"""Python client of the media dataset service: ``Client`` and the ``mds`` command line."""

from .client import Client
from .errors import ApiError, ConnectionFailed, MdsError, TaskFailed
from .models import Cluster, Dataset, ExploreResult, ExportStatus, Preview, Task, TaskPage

__all__ = [
    "ApiError",
    "Client",
    "Cluster",
    "ConnectionFailed",
    "Dataset",
    "ExploreResult",
    "ExportStatus",
    "MdsError",
    "Preview",
    "Task",
    "TaskFailed",
    "TaskPage",
]
__version__ = "0.1.0"
