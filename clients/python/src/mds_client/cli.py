"""``mds``: the media dataset service from a shell.

Results go to stdout (ids, tables, or JSON with ``--json``), progress bars, warnings and errors to stderr; a
failed call prints the API's status and detail and exits 1. Text from the service is escaped before it reaches
the terminal, so a dataset or file name cannot move the cursor, recolour or forge lines.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence

from . import __version__
from .client import Client, poll_delays, redact
from .errors import MdsError
from .models import ExploreResult, Task
from .terminal import printable

ENRICHMENT_TYPES = ("IMAGE_TAGGING", "OBJECT_DETECTION", "CAPTION_IMAGES", "CAPTION_OBJECTS", "MULTIMODEL_IMAGE_ENCODING")
# The exit status of a process whose reader went away (128 + SIGPIPE), as `yes | head` reports it.
BROKEN_PIPE_STATUS = 141


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    warnings.showwarning = _warn
    try:
        with Client(args.url, args.api_key, args.api_secret, progress=not args.no_progress) as client:
            status = int(args.run(client, args) or 0)
        sys.stdout.flush()
        return status
    except MdsError as error:
        print(f"mds: error: {printable(redact(str(error)))}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader (`| head`) has what it wanted: stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE_STATUS
    except KeyboardInterrupt:
        return 130


def _warn(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Optional[str] = None) -> None:
    print(f"mds: warning: {printable(redact(str(message)))}", file=sys.stderr)


def add_connection_options(parser: argparse.ArgumentParser, *, root: bool) -> None:
    """--url, --api-key, --api-secret, --no-progress: before the command (root) or after it. A command's copy has no
    default, so an option given before the command is not reset by the command's parser."""
    unset: Dict[str, Any] = {} if root else {"default": argparse.SUPPRESS}
    parser.add_argument("--url", **({"default": None} if root else unset), help="service address (env MDS_URL; default http://localhost:8080)")
    parser.add_argument("--api-key", **({"default": None} if root else unset), help="API key (env MDS_API_KEY)")
    parser.add_argument("--api-secret", **({"default": None} if root else unset), help="its secret (env MDS_API_SECRET)")
    parser.add_argument("--no-progress", action="store_true", **({"default": False} if root else unset), help="no progress bars")


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(prog="mds", description="The media dataset service from a shell. Options may stand before or after the command.")
    add_connection_options(root, root=True)
    root.add_argument("--version", action="version", version=f"mds {__version__}")
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, run: Callable[[Client, argparse.Namespace], int], help: str, listing: bool = False) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        add_connection_options(sub, root=False)
        if listing:
            sub.add_argument("--json", action="store_true", help="JSON instead of a table")
        sub.set_defaults(run=run)
        return sub

    create = command("create", run_create, "create a dataset from a folder, files or an archive; prints its id")
    create.add_argument("name")
    create.add_argument("source", nargs="+", metavar="SOURCE", help="a folder, an archive (.zip, .tar, .tar.gz) or media files")
    create.add_argument("--wait", action="store_true", help="follow indexing to its end (exit 1 unless it completes)")
    create.add_argument(
        "--labels-from-folders", action="store_true", help="each file's folder is its label (cats/1.jpg: cats), checked for mislabels while indexing"
    )
    create.add_argument("--label-field", default="label", help="the custom-metadata field the labels go in (default: label)")
    create.add_argument(
        "--labels-from",
        choices=("folder", "csv", "coco"),
        default=None,
        help="where labels come from: folder (as --labels-from-folders), or csv / coco with --labels FILE",
    )
    create.add_argument("--labels", metavar="FILE", default=None, help="a CSV of file,label[,split] rows or a COCO JSON naming the files by path or base name")

    add = command("add", run_add, "add media to an indexed dataset; prints the task's id")
    add.add_argument("dataset")
    add.add_argument("source", nargs="+", metavar="SOURCE", help="a folder, an archive (.zip, .tar, .tar.gz) or media files")
    add.add_argument("--auto-reindex", action="store_true", help="reindex after the batch, so the dataset ends READY")
    add.add_argument("--no-wait", action="store_true", help="return once the batch is accepted instead of following it to its end")
    add.add_argument("--labels-from-folders", action="store_true", help="each new file's folder is its label (cats/1.jpg: cats), checked again")
    add.add_argument("--label-field", default=None, help="the field the labels go in (default: the one the dataset's labels use, else label)")
    add.add_argument("--labels-from", choices=("csv", "coco"), default=None, help="labels from a file: csv or coco, with --labels FILE")
    add.add_argument("--labels", metavar="FILE", default=None, help="a CSV of file,label[,split] rows or a COCO JSON naming the new files by path or base name")

    command("datasets", run_datasets, "list your datasets", listing=True)

    tasks = command("tasks", run_tasks, "list tasks, newest first", listing=True)
    tasks.add_argument("--dataset", help="only this dataset's tasks")
    tasks.add_argument("--status", help="INITIALIZING, RUNNING, COMPLETED, FAILED or ABORTED")
    tasks.add_argument("--type", dest="task_type", help="DATASET_CREATION, MEDIA_ADDITION, EXPORT, ...")
    tasks.add_argument("--limit", type=int, default=20, help="how many (5-50, default 20)")
    tasks.add_argument("--watch", action="store_true", help="print changes until no listed task is running")

    one_task = command("task", run_task, "one task: its type, status, progress and message", listing=True)
    one_task.add_argument("task")
    one_task.add_argument("--wait", action="store_true", help="follow it to its end with a progress bar (exit 1 unless it completes)")

    for name, run, verb in (("abort", run_abort, "abort a running task"), ("retry", run_retry, "retry a FAILED or ABORTED task")):
        task = command(name, run, f"{verb}; prints its status")
        task.add_argument("task")

    search = command("search", run_search, "search a dataset by text or by an image", listing=True)
    search.add_argument("dataset")
    query = search.add_mutually_exclusive_group(required=True)
    query.add_argument("--text", help="natural-language search over captions")
    query.add_argument("--image", help="an image file: visual search")
    search.add_argument("--max-distance", type=float, help="keep text results closer than this cosine distance")
    search.add_argument("--limit", type=int, default=20, help="most results shown (default 20)")

    media = command("media", run_media, "every image and video frame of a dataset, with its class, issues and caption", listing=True)
    media.add_argument("dataset")
    media.add_argument("--snapshot", help="a snapshot's media instead of the dataset as it is now")
    media.add_argument("--brief", action="store_true", help="file, kind, class and size only, from the paged listing (no export)")

    duplicates = command("duplicates", run_duplicates, "near-duplicate groups and their suggested keepers", listing=True)
    duplicates.add_argument("dataset")
    duplicates.add_argument("--state", choices=("open", "decided", "all"), default="open")
    duplicates.add_argument("--similarity", type=float, default=0.9, help="pair similarity at least (0.9-1, default 0.9)")
    duplicates.add_argument("--accept", action="store_true", help="decide every waiting group with its suggested keeper")

    mislabels = command("mislabels", run_mislabels, "media whose class the label check doubts, most doubtful first", listing=True)
    mislabels.add_argument("dataset")
    mislabels.add_argument("--min-score", type=float, default=0.0, help="only those scoring at least this (0-1)")
    mislabels.add_argument("--accept", action="store_true", help="give them their suggested class (undo: the web app or Client.undo_labels)")

    classes = command("classes", run_classes, "the classes of your labels with their counts", listing=True)
    classes.add_argument("dataset")

    tags = command("tags", run_tags, "a dataset's tags", listing=True)
    tags.add_argument("dataset")

    select = command("select", run_select, "choose media for labelling as a new tag (a SELECTION task); prints the picks", listing=True)
    select.add_argument("dataset")
    select.add_argument("tag", help="the new tag's name")
    size = select.add_mutually_exclusive_group(required=True)
    size.add_argument("-n", type=int, help="how many to choose")
    size.add_argument("--share", type=float, help="or which share of the matches (0-1]")
    select.add_argument("--strategy", default=None, help="typicality (default), representative, diversity, uniqueness or coverage")
    select.add_argument("--weights", default=None, help='a JSON mix instead, e.g. \'{"typicality": 2, "diversity": 1}\'')
    select.add_argument("--vql", default=None, help="a JSON list of VQL filters: the pool (default: every image and frame)")
    select.add_argument("--seed", type=int, default=1, help="the same seed chooses the same items (default 1)")
    select.add_argument("--balance", action="store_true", help="split the budget evenly over the classes of your labels (or clusters)")

    tag = command("tag", run_tag, "tag media (by ids, clusters or a VQL filter); prints how many")
    tag.add_argument("dataset")
    tag.add_argument("tag", help="the tag's name (made when missing) or id")
    tag.add_argument("--media", nargs="+", default=None, metavar="ID", help="media ids")
    tag.add_argument("--cluster", nargs="+", default=None, metavar="ID", help="cluster ids (every member)")
    tag.add_argument("--vql", default=None, help='a JSON list of VQL filters, e.g. \'[{"issues": {"op": "issue", "value": "blur"}}]\' ("[]": all)')
    tag.add_argument("--remove", action="store_true", help="take the tag off instead")

    snapshot = commands.add_parser("snapshot", help="list, take, restore, clone, diff or delete snapshots", description="Snapshots of a dataset.")
    add_connection_options(snapshot, root=False)
    actions = snapshot.add_subparsers(dest="action", required=True, metavar="ACTION")

    def snapshot_action(name: str, run: Callable[[Client, argparse.Namespace], int], help: str, *, snapshot_id: bool = False, listing: bool = False) -> argparse.ArgumentParser:
        sub = actions.add_parser(name, help=help, description=help)
        add_connection_options(sub, root=False)
        sub.add_argument("dataset")
        if snapshot_id:
            sub.add_argument("snapshot", help="the snapshot's id")
        if listing:
            sub.add_argument("--json", action="store_true", help="JSON instead of a table")
        sub.set_defaults(run=run)
        return sub

    snapshot_action("list", run_snapshot_list, "the dataset's snapshots, newest first", listing=True)
    take = snapshot_action("take", run_snapshot_take, "freeze the dataset as it is now; prints the snapshot's id")
    take.add_argument("--name")
    take.add_argument("--description")
    snapshot_action("restore", run_snapshot_restore, "restore a snapshot over the dataset (waits for the task)", snapshot_id=True)
    snapshot_action("clone", run_snapshot_clone, "clone a snapshot into a new dataset; prints its id", snapshot_id=True)
    diff = snapshot_action("diff", run_snapshot_diff, "what changed since a snapshot (or between two)", snapshot_id=True, listing=True)
    diff.add_argument("other", nargs="?", default="head", help="another snapshot's id (default: head, the data as it is now)")
    snapshot_action("delete", run_snapshot_delete, "delete a snapshot", snapshot_id=True)

    enrich = command("enrich", run_enrich, "enrich a copy of a dataset with models; prints the copy's id", listing=True)
    enrich.add_argument("dataset")
    enrich.add_argument("--model", action="append", default=[], metavar="TYPE[=ID]", help=f"a model to apply ({', '.join(ENRICHMENT_TYPES)}); repeatable")
    enrich.add_argument("--list", action="store_true", help="list the models instead")
    enrich.add_argument("--no-wait", action="store_true", help="return once the copy is made instead of following the task")

    reindex = command("reindex", run_reindex, "re-cluster a PARTIAL INDEX dataset; prints the task's id")
    reindex.add_argument("dataset")
    reindex.add_argument("--no-wait", action="store_true")

    rename = command("rename", run_rename, "rename a dataset")
    rename.add_argument("dataset")
    rename.add_argument("name")

    delete = command("delete", run_delete, "delete a dataset (owner only) and everything in it")
    delete.add_argument("dataset")
    delete.add_argument("--yes", action="store_true", help="do not ask (needed when not at a terminal)")

    export = command("export", run_export, "export a dataset and download the ZIP")
    export.add_argument("dataset")
    export.add_argument("--format", default="parquet", help="one of the service's export formats (mds export-formats; default parquet)")
    export.add_argument("--out", required=True, help="where to write the ZIP")
    export.add_argument("--include-images", action="store_true", help="add the original files under images/")

    command("export-formats", run_export_formats, "list the export formats the service takes", listing=True)
    return root


