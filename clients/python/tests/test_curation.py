"""The client's calls about a dataset's contents against the real API and worker: the media table, clusters, the map,
duplicates, the user's labels, tags, selections, snapshots, views and their alerts, enrichment, sharing, tasks,
rename and delete (see conftest.py)."""

import html
import json
import math
import shutil
import zipfile
from pathlib import Path
from typing import Any, Dict, List

import pytest

from mds_client import ApiError, Client, Dataset, MdsError, TaskFailed, vql
from conftest import PHOTOS, TASK_TIMEOUT, unique

# Two classes by folder; space/rocket-copy.jpg is rocket.jpg with bytes after its end: another file, the same picture.
LAYOUT = {"space": ("rocket.jpg", "hubble_deep_field.jpg", "astronaut.jpg"), "things": ("camera.jpg", "coffee.jpg", "motorcycle_left.jpg")}


@pytest.fixture(scope="module")
def labelled(client: Client, tmp_path_factory: pytest.TempPathFactory) -> Dataset:
    folder = tmp_path_factory.mktemp("labelled")
    for label, names in LAYOUT.items():
        (folder / label).mkdir()
        for name in names:
            shutil.copy(PHOTOS / name, folder / label / name)
    (folder / "space" / "rocket-copy.jpg").write_bytes((PHOTOS / "rocket.jpg").read_bytes() + b"\0trailing bytes")
    return client.create_dataset(unique("py-curation"), folder, labels_from_folders=True, wait=True, timeout=TASK_TIMEOUT)


def files_by_id(dataset: Dataset) -> Dict[str, str]:
    return {row["media_id"]: row["file_name"] for row in dataset.client.media_records(dataset.id)}


def test_media_is_every_image_with_its_class(labelled: Dataset) -> None:
    table = labelled.media()
    assert len(table) == labelled.n_images == 7
    assert {"media_id", "file_name", "class", "caption", "labels", "tags", "issues", "cluster_id_0", "uniqueness_score"} <= set(table.columns)
    classes = dict(zip(table["file_name"], table["class"]))
    assert classes["space/rocket-copy.jpg"] == "space" and classes["things/coffee.jpg"] == "things"
    assert labelled.classes().label_field == "label"
    assert sorted((c.label, c.count) for c in labelled.classes().classes) == [("space", 4), ("things", 3)]


def test_the_brief_media_table_is_the_listing_of_every_image(labelled: Dataset) -> None:
    brief = labelled.media(brief=True)
    full = labelled.media()
    assert sorted(brief["file_name"]) == sorted(full["file_name"])
    assert dict(zip(brief["file_name"], brief["class"])) == dict(zip(full["file_name"], full["class"]))
    assert set(brief["kind"]) == {"IMAGE"} and not brief["discarded"].any()
    assert [str(item.media_id) for item in labelled.media_items()] == list(brief["media_id"])


def test_explore_media_has_one_row_per_media_item(labelled: Dataset) -> None:
    frame = labelled.explore_media().to_pandas()
    assert sorted(frame["file_name"]) == sorted(labelled.media()["file_name"])
    assert len(labelled.explore_media(vql=vql.ground_truth("nothing-has-this")).to_pandas().columns) > 0


def test_duplicates_decide_undo_and_accept_all(labelled: Dataset) -> None:
    found = labelled.duplicates()
    assert found.total >= 1
    group = next(g for g in found.groups if {m.file_name for m in g.members} >= {"space/rocket.jpg", "space/rocket-copy.jpg"})
    rows = found.to_pandas()
    assert len(rows) == sum(len(g.members) for g in found.groups) and rows["suggested_keeper"].sum() == len(found.groups)
    # In Jupyter: the members' thumbnails, and a link to the same review in the web app.
    assert found.web_url == labelled.web_url("duplicates") == f"{labelled.client.url}/datasets/{labelled.id}/duplicates"
    shown = found._repr_html_()
    assert "open in the web app" in shown and all(f'src="{html.escape(row["thumbnail_uri"], quote=True)}"' in shown for row in found.media())
    assert labelled.duplicates(state="all").web_url == f"{found.web_url}?state=all"

    decided = labelled.decide(group)
    assert len(decided) == 1 and len(decided[0].media_ids) == group.member_count
    assert group.group_id not in {g.group_id for g in labelled.duplicates().groups}
    labelled.undo_decision(decided[0].decision_id)
    assert labelled.duplicates().total == found.total

    preview = labelled.accept_preview()
    assert preview.total_groups == found.total and preview.discarded_media >= 1
    accepted = labelled.accept_suggestions(preview=preview)
    assert (accepted.decided_groups, accepted.discarded_media) == (preview.total_groups, preview.discarded_media)
    assert labelled.duplicates().total == 0
    assert labelled.undo_accept(accepted.action_id) == accepted.decided_groups
    assert labelled.duplicates().total == found.total


