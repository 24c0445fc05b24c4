"""The calls about one dataset on its record: ``ds = client.dataset(id)``, then ``ds.media()``, ``ds.duplicates()``,
``ds.set_label(...)``, ``ds.snapshot()`` … Each is the ``Client`` call of the same name with this dataset's id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union
from urllib.parse import urlencode

from .errors import MdsError

if TYPE_CHECKING:
    from pathlib import Path

    from .client import Client
    from .models import (
        AcceptedDuplicates, AcceptPreview, ClassAction, ClassChange, Classes, ClassUndo, Dataset, DatasetMember,
        Decision, DuplicatePage, EnrichmentContext, EnrichmentModel, ExploreResult, LabelFields, LabelQualityReport,
        MediaFacts, MediaItem, MediaPage, Notification, Preview, PropagationPreview, SelectionCount, Snapshot,
        SnapshotDiff, Tag, Task, TaskPage, View,
    )


def web_link(service_url: str, dataset_id: Any, view: str = "explore", **query: Any) -> str:
    """The web app's page ``view`` of a dataset, with the query parameters it reads (those None or empty left out)."""
    given = {key: str(value) for key, value in query.items() if value not in (None, "")}
    return f"{service_url}/datasets/{dataset_id}/{view}" + (f"?{urlencode(given)}" if given else "")


