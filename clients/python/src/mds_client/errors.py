"""What the client raises: every failure is an MdsError."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from .models import Task


class MdsError(Exception):
    """Base of the client's errors."""


class ApiError(MdsError):
    """The API answered with an error status; ``detail`` is its ``{"detail": ...}`` message."""

    def __init__(self, status_code: int, detail: str, method: str, path: str) -> None:
        self.status_code = status_code
        self.detail = detail
        self.method = method
        self.path = path
        super().__init__(f"{status_code}: {detail} ({method} {path})")


class ConnectionFailed(MdsError):
    """The service could not be reached."""


class NotTheService(MdsError):
    """The address answered, but not as the media dataset service does (an HTML page, another program)."""


class MdsWarning(UserWarning):
    """Something works, but not as the caller likely meant (an API key sent to a service with authentication off)."""


class TaskFailed(MdsError):
    """A task the client waited for ended FAILED or ABORTED (or an export FAILED)."""

    def __init__(self, message: str, task: Optional["Task"] = None) -> None:
        self.task = task
        super().__init__(message)