def test_set_label_history_undo_and_quality(labelled: Dataset) -> None:
    ids = {name: media_id for media_id, name in files_by_id(labelled).items()}
    action = labelled.set_label("vehicles", media_ids=[ids["things/motorcycle_left.jpg"]])
    assert action.changed == 1
    assert labelled.media_facts(ids["things/motorcycle_left.jpg"]).class_ == "vehicles"
    history = labelled.class_history(ids["things/motorcycle_left.jpg"])
    assert (history[0].action, history[0].previous, history[0].label) == ("set", "things", "vehicles")
    assert labelled.undo_labels().undone == 1
    assert labelled.media_facts(ids["things/motorcycle_left.jpg"]).class_ == "things"

    report = labelled.label_quality()
    assert report.label_field == "label" and report.n_labelled == 7
    assert set(report.to_pandas()["label"]) == {"space", "things"}
    mislabels = labelled.mislabels()
    assert list(mislabels.columns[:5]) == ["media_id", "file_name", "class", "suggested_label", "mislabel_score"]
    assert len(mislabels) == report.n_flagged


def test_propagate_labels_the_neighbours(labelled: Dataset) -> None:
    ids = {name: media_id for media_id, name in files_by_id(labelled).items()}
    preview = labelled.propagate_preview("rockets", media_ids=[ids["space/rocket.jpg"]], min_similarity=0.95)
    assert preview.seeds == 1 and preview.neighbours >= 1
    task = labelled.propagate("rockets", media_ids=[ids["space/rocket.jpg"]], min_similarity=0.95)
    assert (task.task_type, task.status) == ("LABEL_PROPAGATION", "COMPLETED")
    assert labelled.media_facts(ids["space/rocket-copy.jpg"]).class_ == "rockets"
    labelled.undo_labels()
    assert labelled.media_facts(ids["space/rocket-copy.jpg"]).class_ == "space"


def test_tags_snapshots_and_diff(client: Client, labelled: Dataset) -> None:
    before = labelled.snapshot("before tagging")
    assert before.is_current and before.snapshot_id in [s.snapshot_id for s in labelled.snapshots()]
    assert labelled.tag("review", vql=vql.ground_truth("things")) == 3
    ids = {name: media_id for media_id, name in files_by_id(labelled).items()}
    assert labelled.tag("review", media_ids=[ids["space/rocket.jpg"]]) == 1
    assert [(t.name, t.n_media) for t in labelled.tags()] == [("review", 4)]
    assert labelled.untag("review", media_ids=[ids["space/rocket.jpg"]]) == 1
    diff = labelled.diff(before.snapshot_id)
    assert diff.changed.tags.count == 3 and diff.added.count == 0

    restored = labelled.restore(before.snapshot_id, timeout=TASK_TIMEOUT)
    assert (restored.task_type, restored.status, str(restored.dataset_id)) == ("SNAPSHOT_RESTORE", "COMPLETED", str(labelled.id))
    assert labelled.tags() == [] or all(t.n_media == 0 for t in labelled.tags())

    clone = labelled.clone(before.snapshot_id, timeout=TASK_TIMEOUT)
    assert clone.id != labelled.id and clone.display_name.endswith("(cloned)")
    assert [(t.task_type, t.status) for t in clone.tasks().tasks] == [("SNAPSHOT_CLONE", "COMPLETED")]
    assert clone.refresh().n_images == labelled.n_images
    clone.delete()
    with pytest.raises(ApiError) as gone:
        client.dataset(clone.id)
    assert gone.value.status_code == 404


def test_views(labelled: Dataset) -> None:
    view = labelled.save_view("things to check", vql=vql.ground_truth("things"))
    assert view.filters.vql == [{"ground_truth": {"op": "one_of", "value": ["things"]}}]
    assert labelled.rename_view(view.id, "renamed").name == "renamed"
    assert [v.name for v in labelled.views()] == ["renamed"]
    labelled.delete_view(view.id)
    assert labelled.views() == []