class DatasetCalls:
    """Mixed into the ``Dataset`` model; needs the client that read it (``Client.dataset``, ``datasets``, ``create_dataset``)."""

    @property
    def client(self: "Dataset") -> "Client":
        if self._client is None:
            raise MdsError("This Dataset was not read through a Client: use client.dataset(id)")
        return self._client

    def refresh(self: "Dataset") -> Dataset:
        """The dataset as it is now (status, counts)."""
        return self.client.dataset(self.id)

    def web_url(self: "Dataset", page: str = "explore", *, caption: Optional[str] = None, vql: Any = None) -> str:
        """The same view in the web app (Explore with ``caption`` and ``vql``; or ``duplicates``, ``labels``, ``map``)."""
        from .vql import vql_json

        return web_link(self.client.url, self.id, page, caption=caption, vql=vql_json(vql))

    def _repr_html_(self: "Dataset") -> str:
        import html

        link = html.escape(self.web_url(), quote=True) if self._client is not None else ""
        name = html.escape(self.display_name)
        anchor = f' — <a href="{link}" target="_blank" rel="noopener">open in the web app</a>' if link else ""
        return f"<p><b>{name}</b> ({self.status_new}, {self.n_images} images, {self.n_videos} videos){anchor}</p>"

    # Every call below is the Client's, with this dataset's id.
    def media(self: "Dataset", **options: Any) -> Any:
        return self.client.media(self.id, **options)

    def media_items(self: "Dataset") -> List[MediaItem]:
        return self.client.media_items(self.id)

    def media_page(self: "Dataset", **options: Any) -> MediaPage:
        return self.client.media_page(self.id, **options)

    def media_facts(self: "Dataset", media_id: Any) -> MediaFacts:
        return self.client.media_facts(self.id, media_id)

    def media_records(self: "Dataset", **options: Any) -> List[Dict[str, Any]]:
        return self.client.media_records(self.id, **options)

    def cluster_members(self: "Dataset", cluster_id: Any) -> List[Preview]:
        return self.client.cluster_members(self.id, cluster_id)

    def explore(self: "Dataset", **filters: Any) -> ExploreResult:
        return self.client.explore(self.id, **filters)

    def explore_media(self: "Dataset", **filters: Any) -> ExploreResult:
        return self.client.explore_media(self.id, **filters)

    def search_text(self: "Dataset", text: str, **options: Any) -> ExploreResult:
        return self.client.search_text(self.id, text, **options)

    def search_image(self: "Dataset", image: Any, **options: Any) -> ExploreResult:
        return self.client.search_image(self.id, image, **options)

    def add_media(self: "Dataset", source: Any, **options: Any) -> Task:
        return self.client.add_media(self.id, source, **options)

    def import_metadata(self: "Dataset", file: Any, **options: Any) -> Task:
        return self.client.import_metadata(self.id, file, **options)

    def export(self: "Dataset", out: Any, export_format: str = "parquet", **options: Any) -> Path:
        return self.client.export(self.id, out, export_format, **options)

    def tasks(self: "Dataset", **options: Any) -> TaskPage:
        return self.client.tasks(self.id, **options)

    def duplicates(self: "Dataset", **options: Any) -> DuplicatePage:
        return self.client.duplicates(self.id, **options)

    def decide(self: "Dataset", group: Any, **options: Any) -> List[Decision]:
        return self.client.decide(self.id, group, **options)

    def accept_suggestions(self: "Dataset", **options: Any) -> AcceptedDuplicates:
        return self.client.accept_suggestions(self.id, **options)

    def accept_preview(self: "Dataset", **options: Any) -> AcceptPreview:
        return self.client.accept_preview(self.id, **options)

    def undo_accept(self: "Dataset", action_id: Any) -> int:
        return self.client.undo_accept(self.id, action_id)

    def undo_decision(self: "Dataset", decision_id: Any) -> None:
        self.client.undo_decision(self.id, decision_id)

    def classes(self: "Dataset") -> Classes:
        return self.client.classes(self.id)

    def set_label(self: "Dataset", label: Optional[str], **selection: Any) -> ClassAction:
        return self.client.set_label(self.id, label, **selection)

    def accept_label_suggestions(self: "Dataset", **options: Any) -> ClassAction:
        return self.client.accept_label_suggestions(self.id, **options)

    def undo_labels(self: "Dataset") -> ClassUndo:
        return self.client.undo_labels(self.id)

    def class_history(self: "Dataset", media_id: Any) -> List[ClassChange]:
        return self.client.class_history(self.id, media_id)

    def label_fields(self: "Dataset") -> LabelFields:
        return self.client.label_fields(self.id)

    def declare_label_field(self: "Dataset", label_field: str, **options: Any) -> Task:
        return self.client.declare_label_field(self.id, label_field, **options)

    def label_quality(self: "Dataset") -> LabelQualityReport:
        return self.client.label_quality(self.id)

    def mislabels(self: "Dataset", **options: Any) -> Any:
        return self.client.mislabels(self.id, **options)

    def mislabel_records(self: "Dataset", **options: Any) -> List[Dict[str, Any]]:
        return self.client.mislabel_records(self.id, **options)

    def propagate(self: "Dataset", label: str, **options: Any) -> Task:
        return self.client.propagate(self.id, label, **options)

    def propagate_preview(self: "Dataset", label: str, **options: Any) -> PropagationPreview:
        return self.client.propagate_preview(self.id, label, **options)

    def select(self: "Dataset", tag: str, **options: Any) -> Task:
        return self.client.select(self.id, tag, **options)

    def selection_picks(self: "Dataset", tag: Any) -> List[Dict[str, Any]]:
        return self.client.selection_picks(self.id, tag)

    def count_selection(self: "Dataset", **selection: Any) -> SelectionCount:
        return self.client.count_selection(self.id, **selection)

    def map_points(self: "Dataset", **options: Any) -> Any:
        return self.client.map_points(self.id, **options)

    def tags(self: "Dataset") -> List[Tag]:
        return self.client.tags(self.id)

    def create_tag(self: "Dataset", name: str) -> Tag:
        return self.client.create_tag(self.id, name)

    def delete_tag(self: "Dataset", tag: Any) -> None:
        self.client.delete_tag(self.id, tag)

    def tag(self: "Dataset", tag: Any, **selection: Any) -> int:
        return self.client.tag(self.id, tag, **selection)

    def untag(self: "Dataset", tag: Any, **selection: Any) -> int:
        return self.client.untag(self.id, tag, **selection)

    def snapshots(self: "Dataset") -> List[Snapshot]:
        return self.client.snapshots(self.id)

    def snapshot(self: "Dataset", name: Optional[str] = None, **options: Any) -> Snapshot:
        """Takes a snapshot of the dataset as it is now."""
        return self.client.take_snapshot(self.id, name, **options)

    def rename_snapshot(self: "Dataset", snapshot_id: Any, name: Optional[str] = None, **options: Any) -> Snapshot:
        return self.client.rename_snapshot(self.id, snapshot_id, name, **options)

    def delete_snapshot(self: "Dataset", snapshot_id: Any) -> None:
        self.client.delete_snapshot(self.id, snapshot_id)

    def restore(self: "Dataset", snapshot_id: Any, **options: Any) -> Task:
        return self.client.restore_snapshot(self.id, snapshot_id, **options)

    def clone(self: "Dataset", snapshot_id: Any, **options: Any) -> Dataset:
        return self.client.clone_snapshot(self.id, snapshot_id, **options)

    def diff(self: "Dataset", snapshot_id: Any, other_id: Any = "head", **options: Any) -> SnapshotDiff:
        return self.client.diff(self.id, snapshot_id, other_id, **options)

    def views(self: "Dataset") -> List[View]:
        return self.client.views(self.id)

    def save_view(self: "Dataset", name: str, **filters: Any) -> View:
        return self.client.save_view(self.id, name, **filters)

    def rename_view(self: "Dataset", view_id: Any, name: str) -> View:
        return self.client.rename_view(self.id, view_id, name)

    def delete_view(self: "Dataset", view_id: Any) -> None:
        self.client.delete_view(self.id, view_id)

    def view_trend(self: "Dataset", view_id: Any) -> Dict[str, Any]:
        return self.client.view_trend(self.id, view_id)

    def set_view_alerting(self: "Dataset", view_id: Any, enabled: bool) -> bool:
        return self.client.set_view_alerting(self.id, view_id, enabled)

    def members(self: "Dataset") -> List[DatasetMember]:
        return self.client.members(self.id)

    def share(self: "Dataset", email: str, role: str = "viewer") -> List[DatasetMember]:
        return self.client.share(self.id, email, role)

    def notifications(self: "Dataset", **options: Any) -> List[Notification]:
        return self.client.notifications(self.id, **options)

    def enrichment_models(self: "Dataset") -> List[EnrichmentModel]:
        return self.client.enrichment_models(self.id)

    def enrichment_context(self: "Dataset") -> EnrichmentContext:
        return self.client.enrichment_context(self.id)

    def enrich(self: "Dataset", models: Union[Dict[str, str], List[str]], **options: Any) -> Dataset:
        return self.client.enrich(self.id, models, **options)

    def reindex(self: "Dataset", **options: Any) -> Task:
        return self.client.reindex(self.id, **options)

    def rename(self: "Dataset", name: str) -> Dataset:
        return self.client.rename_dataset(self.id, name)

    def delete(self: "Dataset") -> None:
        self.client.delete_dataset(self.id)