def print_json(value: Any) -> None:
    # json.dumps escapes control characters (and, ensure_ascii, every non-ASCII one): safe for a terminal as is.
    print(json.dumps(value, indent=2, default=str))


def print_table(header: List[str], rows: List[List[Any]]) -> None:
    cells = [[printable("" if cell is None else cell) for cell in row] for row in [header, *rows]]
    widths = [max(len(cell) for cell in column) for column in zip(*cells)]
    for row in cells:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())


def say(text: str) -> None:
    print(printable(text), flush=True)


def note(text: str) -> None:
    print(f"mds: {printable(text)}", file=sys.stderr)


def run_create(client: Client, args: argparse.Namespace) -> int:
    source: Any = args.source[0] if len(args.source) == 1 else args.source
    from_folders = args.labels_from_folders or args.labels_from == "folder"
    if (args.labels is None) != (args.labels_from in (None, "folder")):
        raise MdsError("--labels FILE goes with --labels-from csv or coco")
    dataset = client.create_dataset(
        args.name,
        source,
        wait=args.wait,
        labels_from_folders=from_folders,
        label_field=args.label_field,
        labels_file=args.labels,
        labels_from=None if from_folders else args.labels_from,
    )
    say(str(dataset.id))
    return 0


def run_add(client: Client, args: argparse.Namespace) -> int:
    source: Any = args.source[0] if len(args.source) == 1 else args.source
    if args.labels_from and args.labels is None:
        raise MdsError("--labels-from csv or coco goes with --labels FILE")
    task = client.add_media(
        args.dataset,
        source,
        auto_reindex=args.auto_reindex,
        wait=not args.no_wait,
        labels_from_folders=args.labels_from_folders,
        label_field=args.label_field,
        labels_file=args.labels,
        labels_from=args.labels_from,
    )
    say(str(task.task_id))
    return 0