def test_enrichment_models_context_and_the_hint_of_an_empty_search(labelled: Dataset) -> None:
    models = labelled.enrichment_models()
    assert {m.type for m in models} >= {"CAPTION_IMAGES"}
    assert labelled.enrichment_context().status == "NEW"
    # No captions and no concept vectors: nothing to find, and the hint says why and what to do.
    found = labelled.search_text("a red sports car on a racetrack")
    assert found.clusters == [] and found.hint.startswith("This dataset has no captions and no concept vectors, which text search reads: enrich a copy")
    assert "import captions as custom metadata" in found.hint and "no concept vectors" in found._repr_html_()


def test_rename_reindex_tasks_and_delete(client: Client, tmp_path: Path) -> None:
    dataset = client.create_dataset(unique("py-lifecycle"), [PHOTOS / "chelsea.jpg", PHOTOS / "coffee.jpg"], wait=True, timeout=TASK_TIMEOUT)
    renamed = dataset.rename(unique("py-renamed"))
    assert renamed.display_name.startswith("py-renamed") and client.dataset(dataset.id).display_name == renamed.display_name
    with pytest.raises(ApiError) as ready:
        dataset.reindex()
    assert ready.value.status_code == 409
    creation = dataset.tasks(task_type="DATASET_CREATION").tasks[0]
    with pytest.raises(ApiError) as finished:
        client.abort_task(creation)
    assert finished.value.status_code == 409
    with pytest.raises(ApiError) as completed:
        client.retry_task(creation)
    assert completed.value.status_code in (400, 409)
    dataset.delete()
    assert dataset.id not in [d.id for d in client.datasets()]


def test_cluster_members_are_every_member_of_each_cluster(client: Client, with_a_mislabel: Dataset) -> None:
    clusters = client.explore_all(with_a_mislabel.id, threshold=4).clusters
    files = {row["media_id"]: row["file_name"] for row in client.media_records(with_a_mislabel.id)}
    members = {cluster.cluster_id: with_a_mislabel.cluster_members(cluster.cluster_id) for cluster in clusters}
    for cluster in clusters:
        assert len(members[cluster.cluster_id]) == cluster.n_images
        assert {p.media_id for p in cluster.previews} <= {m.media_id for m in members[cluster.cluster_id]}
    # Each image is in one cluster, and the four copies of the rocket are one.
    listed = [str(member.media_id) for found in members.values() for member in found]
    assert sorted(listed) == sorted(files)
    rockets = {"space/rocket.jpg", "space/rocket-2.jpg", "space/rocket-3.jpg", "things/rocket-4.jpg"}
    assert any({files[str(m.media_id)] for m in found} == rockets for found in members.values())
    with pytest.raises(ApiError) as unknown:
        with_a_mislabel.cluster_members("6b0c6f7e-3a7e-4d47-9e8b-2f1f2c1c9a11")
    assert unknown.value.status_code == 404


def test_mislabel_records_rank_the_planted_mislabel_first(client: Client, with_a_mislabel: Dataset) -> None:
    records = with_a_mislabel.mislabel_records()
    planted = records[0]
    assert (planted["file_name"], planted["class"], planted["suggested_label"]) == ("things/rocket-4.jpg", "things", "space")
    assert planted["mislabel_score"] > 0.9
    scores = [record["mislabel_score"] for record in records]
    assert scores == sorted(scores, reverse=True)
    assert len(records) == with_a_mislabel.label_quality().n_flagged
    assert [r["file_name"] for r in client.mislabel_records(with_a_mislabel.id, min_score=0.9)] == ["things/rocket-4.jpg"]
    assert list(with_a_mislabel.mislabels(min_score=0.9)["media_id"]) == [planted["media_id"]]

    # Accepting the suggestion moves it to space; undone, it is back in things.
    accepted = with_a_mislabel.accept_label_suggestions(media_ids=[planted["media_id"]])
    assert accepted.changed == 1 and with_a_mislabel.media_facts(planted["media_id"]).class_ == "space"
    assert with_a_mislabel.undo_labels().undone == 1
    assert with_a_mislabel.media_facts(planted["media_id"]).class_ == "things"


