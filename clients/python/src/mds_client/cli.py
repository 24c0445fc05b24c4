"""``mds``: the media dataset service from a shell.

Results go to stdout (ids, tables, or JSON with ``--json``), progress bars and errors to stderr; a
failed call prints the API's status and detail and exits 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

from . import __version__
from .client import POLL_SECONDS, Client
from .errors import MdsError
from .models import ExploreResult, Task

EXPORT_FORMATS = ("parquet", "json", "coco", "yolo", "hf", "imagefolder")


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parser().parse_args(argv)
    try:
        with Client(args.url, args.api_key, args.api_secret, progress=not args.no_progress) as client:
            return int(args.run(client, args) or 0)
    except MdsError as error:
        print(f"mds: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def parser() -> argparse.ArgumentParser:
    connection = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: the options may stand before or after the command without one resetting the other.
    connection.add_argument("--url", default=argparse.SUPPRESS, help="service address (env MDS_URL; default http://localhost:8080)")
    connection.add_argument("--api-key", default=argparse.SUPPRESS, help="API key (env MDS_API_KEY)")
    connection.add_argument("--api-secret", default=argparse.SUPPRESS, help="its secret (env MDS_API_SECRET)")
    connection.add_argument("--no-progress", action="store_true", default=argparse.SUPPRESS, help="no progress bars")

    root = argparse.ArgumentParser(prog="mds", description="The media dataset service from a shell.", parents=[connection])
    root.add_argument("--version", action="version", version=f"mds {__version__}")
    root.set_defaults(url=None, api_key=None, api_secret=None, no_progress=False)
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND")

    create = commands.add_parser("create", parents=[connection], help="create a dataset from a folder, files or an archive; prints its id")
    create.add_argument("name")
    create.add_argument("source", nargs="+", metavar="SOURCE", help="a folder, an archive (.zip, .tar, .tar.gz) or media files")
    create.add_argument("--wait", action="store_true", help="follow indexing to its end (exit 1 unless it completes)")
    create.add_argument(
        "--labels-from-folders", action="store_true", help="each file's folder is its label (cats/1.jpg: cats), checked for mislabels while indexing"
    )
    create.add_argument("--label-field", default="label", help="the custom-metadata field the folder labels go in (default: label)")
    create.set_defaults(run=run_create)

    add = commands.add_parser("add", parents=[connection], help="add media to an indexed dataset; prints the task's id")
    add.add_argument("dataset")
    add.add_argument("source", nargs="+", metavar="SOURCE", help="a folder, an archive (.zip, .tar, .tar.gz) or media files")
    add.add_argument("--auto-reindex", action="store_true", help="reindex after the batch, so the dataset ends READY")
    add.add_argument("--no-wait", action="store_true", help="return once the batch is accepted instead of following it to its end")
    add.add_argument("--labels-from-folders", action="store_true", help="each new file's folder is its label (cats/1.jpg: cats), checked again")
    add.add_argument("--label-field", default=None, help="the field the folder labels go in (default: the one the dataset's labels use, else label)")
    add.set_defaults(run=run_add)

    datasets = commands.add_parser("datasets", parents=[connection], help="list your datasets")
    datasets.add_argument("--json", action="store_true", help="JSON records instead of a table")
    datasets.set_defaults(run=run_datasets)

    tasks = commands.add_parser("tasks", parents=[connection], help="list tasks, newest first")
    tasks.add_argument("--dataset", help="only this dataset's tasks")
    tasks.add_argument("--status", help="INITIALIZING, RUNNING, COMPLETED, FAILED or ABORTED")
    tasks.add_argument("--type", dest="task_type", help="DATASET_CREATION, MEDIA_ADDITION, EXPORT, ...")
    tasks.add_argument("--limit", type=int, default=20, help="how many (5-50, default 20)")
    tasks.add_argument("--watch", action="store_true", help="print changes until no listed task is running")
    tasks.add_argument("--json", action="store_true")
    tasks.set_defaults(run=run_tasks)

    search = commands.add_parser("search", parents=[connection], help="search a dataset by text or by an image")
    search.add_argument("dataset")
    query = search.add_mutually_exclusive_group(required=True)
    query.add_argument("--text", help="natural-language search over captions")
    query.add_argument("--image", help="an image file: visual search")
    search.add_argument("--max-distance", type=float, help="keep text results closer than this cosine distance")
    search.add_argument("--limit", type=int, default=20, help="most results shown (default 20)")
    search.add_argument("--json", action="store_true")
    search.set_defaults(run=run_search)

    export = commands.add_parser("export", parents=[connection], help="export a dataset and download the ZIP")
    export.add_argument("dataset")
    export.add_argument("--format", choices=EXPORT_FORMATS, default="parquet")
    export.add_argument("--out", required=True, help="where to write the ZIP")
    export.add_argument("--include-images", action="store_true", help="add the original files under images/")
    export.set_defaults(run=run_export)
    return root


def run_create(client: Client, args: argparse.Namespace) -> int:
    source: Any = args.source[0] if len(args.source) == 1 else args.source
    dataset = client.create_dataset(args.name, source, wait=args.wait, labels_from_folders=args.labels_from_folders, label_field=args.label_field)
    print(dataset.id, flush=True)
    return 0


def run_add(client: Client, args: argparse.Namespace) -> int:
    source: Any = args.source[0] if len(args.source) == 1 else args.source
    task = client.add_media(
        args.dataset,
        source,
        auto_reindex=args.auto_reindex,
        wait=not args.no_wait,
        labels_from_folders=args.labels_from_folders,
        label_field=args.label_field,
    )
    print(task.task_id, flush=True)
    return 0


def run_datasets(client: Client, args: argparse.Namespace) -> int:
    datasets = client.datasets()
    if args.json:
        print(json.dumps([dataset.model_dump(mode="json") for dataset in datasets], indent=2))
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
        print(json.dumps([task.model_dump(mode="json") for task in tasks], indent=2))
        return 0
    print_table(TASK_HEADER, [task_row(task) for task in tasks])
    if not args.watch:
        return 0
    # Watch: a line for every change, until every listed task has ended.
    seen: Dict[str, List[str]] = {str(task.task_id): task_row(task) for task in tasks}
    while any(not task.is_final for task in tasks):
        time.sleep(POLL_SECONDS)
        tasks = listed()
        for task in tasks:
            row = task_row(task)
            if seen.get(str(task.task_id)) != row:
                seen[str(task.task_id)] = row
                print("  ".join(row), flush=True)
    return 0


def run_search(client: Client, args: argparse.Namespace) -> int:
    if args.text is not None:
        result: ExploreResult = client.search_text(args.dataset, args.text, max_distance=args.max_distance)
    else:
        result = client.search_image(args.dataset, args.image)
    media = result.media()[: args.limit]
    if args.json:
        print(json.dumps(media, indent=2, default=str))
        return 0
    rows = [["" if m["relevance_score"] is None else f"{m['relevance_score']:.3f}", m["file_name"], m["media_id"], m["caption"] or ""] for m in media]
    print_table(["DISTANCE", "FILE", "MEDIA", "CAPTION"], rows)
    return 0


def run_export(client: Client, args: argparse.Namespace) -> int:
    path = client.export(args.dataset, args.out, args.format, include_images=args.include_images)
    print(path, flush=True)
    return 0


def print_table(header: List[str], rows: List[List[str]]) -> None:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    for row in [header, *rows]:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


if __name__ == "__main__":
    sys.exit(main())
