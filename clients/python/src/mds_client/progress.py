"""Progress bars: tqdm's notebook widget in Jupyter (with ipywidgets), its text bar elsewhere, none when off."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from tqdm import tqdm as text_bar


class _NoBar:
    n: float = 0

    def update(self, amount: float = 1) -> None:
        self.n += amount

    def set_description(self, description: str) -> None:
        pass


@contextmanager
def progress_bar(show: bool, **options: Any) -> Iterator[Any]:
    if not show:
        yield _NoBar()
        return
    try:
        from tqdm.auto import tqdm as auto_bar

        bar = auto_bar(**options)
    except ImportError:  # tqdm.auto picks the notebook widget, which needs ipywidgets
        bar = text_bar(**options)
    try:
        yield bar
    finally:
        bar.close()