def test_label_fields_are_declared_from_imported_metadata(client: Client, tmp_path: Path) -> None:
    dataset = client.create_dataset(unique("py-fields"), [PHOTOS / name for name in ("rocket.jpg", "astronaut.jpg", "coffee.jpg", "camera.jpg")], wait=True, timeout=TASK_TIMEOUT)
    fields = dataset.label_fields()
    assert (fields.label_field, fields.split_field, fields.candidates) == (None, None, [])
    rows = [
        {"file_name": "rocket.jpg", "kind": "space", "part": "train", "labels": ["spacecraft"]},
        {"file_name": "astronaut.jpg", "kind": "space", "part": "test"},
        {"file_name": "coffee.jpg", "kind": "things", "part": "train"},
        {"file_name": "camera.jpg", "kind": "things", "part": "test"},
    ]
    (tmp_path / "fields.json").write_text(json.dumps(rows))
    dataset.import_metadata(tmp_path / "fields.json")
    assert sorted((c.name, c.media, c.values) for c in dataset.label_fields().candidates) == [("kind", 4, 2), ("part", 4, 2)]
    # The imported labels are the media's labels (VQL labels), not a field.
    assert file_names(dataset, vql=vql.labels("spacecraft")) == file_names(dataset, labels=["spacecraft"]) == ["rocket.jpg"]
    assert file_names(dataset, vql=vql.metadata("part", "train") & vql.metadata("kind", "things")) == ["coffee.jpg"]

    task = dataset.declare_label_field("kind", split_field="part")
    assert (task.task_type, task.status) == ("LABEL_QUALITY", "COMPLETED")
    declared = dataset.label_fields()
    assert (declared.label_field, declared.split_field) == ("kind", "part")
    report = dataset.label_quality()
    assert (report.label_field, report.split_field, report.n_labelled) == ("kind", "part", 4)
    assert sorted((c.label, c.count) for c in dataset.classes().classes) == [("space", 2), ("things", 2)]
    with pytest.raises(ApiError) as unknown:
        dataset.declare_label_field("colour")
    assert unknown.value.status_code == 422
    dataset.delete()


def file_names(dataset: Dataset, **filters: Any) -> List[str]:
    """The files Explore lists for ``filters`` (every cluster's previews: these datasets are small)."""
    return sorted(p.file_name for cluster in dataset.client.explore_all(dataset.id, **filters).clusters for p in cluster.previews)


def test_each_vql_builder_filters_as_the_api_reads_it(photos_dataset: Dataset, with_a_mislabel: Dataset) -> None:
    rockets = ["space/rocket-2.jpg", "space/rocket-3.jpg", "space/rocket.jpg", "things/rocket-4.jpg"]
    assert file_names(with_a_mislabel, vql=vql.duplicates(0.95)) == file_names(with_a_mislabel, vql=vql.issue("duplicates")) == rockets
    assert file_names(with_a_mislabel, vql=vql.ground_truth("space") & vql.duplicates(0.95)) == rockets[:3]
    assert file_names(with_a_mislabel, vql=vql.metadata("label", "things")) == [
        "things/camera.jpg", "things/coffee.jpg", "things/motorcycle_left.jpg", "things/rocket-4.jpg",
    ]  # fmt: skip
    assert file_names(with_a_mislabel, vql=vql.issue("mislabel", suggested_label="space")) == ["things/rocket-4.jpg"]
    # Copies are not unique; the five other pictures are.
    assert len(file_names(with_a_mislabel, vql=vql.uniqueness(0.0))) == 9
    assert not set(rockets) & set(file_names(with_a_mislabel, vql=vql.uniqueness(0.9)))
    assert file_names(with_a_mislabel, vql=vql.labels("nothing-has-this")) == []
    # Captions (imported for rocket, coffee and chelsea): full text, and by meaning within a distance.
    assert file_names(photos_dataset, vql=vql.text("espresso")) == ["coffee.jpg"]
    assert file_names(photos_dataset, vql=vql.semantic("spacecraft launch", threshold=0.6)) == ["rocket.jpg"]
    assert "rocket.jpg" in file_names(photos_dataset, vql=vql.semantic("spacecraft launch"))


def test_tags_made_and_deleted_by_themselves(labelled: Dataset) -> None:
    made = labelled.create_tag("to delete")
    assert (made.name, made.n_media) == ("to delete", 0)
    assert made.id in [t.id for t in labelled.tags()]
    ids = {name: media_id for media_id, name in files_by_id(labelled).items()}
    assert labelled.tag(made, media_ids=[ids["space/astronaut.jpg"], ids["things/camera.jpg"]]) == 2
    assert next(t for t in labelled.tags() if t.id == made.id).n_media == 2
    assert "to delete" in [t.name for t in labelled.media_facts(ids["things/camera.jpg"]).tags]
    assert file_names(labelled, vql=vql.tags(made.id)) == file_names(labelled, tags=[made.id]) == ["space/astronaut.jpg", "things/camera.jpg"]

    labelled.delete_tag(made)
    assert made.id not in [t.id for t in labelled.tags()]
    assert "to delete" not in [t.name for t in labelled.media_facts(ids["things/camera.jpg"]).tags]
    with pytest.raises(ApiError) as gone:
        labelled.client.delete_tag(labelled.id, made.id)
    assert gone.value.status_code == 404