def run_datasets(client: Client, args: argparse.Namespace) -> int:
    datasets = client.datasets()
    if args.json:
        print_json([dataset.model_dump(mode="json") for dataset in datasets])
        return 0
    rows = [[str(d.id), d.status_new, str(d.n_images), str(d.n_videos), d.created_at.strftime("%Y-%m-%d %H:%M"), d.display_name] for d in datasets]
    print_table(["ID", "STATUS", "IMAGES", "VIDEOS", "CREATED", "NAME"], rows)
    return 0


def task_row(task: Task) -> List[str]:
    progress = "" if task.progress_percentage is None else f"{task.progress_percentage}%"
    return [str(task.task_id), task.task_type, task.status, progress, task.dataset_name, task.error_message or task.status_message]


TASK_HEADER = ["TASK", "TYPE", "STATUS", "PROGRESS", "DATASET", "MESSAGE"]


def run_tasks(client: Client, args: argparse.Namespace) -> int:
    def listed() -> List[Task]:
        return client.tasks(args.dataset, task_type=args.task_type, status=args.status, page_size=max(5, min(50, args.limit))).tasks[: args.limit]

    tasks = listed()
    if args.json and not args.watch:
        print_json([task.model_dump(mode="json") for task in tasks])
        return 0
    print_table(TASK_HEADER, [task_row(task) for task in tasks])
    if not args.watch:
        return 0
    # Watch: a line for every change, until every listed task has ended.
    seen: Dict[str, List[str]] = {str(task.task_id): task_row(task) for task in tasks}
    delays = poll_delays()
    while any(not task.is_final for task in tasks):
        time.sleep(next(delays))
        tasks = listed()
        for task in tasks:
            row = task_row(task)
            if seen.get(str(task.task_id)) != row:
                seen[str(task.task_id)] = row
                say("  ".join(row))
    return 0


