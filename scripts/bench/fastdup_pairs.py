#!/usr/bin/env python3
"""fastdup 2.54's similar pairs on a folder of images, offline (for `npm run bench:model-variants`).

Usage: fastdup_pairs.py INPUT_DIR WORK_DIR THRESHOLD K
Prints one JSON line on stdout: {"images", "seconds", "images_per_second", "threads", "pairs": [[file_a,
file_b, similarity], ...]} with every unordered pair among each image's K nearest neighbours whose
cosine similarity is >= THRESHOLD (fastdup's own embeddings, its default model). fastdup's chatter goes
to stderr. FASTDUP_NUM_THREADS (default 1) sets its threads.
"""
import csv
import json
import os
import sys

from run_fastdup import run_quietly  # also switches fastdup's telemetry and version check off


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    input_dir, work_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    threshold, k = float(sys.argv[3]), int(sys.argv[4])
    threads = int(os.environ.get("FASTDUP_NUM_THREADS", "1"))
    seconds = run_quietly(input_dir, work_dir, threads, threshold=threshold, nearest_neighbors_k=k)

    with open(os.path.join(work_dir, "atrain_features.dat.csv"), newline="") as f:
        files = {int(row["index"]): os.path.basename(row["filename"]) for row in csv.DictReader(f)}
    best = {}
    with open(os.path.join(work_dir, "similarity.csv"), newline="") as f:
        for row in csv.DictReader(f):
            a, b, similarity = int(row["from"]), int(row["to"]), float(row["distance"])
            if similarity >= threshold:
                key = (min(a, b), max(a, b))
                best[key] = max(best.get(key, similarity), similarity)
    print(json.dumps({
        "images": len(files),
        "seconds": round(seconds, 3),
        "images_per_second": round(len(files) / seconds, 2),
        "threads": threads,
        "pairs": [[files[a], files[b], round(s, 5)] for (a, b), s in sorted(best.items())],
    }), flush=True)


if __name__ == "__main__":
    main()