def test_snapshots_renamed_and_deleted(client: Client, labelled: Dataset) -> None:
    first = labelled.snapshot(unique("first"), description="before")
    second = labelled.snapshot(unique("second"))
    renamed = labelled.rename_snapshot(first.snapshot_id, "renamed", description="after")
    assert (renamed.snapshot_id, renamed.snapshot_name, renamed.description) == (first.snapshot_id, "renamed", "after")
    listed = {s.snapshot_id: s for s in labelled.snapshots()}
    assert (listed[first.snapshot_id].snapshot_name, listed[first.snapshot_id].description) == ("renamed", "after")
    assert listed[second.snapshot_id].is_current and not listed[first.snapshot_id].is_current

    with pytest.raises(ApiError) as current:
        client.delete_snapshot(labelled.id, second.snapshot_id)
    assert current.value.status_code == 409
    labelled.delete_snapshot(first.snapshot_id)
    assert first.snapshot_id not in [s.snapshot_id for s in labelled.snapshots()]
    with pytest.raises(ApiError) as gone:
        client.rename_snapshot(labelled.id, first.snapshot_id, "again")
    assert gone.value.status_code == 404


def test_view_trend_and_alerting_follow_the_batches(client: Client) -> None:
    dataset = client.create_dataset(unique("py-trend"), [PHOTOS / "rocket.jpg", PHOTOS / "coffee.jpg"], wait=True, timeout=TASK_TIMEOUT)
    every = dataset.save_view("every image")
    assert dataset.view_trend(every.id) == {"points": [], "total_results": 0, "last_results": None}

    assert dataset.set_view_alerting(every.id, False) is False
    assert [v.alerting_enabled for v in dataset.views()] == [False]
    dataset.add_media([PHOTOS / "camera.jpg", PHOTOS / "chelsea.jpg"], timeout=TASK_TIMEOUT)
    trend = client.view_trend(dataset.id, every.id)
    assert [(p["count"], p["cumulative"]) for p in trend["points"]] == [(2, 2)] and trend["total_results"] == 2

    def alerts(**options: bool) -> list:
        return [n for n in dataset.notifications(**options) if n.entity_type == "saved_view" and n.entity_id == every.id]

    assert alerts() == []
    assert client.set_view_alerting(dataset.id, every.id, True) is True
    assert [v.alerting_enabled for v in dataset.views()] == [True]
    dataset.add_media([PHOTOS / "astronaut.jpg"], timeout=TASK_TIMEOUT)
    assert [(p["count"], p["cumulative"]) for p in client.view_trend(dataset.id, every.id)["points"]] == [(2, 2), (1, 3)]
    (alert,) = alerts(unread_only=True)
    assert alert.message == f'1 new result for view "every image" in {dataset.display_name}' and alert.read_at is None
    assert client.mark_notifications_read(notification_id=alert.id) == 1
    assert alerts(unread_only=True) == [] and alerts()[0].read_at is not None
    assert client.mark_notifications_read(dataset.id) == 0
    dataset.delete()


def test_an_aborted_creation_is_retried_to_the_end(client: Client) -> None:
    dataset = client.create_dataset(unique("py-aborted"), sorted(PHOTOS.glob("*.jpg")))
    creation = dataset.tasks(task_type="DATASET_CREATION").tasks[0]
    aborted = client.abort_task(creation)
    assert aborted.task_id == creation.task_id and aborted.status in ("ABORTED", "RUNNING", "INITIALIZING")
    with pytest.raises(TaskFailed) as ended:
        client.wait_for_task(creation, timeout=TASK_TIMEOUT)
    assert ended.value.task.status == "ABORTED"
    retried = client.retry_task(creation, wait=True, timeout=TASK_TIMEOUT)
    assert (retried.task_type, retried.status) == ("DATASET_CREATION", "COMPLETED")
    ready = client.dataset(dataset.id)
    assert (ready.status_new, ready.n_images) == ("READY", len(list(PHOTOS.glob("*.jpg"))))
    dataset.delete()