def run_task(client: Client, args: argparse.Namespace) -> int:
    task = client.wait_for_task(args.task) if args.wait else client.task(args.task)
    if args.json:
        print_json(task.model_dump(mode="json"))
        return 0
    print_table(TASK_HEADER, [task_row(task)])
    return 0


def run_abort(client: Client, args: argparse.Namespace) -> int:
    task = client.abort_task(args.task)
    say(f"{task.task_id} {task.task_type} {task.status}")
    return 0


def run_retry(client: Client, args: argparse.Namespace) -> int:
    task = client.retry_task(args.task)
    say(f"{task.task_id} {task.task_type} {task.status}")
    return 0


def run_search(client: Client, args: argparse.Namespace) -> int:
    if args.text is not None:
        result: ExploreResult = client.search_text(args.dataset, args.text, max_distance=args.max_distance)
    else:
        result = client.search_image(args.dataset, args.image)
    media = result.media()[: args.limit]
    if result.hint:
        note(f"no results: {result.hint}")
    if args.json:
        print_json(media)
        return 0
    rows = [["" if m["relevance_score"] is None else f"{m['relevance_score']:.3f}", m["file_name"], m["media_id"], m["caption"] or ""] for m in media]
    print_table(["DISTANCE", "FILE", "MEDIA", "CAPTION"], rows)
    return 0


