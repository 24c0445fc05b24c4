"""The calls about a dataset's contents besides ingestion, search and export: the media table, duplicates, the
user's labels and their quality, tags, snapshots, views and enrichment. ``Client`` inherits them."""

from __future__ import annotations

import json
import struct
import tempfile
import warnings
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Union
from uuid import UUID

from .dataset import web_link
from .errors import MdsError, MdsWarning
from .frames import MAP_COLUMNS, MEDIA_COLUMNS, MEDIA_LISTING_COLUMNS, MISLABEL_COLUMNS, frame
from .models import (
    AcceptedDuplicates,
    AcceptPreview,
    ClassAction,
    ClassChange,
    Classes,
    ClassUndo,
    ClusterMembers,
    Dataset,
    DatasetMember,
    Decision,
    DuplicateGroup,
    DuplicatePage,
    EnrichedCopy,
    EnrichmentContext,
    EnrichmentModel,
    ExploreResult,
    LabelFields,
    LabelQualityReport,
    MediaFacts,
    MediaItem,
    MediaPage,
    Notification,
    Preview,
    PropagationPreview,
    SelectionCount,
    Snapshot,
    SnapshotDiff,
    StartedTask,
    Tag,
    Task,
    View,
)
from .vql import Filter, elements, vql_json

if TYPE_CHECKING:
    from .client import Client

Id = Union[str, UUID]
Ids = Iterable[Id]
DUPLICATES_PAGE_SIZE = 200
# The most members a duplicate group answers with (the API's cap); member_count says how many it has.
DUPLICATE_MEMBERS_LIMIT = 1000
CLUSTER_MEMBERS_PAGE_SIZE = 500
# The most the media listing answers a page.
MEDIA_PAGE_SIZE = 1000
NOTIFICATIONS_PAGE_SIZE = 100
# The most map point indexes one request turns into media ids.
MAP_SELECTION_SIZE = 100_000
# VQL keys and Explore parameters a media item's facts answer, so a cluster's members past its previews can be checked here.
FACT_CHECKED_KEYS = ("issues", "labels", "ground_truth", "tags")


def without_none(**params: Any) -> Dict[str, Any]:
    """Query parameters with those not given (None) left out, ids as text."""
    return {key: str(value) if isinstance(value, UUID) else value for key, value in params.items() if value is not None}


def selection(media_ids: Optional[Ids] = None, cluster_ids: Optional[Ids] = None, vql: Union[Filter, List[Dict[str, Any]], None] = None) -> Dict[str, Any]:
    """The API's MediaSelection: the union of the media listed (ids, or a DataFrame's ``media_id`` column), the clusters
    named and the media the VQL filters match (``vql=[]`` is every image and frame)."""
    chosen: Dict[str, Any] = {}
    if media_ids is not None:
        chosen["media_ids"] = [str(media_id) for media_id in media_ids]
    if cluster_ids is not None:
        chosen["cluster_ids"] = [str(cluster_id) for cluster_id in cluster_ids]
    if vql is not None:
        chosen["vql"] = vql_json(vql)
    if not chosen:
        raise MdsError("Select media: give media_ids, cluster_ids or vql (vql=[] selects every image)")
    return chosen