def test_a_selection_is_counted_and_exported_alone(client: Client, with_a_mislabel: Dataset, tmp_path: Path) -> None:
    files = {row["file_name"]: row["media_id"] for row in client.media_records(with_a_mislabel.id)}
    rockets = next(c for c in client.explore_all(with_a_mislabel.id, threshold=4).clusters if c.n_images == 4)
    chosen = [files["things/coffee.jpg"], files["space/rocket.jpg"]]
    # A union, each media once: the rocket is in the cluster too.
    counted = with_a_mislabel.count_selection(media_ids=chosen, cluster_ids=[rockets.cluster_id])
    assert (counted.total, counted.images, counted.video_frames, counted.videos) == (5, 5, 0, 0)
    assert with_a_mislabel.count_selection(vql=vql.ground_truth("things")).total == 4
    assert with_a_mislabel.count_selection(vql=[]).total == 9

    out = with_a_mislabel.export(tmp_path / "chosen.zip", "json", media_ids=chosen, cluster_ids=[rockets.cluster_id])
    with zipfile.ZipFile(out) as zipped:
        exported = sorted(record["file_name"] for record in json.loads(zipped.read("metadata.json")))
    assert exported == ["space/rocket-2.jpg", "space/rocket-3.jpg", "space/rocket.jpg", "things/coffee.jpg", "things/rocket-4.jpg"]
    started = client.start_export(with_a_mislabel.id, "json", media_ids=chosen[:1])
    status = client.wait_for_export(with_a_mislabel.id, started)
    assert status.selection is not None and status.selection.n_media == 1
    with pytest.raises(MdsError, match="The selection is empty"):
        client.start_export(with_a_mislabel.id, "json", media_ids=[])


def test_map_points_place_every_image_and_copies_together(client: Client, with_a_mislabel: Dataset) -> None:
    points = with_a_mislabel.map_points()
    assert list(points.columns) == ["media_id", "x", "y"]
    placed = points.merge(with_a_mislabel.media()[["media_id", "file_name"]], on="media_id")
    assert len(placed) == len(points) == with_a_mislabel.n_images
    bounds = client.request("GET", f"/dataset/{with_a_mislabel.id}/map")["bounds"]
    assert placed["x"].between(bounds["min_x"] - 1e-6, bounds["max_x"] + 1e-6).all()
    assert placed["y"].between(bounds["min_y"] - 1e-6, bounds["max_y"] + 1e-6).all()
    # The four files of one picture lie closer to each other than to any other image.
    where = {row["file_name"]: (row["x"], row["y"]) for _, row in placed.iterrows()}
    rockets = {"space/rocket.jpg", "space/rocket-2.jpg", "space/rocket-3.jpg", "things/rocket-4.jpg"}
    apart = max(math.dist(where[a], where[b]) for a in rockets for b in rockets)
    assert all(math.dist(where[a], point) > apart for a in rockets for name, point in where.items() if name not in rockets)


def test_a_dataset_shared_with_a_colleague(client: Client, colleague: str) -> None:
    dataset = client.create_dataset(unique("py-shared"), [PHOTOS / "rocket.jpg"], wait=True, timeout=TASK_TIMEOUT)
    (owner,) = dataset.members()
    assert owner.role == "owner"
    assert [(m.email, m.role) for m in dataset.share(colleague)] == [(owner.email, "owner"), (colleague, "viewer")]
    # Sharing again sets the role.
    assert [(m.email, m.role) for m in dataset.share(colleague, "editor")][1] == (colleague, "editor")
    with pytest.raises(ApiError) as unknown:
        dataset.share("nobody@example.com")
    assert unknown.value.status_code == 404
    dataset.delete()


def test_select_chooses_for_labelling_as_a_tag_with_reasons(labelled: Dataset) -> None:
    task = labelled.select("to label", n=4, strategy="typicality", seed=7, balance=True)
    assert (task.task_type, task.status) == ("SELECTION", "COMPLETED")
    picks = labelled.selection_picks("to label")
    assert len(picks) == 4 and all(pick["reason"].startswith("typicality: ") for pick in picks)
    classes = {labelled.media_facts(pick["media_id"]).class_ for pick in picks}
    assert classes == {"space", "things"}
    with pytest.raises(ApiError) as refused:
        labelled.select("too many", n=1000)
    assert refused.value.status_code == 422 and "the filter matches" in str(refused.value)
    labelled.delete_tag(next(tag for tag in labelled.tags() if tag.name == "to label"))