def run_media(client: Client, args: argparse.Namespace) -> int:
    if args.brief:
        if args.snapshot:
            raise MdsError("--brief lists the dataset as it is now; leave out --snapshot")
        items = client.media_items(args.dataset)
        if args.json:
            print_json([item.model_dump(mode="json", by_alias=True) for item in items])
            return 0
        rows = [[str(i.media_id), i.kind, i.file_name, i.class_ or "", "" if i.size_bytes is None else str(i.size_bytes)] for i in items]
        print_table(["MEDIA", "KIND", "FILE", "CLASS", "BYTES"], rows)
        return 0
    records = client.media_records(args.dataset, snapshot_id=args.snapshot)
    if args.json:
        print_json(records)
        return 0
    rows = [[r["media_id"], r["media_type"], r["file_name"], r["class"] or "", ",".join(r["issues"]), r["caption"] or ""] for r in records]
    print_table(["MEDIA", "TYPE", "FILE", "CLASS", "ISSUES", "CAPTION"], rows)
    return 0


def run_duplicates(client: Client, args: argparse.Namespace) -> int:
    if args.accept:
        # Confirmed by its preview's token: refused if the groups changed between the two calls.
        preview = client.accept_preview(args.dataset, similarity=args.similarity, max_groups=1)
        accepted = client.accept_suggestions(args.dataset, similarity=args.similarity, preview=preview)
        if args.json:
            print_json(accepted.model_dump(mode="json"))
        else:
            say(f"decided {accepted.decided_groups} groups, discarded {accepted.discarded_media} media (undo: action {accepted.action_id})")
        return 0
    found = client.duplicates(args.dataset, similarity=args.similarity, state=args.state)
    if args.json:
        print_json([group.model_dump(mode="json") for group in found.groups])
        return 0
    rows = []
    for group in found.groups:
        keeper = next((m.file_name for m in group.members if m.media_id == group.suggested_keeper.media_id), str(group.suggested_keeper.media_id))
        rows.append([group.group_id, group.state, f"{group.similarity:.3f}", str(group.member_count), keeper, group.suggested_keeper.deciding_fact])
    print_table(["GROUP", "STATE", "SIMILARITY", "MEMBERS", "SUGGESTED KEEPER", "BECAUSE"], rows)
    return 0


def run_mislabels(client: Client, args: argparse.Namespace) -> int:
    if args.accept:
        action = client.accept_label_suggestions(args.dataset, min_score=args.min_score)
        say(f"changed the class of {action.changed} media (action {action.action_id})")
        return 0
    records = client.mislabel_records(args.dataset, min_score=args.min_score)
    if args.json:
        print_json(records)
        return 0
    rows = [[r["media_id"], r["file_name"], r["class"] or "", r["suggested_label"], f"{r['mislabel_score']:.3f}"] for r in records]
    print_table(["MEDIA", "FILE", "CLASS", "SUGGESTED", "SCORE"], rows)
    return 0


def run_classes(client: Client, args: argparse.Namespace) -> int:
    classes = client.classes(args.dataset)
    if args.json:
        print_json(classes.model_dump(mode="json"))
        return 0
    print_table(["CLASS", "COUNT"], [[entry.label, str(entry.count)] for entry in classes.classes] + [["(none)", str(classes.unlabelled)]])
    return 0


def run_tags(client: Client, args: argparse.Namespace) -> int:
    tags = client.tags(args.dataset)
    if args.json:
        print_json([tag.model_dump(mode="json") for tag in tags])
        return 0
    print_table(["TAG", "MEDIA", "NAME"], [[str(tag.id), str(tag.n_media), tag.name] for tag in tags])
    return 0


def run_tag(client: Client, args: argparse.Namespace) -> int:
    try:
        vql = None if args.vql is None else json.loads(args.vql)
    except ValueError as error:
        raise MdsError(f"--vql is not JSON: {error}") from error
    selected = {"media_ids": args.media, "cluster_ids": args.cluster, "vql": vql}
    if args.remove:
        say(f"untagged {client.untag(args.dataset, args.tag, **selected)}")
    else:
        say(f"tagged {client.tag(args.dataset, args.tag, **selected)}")
    return 0


def run_select(client: Client, args: argparse.Namespace) -> int:
    try:
        vql = None if args.vql is None else json.loads(args.vql)
        weights = None if args.weights is None else json.loads(args.weights)
    except ValueError as error:
        raise MdsError(f"--vql or --weights is not JSON: {error}") from error
    task = client.select(
        args.dataset, args.tag, n=args.n, share=args.share, strategy=args.strategy, weights=weights, vql=vql, seed=args.seed, balance=args.balance
    )
    if task.status != "COMPLETED":
        raise MdsError(f"the selection ended {task.status}: {task.error_message or task.status_message}")
    picks = client.selection_picks(args.dataset, args.tag)
    if args.json:
        print_json(picks)
        return 0
    say(task.status_message or "")
    print_table(["MEDIA", "SCORE", "REASON"], [[pick["media_id"], f"{pick['score']:.3f}", pick["reason"]] for pick in picks])
    return 0