class CurationCalls:
    """Mixed into ``Client``: each call is one API operation (or a few pages of one), typed by ``models``."""

    # -- media ----------------------------------------------------------------------------------

    def media_facts(self: "Client", dataset_id: Id, media_id: Id) -> MediaFacts:
        """One image or video: file, size, caption, labels, the user's class, tags, issues, mislabel and leakage."""
        return MediaFacts.model_validate(self.request("GET", f"/dataset/{dataset_id}/media/{media_id}"))

    def cluster_members(self: "Client", dataset_id: Id, cluster_id: Id) -> List[Preview]:
        """Every member of an image cluster (Explore shows at most 10), most unique first."""
        members: List[Preview] = []
        page = 0
        while True:
            body = ClusterMembers.model_validate(
                self.request("GET", f"/dataset/{dataset_id}/clusters/{cluster_id}/media", params={"page_number": page, "page_size": CLUSTER_MEMBERS_PAGE_SIZE})
            )
            members.extend(body.media)
            if len(body.media) < CLUSTER_MEMBERS_PAGE_SIZE or len(members) >= body.n_media:
                return members
            page += 1

    def explore_media(self: "Client", dataset_id: Id, **filters: Any) -> ExploreResult:
        """Every page of Explore at threshold 0 with every matching member of each cluster, so ``to_pandas()`` has one
        row per media item; ``filters`` as ``explore``. A cluster with more matches than its previews is read whole and,
        when filtered, its other members are checked against their facts (issues, labels, classes, tags); a filter the
        facts cannot answer (uniqueness, metadata, text, map) leaves those clusters at their previews, with a warning."""
        filters.setdefault("threshold", 0)
        result = self.explore_all(dataset_id, **filters)
        checkable = _fact_check(filters)
        unlisted = 0
        for cluster in result.clusters:
            matching = cluster.n_images + getattr(cluster, "n_frames", 0)
            if cluster.type != "IMAGES" or len(cluster.previews) >= max(cluster.n_images, matching):
                continue
            if checkable is None:
                unlisted += cluster.n_images - len(cluster.previews)
                continue
            shown = {preview.media_id for preview in cluster.previews}
            for member in self.cluster_members(dataset_id, cluster.cluster_id):
                if member.media_id not in shown and (not checkable or checkable(self.media_facts(dataset_id, member.media_id))):
                    cluster.previews.append(member)
        if unlisted:
            warnings.warn(
                f"{unlisted} matching media are not listed: Explore shows 10 a cluster, and the API has no filtered listing of media "
                "(use media() for every item, then filter the DataFrame)",
                MdsWarning,
                stacklevel=2,
            )
        return result

    def media_records(
        self: "Client", dataset_id: Id, *, snapshot_id: Optional[Id] = None, include_discarded: bool = True, progress: Optional[bool] = None
    ) -> List[Dict[str, Any]]:
        """Every image, video and video frame of the dataset (or of a snapshot) as records: its file, the user's class,
        caption, labels, tags, issues, cluster ids at each threshold, uniqueness, duplicate and mislabel facts, custom metadata.

        Read from a JSON export (an EXPORT task, no images), the one API answer that holds every item with these facts."""
        params = {
            "file_name": f"media-{dataset_id}",
            "export_format": "json",
            "include_images": "false",
            "include_discarded_duplicates": "true" if include_discarded else "false",
            # Every frame, also those repeating an earlier frame of their video (an export leaves them out by default).
            "include_repeated_frames": "true",
        }
        if snapshot_id is not None:
            params["snapshot_id"] = str(snapshot_id)
        export_id = self.request("GET", f"/dataset/{dataset_id}/export_context_async", params=params)["id"]
        status = self.wait_for_export(dataset_id, export_id, progress=progress)
        if not status.download_uri:
            raise MdsError(f"Export {export_id} completed without a download link")
        label_field = self.classes(dataset_id).label_field
        with tempfile.TemporaryDirectory(prefix="mds-media-") as folder:
            archive = self.download(status.download_uri, Path(folder) / "media.zip", progress=progress)
            with zipfile.ZipFile(archive) as zipped:
                records = json.loads(zipped.read("metadata.json"))
        return [_media_row(record, label_field) for record in records]

    def media_page(self: "Client", dataset_id: Id, *, page: int = 1, page_size: int = MEDIA_PAGE_SIZE) -> MediaPage:
        """One page (from 1) of the dataset's media listing: images, videos and frames in a stable order, with their file,
        kind, class, size, resolution and creation time."""
        return MediaPage.model_validate(self.request("GET", f"/dataset/{dataset_id}/media", params={"page": page, "page_size": page_size}))

    def media_items(self: "Client", dataset_id: Id) -> List[MediaItem]:
        """Every page of the media listing: each image, video and video frame of the dataset as it is now."""
        items: List[MediaItem] = []
        page = 1
        while True:
            listed = self.media_page(dataset_id, page=page)
            items.extend(listed.media)
            if len(listed.media) < listed.page_size:
                return items
            page += 1

    def media(self: "Client", dataset_id: Id, *, brief: bool = False, **options: Any) -> Any:
        """Every image and video frame (and video) as a pandas DataFrame, with a ``class`` column.

        By default ``media_records`` (a JSON export: every fact, of the dataset or of ``snapshot_id``). With ``brief``, the
        paged media listing (a request per 1,000 items, no export): file, kind, class, size, resolution, ``discarded``
        and creation time of the dataset as it is now; ``include_discarded=False`` leaves the discarded copies out."""
        if not brief:
            return frame(self.media_records(dataset_id, **options), MEDIA_COLUMNS)
        unknown = set(options) - {"include_discarded"}
        if unknown:
            raise MdsError(f"media(brief=True) lists the dataset as it is now; it takes no {', '.join(sorted(unknown))}")
        keep_discarded = options.get("include_discarded", True)
        rows = [item.model_dump(mode="json", by_alias=True) for item in self.media_items(dataset_id) if keep_discarded or not item.discarded]
        return frame(rows, MEDIA_LISTING_COLUMNS)

    # -- duplicates -----------------------------------------------------------------------------

    def duplicates(
        self: "Client", dataset_id: Id, *, similarity: float = 0.9, state: str = "open", max_groups: Optional[int] = None
    ) -> DuplicatePage:
        """Near-duplicate groups (every page, or the first ``max_groups``): members (the suggested keeper first, up to
        1,000 a group; ``member_count`` has them all), suggested keeper, decision. ``state`` is open (waiting, or changed
        since decided), decided or all. ``.to_pandas()``: one row per member."""
        groups: List[DuplicateGroup] = []
        page = 0
        while True:
            params = {
                "similarity": similarity,
                "state": state,
                "page_number": page,
                "page_size": DUPLICATES_PAGE_SIZE,
                "members_limit": DUPLICATE_MEMBERS_LIMIT,
            }
            body = DuplicatePage.model_validate(self.request("GET", f"/dataset/{dataset_id}/duplicates", params=params))
            groups.extend(body.groups)
            if len(body.groups) < DUPLICATES_PAGE_SIZE or len(groups) >= body.total or (max_groups is not None and len(groups) >= max_groups):
                break
            page += 1
        found = DuplicatePage(groups=groups[:max_groups], total=body.total, counts=body.counts)
        found._web_url = web_link(self.url, dataset_id, "duplicates", similarity=None if similarity == 0.9 else similarity, state=None if state == "open" else state)
        return found

    def decide(
        self: "Client",
        dataset_id: Id,
        group: Union[DuplicateGroup, Ids],
        *,
        keep: Optional[Ids] = None,
        not_duplicates: bool = False,
    ) -> List[Decision]:
        """Decides one group (a ``DuplicateGroup`` or its media ids): keep the copies in ``keep`` (default: the suggested
        keeper) and discard the rest, or ``not_duplicates=True``. Keepers gain the labels, tags and fields of the
        discarded copies they lack (``merged``; disagreements are listed in ``conflicts``). Undo with ``undo_decision``."""
        if isinstance(group, DuplicateGroup):
            if group.member_count > len(group.members):
                raise MdsError(f"Group {group.group_id} has {group.member_count} members, more than were read: decide it by its media ids")
            media_ids = [str(member.media_id) for member in group.members]
            default_keep = [str(group.suggested_keeper.media_id)]
        else:
            media_ids = [str(media_id) for media_id in group]
            default_keep = []
        body: Dict[str, Any] = {"media_ids": media_ids, "verdict": "not_duplicates" if not_duplicates else "duplicates"}
        if not not_duplicates:
            kept = [str(media_id) for media_id in keep] if keep is not None else default_keep
            if not kept:
                raise MdsError("Say which copies to keep (keep=[media_id, ...]), or not_duplicates=True")
            body["keep_media_ids"] = kept
        answer = self.request("POST", f"/dataset/{dataset_id}/duplicates/decisions", json={"groups": [body]})
        return [Decision.model_validate(item) for item in answer["decisions"]]

    def accept_preview(self: "Client", dataset_id: Id, *, similarity: float = 0.9, max_groups: Optional[int] = None) -> AcceptPreview:
        """What ``accept_suggestions`` would decide (every page, or the first ``max_groups``), with the token that confirms it."""
        groups: List[Any] = []
        page = 0
        while True:
            params = {"similarity": similarity, "page_number": page, "page_size": DUPLICATES_PAGE_SIZE}
            body = AcceptPreview.model_validate(self.request("GET", f"/dataset/{dataset_id}/duplicates/accept_suggestions/preview", params=params))
            groups.extend(body.groups)
            if len(body.groups) < DUPLICATES_PAGE_SIZE or len(groups) >= body.total_groups or (max_groups is not None and len(groups) >= max_groups):
                break
            page += 1
        return AcceptPreview(groups=groups[:max_groups], total_groups=body.total_groups, discarded_media=body.discarded_media, preview_token=body.preview_token)

    def accept_suggestions(
        self: "Client",
        dataset_id: Id,
        *,
        similarity: float = 0.9,
        preview: Optional[AcceptPreview] = None,
        expected_discarded_media: Optional[int] = None,
        max_discarded_media: Optional[int] = None,
    ) -> AcceptedDuplicates:
        """Decides every waiting duplicate group with its suggested keeper, as one action (``undo_accept``). With the
        ``preview`` it confirms, an expected count or a cap, the API refuses (409) when the groups changed since."""
        body: Dict[str, Any] = {"similarity": similarity}
        if preview is not None:
            body["preview_token"] = preview.preview_token
        if expected_discarded_media is not None:
            body["expected_discarded_media"] = expected_discarded_media
        if max_discarded_media is not None:
            body["max_discarded_media"] = max_discarded_media
        return AcceptedDuplicates.model_validate(self.request("POST", f"/dataset/{dataset_id}/duplicates/accept_suggestions", json=body))

    def undo_accept(self: "Client", dataset_id: Id, action_id: Id) -> int:
        """Undoes an Accept all: every decision it made and what they merged into keepers; how many decisions."""
        return int(self.request("DELETE", f"/dataset/{dataset_id}/duplicates/actions/{action_id}")["undone_decisions"])

    def undo_decision(self: "Client", dataset_id: Id, decision_id: Id) -> None:
        self.request("DELETE", f"/dataset/{dataset_id}/duplicates/decisions/{decision_id}")

    # -- labels: the user's classes, their quality, propagation ---------------------------------

    def classes(self: "Client", dataset_id: Id) -> Classes:
        """The classes of the user's labels (the declared label field) with their counts, and how many have none."""
        return Classes.model_validate(self.request("GET", f"/dataset/{dataset_id}/classes"))

    def set_label(
        self: "Client",
        dataset_id: Id,
        label: Optional[str],
        *,
        media_ids: Optional[Ids] = None,
        cluster_ids: Optional[Ids] = None,
        vql: Union[Filter, List[Dict[str, Any]], None] = None,
    ) -> ClassAction:
        """Gives the selected media the class ``label`` (None takes their class off); undo with ``undo_labels``."""
        body = {"selection": selection(media_ids, cluster_ids, vql), "label": label}
        return ClassAction.model_validate(self.request("POST", f"/dataset/{dataset_id}/classes/set", json=body))

    def accept_label_suggestions(self: "Client", dataset_id: Id, *, media_ids: Optional[Ids] = None, min_score: float = 0.0) -> ClassAction:
        """Gives the media the label check flagged (those listed, or all scoring at least ``min_score``) their suggested class."""
        body: Dict[str, Any] = {"min_score": min_score}
        if media_ids is not None:
            body["media_ids"] = [str(media_id) for media_id in media_ids]
        return ClassAction.model_validate(self.request("POST", f"/dataset/{dataset_id}/classes/accept_suggestions", json=body))

    def undo_labels(self: "Client", dataset_id: Id) -> ClassUndo:
        """Undoes the latest change of classes (a set, an accepted suggestion or a propagation)."""
        return ClassUndo.model_validate(self.request("POST", f"/dataset/{dataset_id}/classes/undo"))

    def class_history(self: "Client", dataset_id: Id, media_id: Id) -> List[ClassChange]:
        body = self.request("GET", f"/dataset/{dataset_id}/media/{media_id}/class_history")
        return [ClassChange.model_validate(change) for change in body["changes"]]

    def label_fields(self: "Client", dataset_id: Id) -> LabelFields:
        return LabelFields.model_validate(self.request("GET", f"/dataset/{dataset_id}/label_fields"))

    def declare_label_field(
        self: "Client", dataset_id: Id, label_field: str, *, split_field: Optional[str] = None, wait: bool = True, progress: Optional[bool] = None
    ) -> Task:
        """Declares the custom-metadata field holding labels (and splits) and checks them (a LABEL_QUALITY task)."""
        body = {"label_field": label_field, "split_field": split_field}
        started = StartedTask.model_validate(self.request("PUT", f"/dataset/{dataset_id}/label_fields", json=body))
        return self.wait_for_task(started.task_id, progress=progress) if wait else self.task(started.task_id)

    def label_quality(self: "Client", dataset_id: Id) -> LabelQualityReport:
        """The label check's report: per class counts and error rates, confused pairs, split leakage."""
        return LabelQualityReport.model_validate(self.request("GET", f"/dataset/{dataset_id}/label_quality"))

    def mislabel_records(self: "Client", dataset_id: Id, *, min_score: float = 0.0) -> List[Dict[str, Any]]:
        """The media whose class the label check doubts, most doubtful first: class, suggested class and score."""
        found = self.explore_media(dataset_id, vql=[{"issues": {"op": "issue", "value": "mislabel"}}])
        rows = []
        for media_id in {preview.media_id for cluster in found.clusters for preview in cluster.previews}:
            facts = self.media_facts(dataset_id, media_id)
            if facts.mislabel is None or facts.mislabel.score < min_score:
                continue
            rows.append(
                {
                    "media_id": str(facts.media_id),
                    "file_name": facts.file_name,
                    "class": facts.class_ if facts.class_ is not None else facts.mislabel.label,
                    "suggested_label": facts.mislabel.suggested_label,
                    "mislabel_score": facts.mislabel.score,
                    "caption": facts.caption,
                }
            )
        return sorted(rows, key=lambda row: (-row["mislabel_score"], row["file_name"]))

    def mislabels(self: "Client", dataset_id: Id, *, min_score: float = 0.0) -> Any:
        """``mislabel_records`` as a DataFrame; fix them with ``accept_label_suggestions`` or ``set_label``."""
        return frame(self.mislabel_records(dataset_id, min_score=min_score), MISLABEL_COLUMNS)

    def propagate(
        self: "Client",
        dataset_id: Id,
        label: str,
        *,
        media_ids: Optional[Ids] = None,
        cluster_ids: Optional[Ids] = None,
        vql: Union[Filter, List[Dict[str, Any]], None] = None,
        min_similarity: float = 0.9,
        max_neighbours: int = 50,
        wait: bool = True,
        progress: Optional[bool] = None,
    ) -> Task:
        """Labels the selection and its near neighbours (a LABEL_PROPAGATION task), followed to its end with ``wait``;
        ``propagate_preview`` counts them first."""
        body = {"label": label, "selection": selection(media_ids, cluster_ids, vql), "min_similarity": min_similarity, "max_neighbours": max_neighbours}
        started = StartedTask.model_validate(self.request("POST", f"/dataset/{dataset_id}/labels/propagate", json=body))
        return self.wait_for_task(started.task_id, progress=progress) if wait else self.task(started.task_id)

    def propagate_preview(
        self: "Client",
        dataset_id: Id,
        label: str,
        *,
        media_ids: Optional[Ids] = None,
        cluster_ids: Optional[Ids] = None,
        vql: Union[Filter, List[Dict[str, Any]], None] = None,
        min_similarity: float = 0.9,
        max_neighbours: int = 50,
    ) -> PropagationPreview:
        """How many media ``propagate`` would label (and whose class it would change), at ``min_similarity`` and at 0.5-0.95."""
        body = {"label": label, "selection": selection(media_ids, cluster_ids, vql), "min_similarity": min_similarity, "max_neighbours": max_neighbours}
        return PropagationPreview.model_validate(self.request("POST", f"/dataset/{dataset_id}/labels/propagate/preview", json=body))

    def select(
        self: "Client",
        dataset_id: Id,
        tag: str,
        *,
        n: Optional[int] = None,
        share: Optional[float] = None,
        strategy: Optional[str] = None,
        weights: Optional[Dict[str, float]] = None,
        vql: Union[Filter, List[Dict[str, Any]], None] = None,
        seed: int = 1,
        balance: bool = False,
        wait: bool = True,
        progress: Optional[bool] = None,
    ) -> Task:
        """Chooses ``n`` items (or a ``share``) of those ``vql`` matches for labelling, by a ``strategy`` (typicality,
        representative, diversity, uniqueness, coverage; default typicality) or a mix of ``weights``, as the new tag
        ``tag`` (a SELECTION task, followed to its end with ``wait``); ``selection_picks`` says why each was chosen."""
        body: Dict[str, Any] = {"tag": tag, "seed": seed, "balance": balance}
        if weights is not None:
            body["weights"] = dict(weights)
        if strategy is not None or weights is None:
            body["strategy"] = strategy or "typicality"
        if n is not None:
            body["n"] = n
        if share is not None:
            body["share"] = share
        if vql is not None:
            body["filter"] = vql_json(vql)
        started = StartedTask.model_validate(self.request("POST", f"/dataset/{dataset_id}/selections", json=body))
        return self.wait_for_task(started.task_id, progress=progress) if wait else self.task(started.task_id)

    def selection_picks(self: "Client", dataset_id: Id, tag: Union[Tag, str, UUID]) -> List[Dict[str, Any]]:
        """The items a selection chose for ``tag`` (a Tag, its id or its name), best first: media_id, score and reason."""
        tag_id = self._tag_named(dataset_id, tag, create=False)
        return list(self.request("GET", f"/dataset/{dataset_id}/tags/{tag_id}/picks")["picks"])

    def count_selection(
        self: "Client",
        dataset_id: Id,
        *,
        media_ids: Optional[Ids] = None,
        cluster_ids: Optional[Ids] = None,
        vql: Union[Filter, List[Dict[str, Any]], None] = None,
    ) -> SelectionCount:
        """How many media a selection (as ``tag``, ``set_label`` and ``propagate`` take it) holds, before acting on it."""
        return SelectionCount.model_validate(self.request("POST", f"/dataset/{dataset_id}/selection/count", json=selection(media_ids, cluster_ids, vql)))

    # -- map --------------------------------------------------------------------------------------

    def wait_for_map(self: "Client", dataset_id: Id, *, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Polls the map's summary until the map is no longer being laid out (a MAP_LAYOUT task lays it out after the
        dataset is READY: ``layout_status`` ``laying_out``, then ``ready`` or ``failed``); the summary."""
        return self._poll(
            lambda: self.request("GET", f"/dataset/{dataset_id}/map"),
            lambda found: found.get("layout_status") != "laying_out",
            lambda found: None,
            None,
            lambda found: MdsError(f"The map of dataset {dataset_id} is still being laid out after {timeout} s"),
            desc="map",
            progress=False,
            timeout=timeout,
        )

    def map_records(self: "Client", dataset_id: Id, *, threshold: int = 0, wait: bool = True, timeout: Optional[float] = None) -> List[Dict[str, Any]]:
        """Every point of the dataset's map (each embedded image and frame laid out in 2D from its embedding): its
        ``media_id``, ``x`` and ``y``, in the map's index order; empty before the dataset's first analysis. With
        ``wait`` (the default) it first waits while the map is being laid out (``wait_for_map``)."""
        if wait:
            self.wait_for_map(dataset_id, timeout=timeout)
        xs: List[float] = []
        ys: List[float] = []
        layout: Optional[str] = None
        while True:
            response = self._send("GET", f"/dataset/{dataset_id}/map/points", params={"threshold": threshold, "offset": len(xs)})
            count, total = int(response.headers.get("x-map-points", 0)), int(response.headers.get("x-map-total", 0))
            page_layout = response.headers.get("x-map-layout-id")
            if layout is not None and page_layout != layout:
                raise MdsError("The map was laid out anew while it was read (a reindex): read it again")
            layout = page_layout
            # Columns of count: x and y as little-endian Float32, then four Uint8 colour columns (not kept here).
            xs.extend(struct.unpack_from(f"<{count}f", response.content, 0))
            ys.extend(struct.unpack_from(f"<{count}f", response.content, 4 * count))
            if count == 0 or len(xs) >= total:
                break
        media_ids: List[str] = []
        for start in range(0, len(xs), MAP_SELECTION_SIZE):
            indices = list(range(start, min(len(xs), start + MAP_SELECTION_SIZE)))
            media_ids.extend(self.request("POST", f"/dataset/{dataset_id}/map/selection", json={"layout_id": layout, "indices": indices})["media_ids"])
        return [{"media_id": media_id, "x": x, "y": y} for media_id, x, y in zip(media_ids, xs, ys)]

    def map_points(self: "Client", dataset_id: Id, *, threshold: int = 0, wait: bool = True, timeout: Optional[float] = None) -> Any:
        """``map_records`` as a DataFrame (media_id, x, y): merge it with ``media()`` on media_id to colour a scatter plot."""
        return frame(self.map_records(dataset_id, threshold=threshold, wait=wait, timeout=timeout), MAP_COLUMNS)

    # -- tags -------------------------------------------------------------------------------------

    def tags(self: "Client", dataset_id: Id) -> List[Tag]:
        return [Tag.model_validate(tag) for tag in self.request("GET", f"/dataset/{dataset_id}/tags")["tags"]]

    def create_tag(self: "Client", dataset_id: Id, name: str) -> Tag:
        return Tag.model_validate(self.request("POST", f"/dataset/{dataset_id}/tags", json={"name": name}))

    def delete_tag(self: "Client", dataset_id: Id, tag: Union[Tag, Id]) -> None:
        self.request("DELETE", f"/dataset/{dataset_id}/tags/{_tag_id(tag)}")

    def tag(
        self: "Client",
        dataset_id: Id,
        tag: Union[Tag, str, UUID],
        *,
        media_ids: Optional[Ids] = None,
        cluster_ids: Optional[Ids] = None,
        vql: Union[Filter, List[Dict[str, Any]], None] = None,
    ) -> int:
        """Tags the selected media with ``tag`` (a Tag, its id, or a name: made when the dataset has none of it); how many were tagged."""
        tag_id = self._tag_named(dataset_id, tag, create=True)
        answer = self.request("POST", f"/dataset/{dataset_id}/tags/{tag_id}/media", json=selection(media_ids, cluster_ids, vql))
        return int(answer["tagged"])

    def untag(
        self: "Client",
        dataset_id: Id,
        tag: Union[Tag, str, UUID],
        *,
        media_ids: Optional[Ids] = None,
        cluster_ids: Optional[Ids] = None,
        vql: Union[Filter, List[Dict[str, Any]], None] = None,
    ) -> int:
        """Takes ``tag`` (a Tag, its id or its name) off the selected media; how many lost it."""
        tag_id = self._tag_named(dataset_id, tag, create=False)
        answer = self.request("DELETE", f"/dataset/{dataset_id}/tags/{tag_id}/media", json=selection(media_ids, cluster_ids, vql))
        return int(answer["untagged"])

    def _tag_named(self: "Client", dataset_id: Id, tag: Union[Tag, str, UUID], create: bool) -> str:
        if isinstance(tag, Tag):
            return str(tag.id)
        existing = self.tags(dataset_id)
        for known in existing:
            if str(known.id) == str(tag) or known.name == str(tag):
                return str(known.id)
        if not create:
            raise MdsError(f"The dataset has no tag {tag!r}")
        return str(self.create_tag(dataset_id, str(tag)).id)

    # -- snapshots --------------------------------------------------------------------------------

    def snapshots(self: "Client", dataset_id: Id) -> List[Snapshot]:
        """The dataset's snapshots, newest first."""
        return [Snapshot.model_validate(item) for item in self.request("GET", f"/dataset/{dataset_id}/snapshot")]

    def take_snapshot(self: "Client", dataset_id: Id, name: Optional[str] = None, *, description: Optional[str] = None) -> Snapshot:
        """Freezes the dataset as it is now (READY or PARTIAL INDEX); the snapshot becomes the current one."""
        body = {key: value for key, value in (("name", name), ("description", description)) if value is not None}
        return Snapshot.model_validate(self.request("POST", f"/dataset/{dataset_id}/snapshot", json=body))

    def rename_snapshot(self: "Client", dataset_id: Id, snapshot_id: Id, name: Optional[str] = None, *, description: Optional[str] = None) -> Snapshot:
        body = {key: value for key, value in (("name", name), ("description", description)) if value is not None}
        return Snapshot.model_validate(self.request("PATCH", f"/dataset/{dataset_id}/snapshot/{snapshot_id}", json=body))

    def delete_snapshot(self: "Client", dataset_id: Id, snapshot_id: Id) -> None:
        self.request("DELETE", f"/dataset/{dataset_id}/snapshot/{snapshot_id}")

    def restore_snapshot(
        self: "Client", dataset_id: Id, snapshot_id: Id, *, wait: bool = True, progress: Optional[bool] = None, timeout: Optional[float] = None
    ) -> Task:
        """Restores a snapshot (an id, or ``current``) over the dataset (a SNAPSHOT_RESTORE task), followed to its end with ``wait``."""
        task = self._start("POST", f"/dataset/{dataset_id}/snapshot/{snapshot_id}/restore")
        return self.wait_for_task(task, progress=progress, timeout=timeout) if wait else task

    def clone_snapshot(
        self: "Client", dataset_id: Id, snapshot_id: Id, *, wait: bool = True, progress: Optional[bool] = None, timeout: Optional[float] = None
    ) -> Dataset:
        """Clones a snapshot into a new dataset ``<name> (cloned)`` (a SNAPSHOT_CLONE task of the new dataset, followed to
        its end with ``wait``); the new dataset."""
        task = self._start("POST", f"/dataset/{dataset_id}/snapshot/{snapshot_id}/clone")
        if wait:
            self.wait_for_task(task, progress=progress, timeout=timeout)
        return self.dataset(task.dataset_id)

    def diff(self: "Client", dataset_id: Id, snapshot_id: Id, other_id: Id = "head", *, limit: int = 1000) -> SnapshotDiff:
        """What changed from one snapshot to another (or to ``head``, the data as it is now)."""
        return SnapshotDiff.model_validate(self.request("GET", f"/dataset/{dataset_id}/snapshot/{snapshot_id}/diff/{other_id}", params={"limit": limit}))

    # -- views ------------------------------------------------------------------------------------

    def views(self: "Client", dataset_id: Id) -> List[View]:
        return [View.model_validate(view) for view in self.request("GET", f"/dataset/{dataset_id}/views")["views"]]

    def save_view(
        self: "Client",
        dataset_id: Id,
        name: str,
        *,
        vql: Union[Filter, List[Dict[str, Any]], None] = None,
        caption: Optional[str] = None,
        entity_type: str = "IMAGES",
    ) -> View:
        """Saves Explore's filters as a view, monitored from now on."""
        params = {key: value for key, value in (("entity_type", entity_type), ("caption", caption), ("vql", vql_json(vql))) if value is not None}
        return View.model_validate(self.request("POST", f"/dataset/{dataset_id}/views", params=params, files={"name": (None, name)}))

    def rename_view(self: "Client", dataset_id: Id, view_id: Id, name: str) -> View:
        return View.model_validate(self.request("PATCH", f"/dataset/{dataset_id}/views/{view_id}", json={"name": name}))

    def delete_view(self: "Client", dataset_id: Id, view_id: Id) -> None:
        self.request("DELETE", f"/dataset/{dataset_id}/views/{view_id}")

    def view_trend(self: "Client", dataset_id: Id, view_id: Id) -> Dict[str, Any]:
        """The view's trend: ``points`` (timestamp, batch_id, count, cumulative), ``total_results``, ``last_results``."""
        return dict(self.request("GET", f"/dataset/{dataset_id}/views/{view_id}/trend"))

    def set_view_alerting(self: "Client", dataset_id: Id, view_id: Id, enabled: bool) -> bool:
        answer = self.request("POST", f"/dataset/{dataset_id}/views/{view_id}/alerting", json={"request": {"enabled": enabled}})
        return bool(answer["alerting_enabled"])

    # -- sharing ----------------------------------------------------------------------------------

    def members(self: "Client", dataset_id: Id) -> List[DatasetMember]:
        """Who the dataset is shared with and their roles, its owner first."""
        return [DatasetMember.model_validate(member) for member in self.request("GET", f"/manage/{dataset_id}/share")]

    def share(self: "Client", dataset_id: Id, email: str, role: str = "viewer") -> List[DatasetMember]:
        """Shares the dataset (owner only) with the registered account ``email`` as a viewer or an editor (sharing
        again sets the role; 404 for an address without an account); the members then."""
        self.request("PUT", f"/manage/{dataset_id}/invite", json={"grant_to_user_email": email, "role": role})
        return self.members(dataset_id)

    # -- notifications ----------------------------------------------------------------------------

    def notifications(self: "Client", dataset_id: Optional[Id] = None, *, unread_only: bool = False) -> List[Notification]:
        """The caller's notifications (of one dataset, or all), newest first: a monitored view's new matches when its
        alerting is on, …"""
        found: List[Notification] = []
        while True:
            params = without_none(dataset_id=dataset_id, unread_only="true" if unread_only else None, limit=NOTIFICATIONS_PAGE_SIZE, offset=len(found))
            page = self.request("GET", "/notifications", params=params)
            found.extend(Notification.model_validate(item) for item in page["notifications"])
            if not page["has_more"] or not page["notifications"]:
                return found

    def mark_notifications_read(self: "Client", dataset_id: Optional[Id] = None, notification_id: Optional[Id] = None) -> int:
        """Marks one notification read, or all of them (of one dataset); how many."""
        if notification_id is not None:
            self.request("POST", f"/notifications/{notification_id}/read")
            return 1
        return int(self.request("POST", "/notifications/read-all", params=without_none(dataset_id=dataset_id))["count"])

    # -- enrichment -------------------------------------------------------------------------------

    def enrichment_models(self: "Client", dataset_id: Id) -> List[EnrichmentModel]:
        """The installation's enrichment models; only Active ones can be applied."""
        return [EnrichmentModel.model_validate(model) for model in self.request("GET", f"/enrichment/{dataset_id}/list_models")]

    def enrichment_context(self: "Client", dataset_id: Id) -> EnrichmentContext:
        return EnrichmentContext.model_validate(self.request("GET", f"/enrichment/{dataset_id}/context"))

    def enrich(
        self: "Client",
        dataset_id: Id,
        models: Union[Dict[str, str], Sequence[str]],
        *,
        wait: bool = True,
        progress: Optional[bool] = None,
        timeout: Optional[float] = None,
    ) -> Dataset:
        """Enriches a copy of the dataset (a new dataset ``<name> (enriched)``, an ENRICHMENT task) with ``models``:
        ``{type: model_id}``, or a list of types (each with the installation's Active model of that type). The copy."""
        if not isinstance(models, dict):
            active = {model.type: model.id for model in self.enrichment_models(dataset_id) if model.status == "Active"}
            missing = [kind for kind in models if kind not in active]
            if missing:
                raise MdsError(f"No active enrichment model of type {', '.join(missing)} (active: {', '.join(sorted(active)) or 'none'})")
            models = {kind: active[kind] for kind in models}
        copy = EnrichedCopy.model_validate(self.request("POST", f"/dataset/{dataset_id}/enrich_dataset", json={"enrichment_models": models}))
        if wait:
            self._started(copy.dataset_id, "ENRICHMENT", True, progress, timeout)
        return self.dataset(copy.dataset_id)


