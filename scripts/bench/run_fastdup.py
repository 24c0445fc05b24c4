#!/usr/bin/env python3
"""Benchmark fastdup 2.54 on a folder of images, fully offline.

Usage: run_fastdup.py INPUT_DIR WORK_DIR
Prints exactly one JSON line on stdout:
  {"images":N,"seconds":S,"images_per_second":R,"peak_rss_mb":M,"duplicate_pairs":P}
All fastdup chatter (Python and C++ side) is sent to stderr.

Env knobs: DUP_THRESHOLD (default 0.96 = fastdup's default cc_threshold),
           FASTDUP_NUM_THREADS (default: os.cpu_count()).
"""
import csv
import json
import os
import resource
import sys
import time

# Must be set BEFORE `import fastdup`:
#  - SENTRY_OPT_OUT: disables sentry-sdk crash/perf telemetry (Python and the C++ lib)
#    and stops it writing $HOME/.token
#  - FASTDUP_PRODUCTION: skips the import-time version check GET https://pypi.org/pypi/fastdup/json
os.environ["SENTRY_OPT_OUT"] = "1"
os.environ["FASTDUP_PRODUCTION"] = "1"


def run_quietly(input_dir, work_dir, num_threads, **kwargs):
    """Runs fastdup on input_dir with everything it prints (native progress bars on fd 1 too) sent to
    stderr, so stdout stays ours; returns the seconds it took."""
    sys.stdout.flush()
    saved_stdout = os.dup(1)
    os.dup2(2, 1)
    try:
        import fastdup

        t0 = time.perf_counter()
        fd = fastdup.create(work_dir=work_dir, input_dir=input_dir)
        ret = fd.run(overwrite=True, run_stats=False, run_sentry=False,
                     num_threads=num_threads, verbose=False, **kwargs)
        seconds = time.perf_counter() - t0
    finally:
        sys.stdout.flush()
        os.dup2(saved_stdout, 1)
        os.close(saved_stdout)
    if ret not in (None, 0):
        sys.exit(f"fastdup run failed: {ret}")
    return seconds


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: run_fastdup.py INPUT_DIR WORK_DIR")
    input_dir, work_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    threshold = float(os.environ.get("DUP_THRESHOLD", "0.96"))
    num_threads = int(os.environ.get("FASTDUP_NUM_THREADS", os.cpu_count() or 1))
    seconds = run_quietly(input_dir, work_dir, num_threads)

    # Images actually embedded (one row per image in the features index).
    with open(os.path.join(work_dir, "atrain_features.dat.csv"), newline="") as f:
        images = sum(1 for _ in csv.DictReader(f))

    # similarity.csv holds directed edges (a->b and b->a) with cosine similarity >= 0.9
    # (run threshold), k=2 nearest neighbours per image. Count unique unordered pairs.
    pairs = set()
    with open(os.path.join(work_dir, "similarity.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if float(row["distance"]) >= threshold:
                a, b = int(row["from"]), int(row["to"])
                pairs.add((min(a, b), max(a, b)))

    peak_kb = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    print(json.dumps({
        "images": images,
        "seconds": round(seconds, 3),
        "images_per_second": round(images / seconds, 2) if seconds > 0 else None,
        "peak_rss_mb": round(peak_kb / 1024, 1),
        "duplicate_pairs": len(pairs),
    }), flush=True)


if __name__ == "__main__":
    main()