def run_snapshot_list(client: Client, args: argparse.Namespace) -> int:
    snapshots = client.snapshots(args.dataset)
    if args.json:
        print_json([snapshot.model_dump(mode="json") for snapshot in snapshots])
        return 0
    rows = [
        [str(s.snapshot_id), s.created_at.strftime("%Y-%m-%d %H:%M"), str(s.n_images), "yes" if s.is_current else "", s.reason, s.snapshot_name]
        for s in snapshots
    ]
    print_table(["SNAPSHOT", "CREATED", "IMAGES", "CURRENT", "REASON", "NAME"], rows)
    return 0


def run_snapshot_take(client: Client, args: argparse.Namespace) -> int:
    say(str(client.take_snapshot(args.dataset, args.name, description=args.description).snapshot_id))
    return 0


def run_snapshot_restore(client: Client, args: argparse.Namespace) -> int:
    say(str(client.restore_snapshot(args.dataset, args.snapshot).task_id))
    return 0


def run_snapshot_clone(client: Client, args: argparse.Namespace) -> int:
    say(str(client.clone_snapshot(args.dataset, args.snapshot).id))
    return 0


def run_snapshot_diff(client: Client, args: argparse.Namespace) -> int:
    diff = client.diff(args.dataset, args.snapshot, args.other)
    if args.json:
        print_json(diff.model_dump(mode="json"))
        return 0
    rows = [["added", str(diff.added.count)], ["removed", str(diff.removed.count)]]
    rows += [[f"changed {part}", str(getattr(diff.changed, part).count)] for part in ("captions", "labels", "tags", "issues", "custom_metadata")]
    print_table(["CHANGE", "MEDIA"], rows)
    return 0


def run_snapshot_delete(client: Client, args: argparse.Namespace) -> int:
    client.delete_snapshot(args.dataset, args.snapshot)
    return 0


def run_enrich(client: Client, args: argparse.Namespace) -> int:
    if args.list:
        models = client.enrichment_models(args.dataset)
        if args.json:
            print_json([model.model_dump(mode="json") for model in models])
            return 0
        print_table(["TYPE", "ID", "STATUS", "NAME"], [[m.type, m.id, m.status, m.name] for m in models])
        return 0
    if not args.model:
        raise MdsError("Name a model to apply: --model CAPTION_IMAGES (or TYPE=ID); --list shows them")
    chosen: Any
    if all("=" in model for model in args.model):
        chosen = dict(model.split("=", 1) for model in args.model)
    elif any("=" in model for model in args.model):
        raise MdsError("Give every --model as TYPE, or every one as TYPE=ID")
    else:
        chosen = list(args.model)
    copy = client.enrich(args.dataset, chosen, wait=not args.no_wait)
    say(str(copy.id))
    return 0


def run_reindex(client: Client, args: argparse.Namespace) -> int:
    say(str(client.reindex(args.dataset, wait=not args.no_wait).task_id))
    return 0


def run_rename(client: Client, args: argparse.Namespace) -> int:
    say(client.rename_dataset(args.dataset, args.name).display_name)
    return 0


def run_delete(client: Client, args: argparse.Namespace) -> int:
    if not args.yes:
        dataset = client.dataset(args.dataset)
        if not sys.stdin.isatty():
            raise MdsError(f"Deleting {printable(dataset.display_name)} needs --yes when not at a terminal")
        answer = input(f"Delete {printable(dataset.display_name)} ({dataset.n_images} images) and all its snapshots? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            note("not deleted")
            return 1
    client.delete_dataset(args.dataset)
    return 0


def run_export_formats(client: Client, args: argparse.Namespace) -> int:
    formats = client.export_formats()
    if args.json:
        print_json([format.model_dump(mode="json") for format in formats])
        return 0
    print_table(["FORMAT", "TITLE", "IMAGES", "HOLDS"], [[f.name, f.title, "always" if f.always_includes_images else "asked", f.description] for f in formats])
    return 0


def run_export(client: Client, args: argparse.Namespace) -> int:
    path = client.export(args.dataset, args.out, args.format, include_images=args.include_images)
    say(str(path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
