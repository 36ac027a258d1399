#!/usr/bin/env python3
"""Runs the Python reference extractors over one benchmark's html/*.html.gz pages
and writes eval.py prediction files, timed the way the Rust extractor is timed.

  extraction-peers.py --bench-dir DIR --html-dir DIR --out DIR [--repeat N] [--only NAMES...]

The extractors and the way each is called come from the article-extraction
benchmark's baselines.py (imported from --bench-dir, so every set is run the
same way). Pages are read as bytes: a page that is not valid UTF-8 is decoded
as windows-1252, as a browser without a declared charset would.

Protocol: all pages in memory first (untimed), one untimed warm-up call per
extractor, then N timed passes, interleaved across extractors; the median pass
is written as elapsed_s.
"""
import argparse
import gzip
import json
import statistics
import sys
import time
from pathlib import Path


def load_pages(html_dir):
    pages = {}
    for path in sorted(Path(html_dir).glob("*.html.gz")):
        raw = gzip.decompress(path.read_bytes())
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("cp1252", errors="replace")
        pages[path.name.split(".")[0]] = text
    return pages


def run_pass(fn, pages):
    preds = {}
    start = time.perf_counter()
    for pid, html in pages.items():
        try:
            text = fn(html)
        except Exception as e:  # counted as empty; the run goes on
            print("  failed on %s: %r" % (pid, e), file=sys.stderr)
            text = ""
        preds[pid] = {"articleBody": text or ""}
    return preds, time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench-dir", required=True, help="folder holding baselines.py")
    ap.add_argument("--html-dir", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    sys.path.insert(0, a.bench_dir)
    from baselines import extractors

    pages = load_pages(a.html_dir)
    chosen = {n: v for n, v in extractors().items() if not a.only or n in a.only}
    for _, fn in chosen.values():
        fn(next(iter(pages.values())))
    passes = {n: [] for n in chosen}
    preds = {}
    for _ in range(max(1, a.repeat)):
        for name, (_, fn) in chosen.items():
            preds[name], elapsed = run_pass(fn, pages)
            passes[name].append(elapsed)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, (ver, _) in chosen.items():
        elapsed = statistics.median(passes[name])
        print("%-18s %-8s median %.2f s over %d pass(es) = %.1f pages/s"
              % (name, ver, elapsed, len(passes[name]), len(pages) / elapsed), file=sys.stderr)
        (out / (name + ".json")).write_text(json.dumps(
            {"name": name, "version": ver, "elapsed_s": elapsed, "output": preds[name]},
            ensure_ascii=False), encoding="utf8")


if __name__ == "__main__":
    main()
