"""Tables of results: pandas DataFrames with fixed columns (an empty result keeps them) and thumbnails in Jupyter."""

from __future__ import annotations

import html
from typing import Any, Dict, List, Optional, Sequence

EXPLORE_COLUMNS = [
    "rank", "cluster_id", "cluster_size", "media_id", "file_name", "class", "caption", "labels", "tags",
    "relevance_score", "width", "height", "media_uri", "thumbnail_uri",
]  # fmt: skip
DUPLICATE_COLUMNS = [
    "group_id", "state", "similarity", "media_id", "file_name", "suggested_keeper", "deciding_fact", "role",
    "width", "height", "file_size", "format", "issues", "media_uri", "thumbnail_uri",
]  # fmt: skip
# One row per image and video frame of a dataset (Client.media): the export's record, plus the user's class.
MEDIA_COLUMNS = [
    "media_id", "media_type", "file_name", "class", "caption", "labels", "tags", "issues",
    "cluster_id_0", "cluster_id_1", "cluster_id_2", "cluster_id_3", "cluster_id_4",
    "uniqueness_score", "duplicate_of", "similarity", "mislabel_score", "suggested_label",
    "width", "height", "size_bytes", "format", "video_id", "frame_index", "frame_time_ms", "sha256",
    "custom_metadata", "created_at",
]  # fmt: skip
# One row per item of the media listing (Client.media with brief=True).
MEDIA_LISTING_COLUMNS = ["media_id", "file_name", "kind", "class", "size_bytes", "width", "height", "video_id", "discarded", "created_at"]
MAP_COLUMNS = ["media_id", "x", "y"]
MISLABEL_COLUMNS = ["media_id", "file_name", "class", "suggested_label", "mislabel_score", "caption"]
PREVIEWS_SHOWN = 48


def frame(rows: Sequence[Dict[str, Any]], columns: Sequence[str]) -> Any:
    """``rows`` as a pandas DataFrame with ``columns`` first (present even when there are no rows), then any others."""
    try:
        import pandas
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise ImportError("to_pandas needs pandas: pip install 'mds-client[pandas]'") from error
    extra = [key for row in rows[:1] for key in row if key not in columns]
    return pandas.DataFrame(list(rows), columns=[*columns, *extra])


def thumbnails_html(rows: List[Dict[str, Any]], hint: Optional[str] = None, link: Optional[str] = None) -> str:
    """A grid of thumbnails with file names (Jupyter's rich display of a result)."""
    parts = ['<div style="display:flex;flex-wrap:wrap;gap:6px">']
    for row in rows[:PREVIEWS_SHOWN]:
        name = html.escape(str(row.get("file_name", "")))
        thumb = html.escape(str(row.get("thumbnail_uri") or ""), quote=True)
        parts.append(
            f'<figure style="margin:0;width:128px"><img src="{thumb}" alt="{name}" loading="lazy" '
            f'style="width:128px;height:128px;object-fit:cover"><figcaption style="font-size:11px;overflow:hidden;'
            f'text-overflow:ellipsis;white-space:nowrap">{name}</figcaption></figure>'
        )
    parts.append("</div>")
    summary = f"{len(rows)} media" + (f", the first {PREVIEWS_SHOWN} shown" if len(rows) > PREVIEWS_SHOWN else "")
    if hint:
        summary += f" — {html.escape(hint)}"
    if link:
        summary += f' — <a href="{html.escape(link, quote=True)}" target="_blank" rel="noopener">open in the web app</a>'
    return f"<p>{summary}</p>" + "".join(parts)