def _tag_id(tag: Union[Tag, Id]) -> str:
    return str(tag.id) if isinstance(tag, Tag) else str(tag)


def _fact_check(filters: Dict[str, Any]) -> Any:
    """A test of a media item's facts equal to the Explore filters, None when a filter is one facts cannot answer,
    or False when there is no filter (every member matches)."""
    if filters.get("caption") or filters.get("anchor_media_id") or filters.get("entity_type", "IMAGES") != "IMAGES":
        return None
    tests = []
    if filters.get("labels"):
        wanted = set(filters["labels"])
        tests.append(lambda facts: bool(wanted & set(facts.labels)))
    if filters.get("tags"):
        wanted_tags = {str(tag) for tag in filters["tags"]}
        tests.append(lambda facts: bool(wanted_tags & {str(tag.id) for tag in facts.tags}))
    for element in elements(filters.get("vql")):
        (key, spec), = element.items()
        if key not in FACT_CHECKED_KEYS or spec.get("details"):
            return None
        value = spec["value"]
        if key == "issues":
            tests.append(lambda facts, value=value: value in facts.issues)
        elif key == "labels":
            tests.append(lambda facts, value=value: bool(set(value) & set(facts.labels)))
        elif key == "ground_truth":
            tests.append(lambda facts, value=value: facts.class_ in value)
        else:
            tests.append(lambda facts, value=value: bool({str(v) for v in value} & {str(tag.id) for tag in facts.tags}))
    if not tests:
        return False
    return lambda facts: all(test(facts) for test in tests)


def _media_row(record: Dict[str, Any], label_field: Optional[str]) -> Dict[str, Any]:
    """An export record as a row of the media table: names of labels and tags, issue types, and the user's class."""
    custom = record.get("custom_metadata") or {}
    value = custom.get(label_field) if label_field else None
    row = {column: record.get(column) for column in MEDIA_COLUMNS}
    row["class"] = None if value is None else str(value)
    row["labels"] = [label["label"] for label in record.get("labels") or []]
    row["tags"] = [tag["name"] for tag in record.get("tags") or []]
    row["issues"] = [issue["type"] for issue in record.get("issues") or []]
    return row
