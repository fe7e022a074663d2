#!/usr/bin/env python3
"""HANNA's released LLM ratings as prism score files (docs/agree.md).

usage: python3 hanna_llm_scores.py ANNOTATIONS METRICS OUTDIR [--prompt K] [--criterion C]

ANNOTATIONS is hanna_stories_annotations.csv and METRICS
hanna_metric_scores_llm.csv, both from github.com/dig-team/hanna-benchmark-asg
(MIT). METRICS has one row per story generator ("Model") and, per column, a
list of the scores of that generator's stories: row r (0-based) holds
stories r*n ... r*n+n-1, n the length of the lists (96 upstream), as the
repository's README says. The LLM judges' columns are "JUDGE CRIT K":
CRIT one of RE CH EM SU EG CX or AVG (their mean), K the evaluation prompt
(1-4). For every judge with a column "JUDGE C K" this writes OUTDIR/JUDGE.csv
with context,candidate,probe,score: the context and the candidate as
`prism data import hanna ANNOTATIONS` names them (context "p" + the
smallest Story ID among a prompt's stories, candidate the Model column),
probe "baseline", score the judge's rating. Python 3 standard library only.
"""
import argparse
import csv
import json
import os
import re
import sys

CRITERIA = ["RE", "CH", "EM", "SU", "EG", "CX", "AVG"]


def stories(path):
    """Story ID -> (context, candidate), as prism's hanna loader names them."""
    by_id, prompt_min = {}, {}
    with open(path, newline="", encoding="utf-8") as f:
        for line, row in enumerate(csv.DictReader(f), start=2):
            try:
                sid = int(row["Story ID"])
            except (KeyError, ValueError):
                sys.exit(f"{path}:{line}: Story ID: want an integer")
            by_id[sid] = (row["Prompt"], row["Model"].strip())
            prompt_min[row["Prompt"]] = min(sid, prompt_min.get(row["Prompt"], sid))
    return {sid: ("p%d" % prompt_min[p], m) for sid, (p, m) in by_id.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("annotations")
    ap.add_argument("metrics")
    ap.add_argument("outdir")
    ap.add_argument("--prompt", default="1", help="the evaluation prompt K (1-4; default 1)")
    ap.add_argument("--criterion", default="AVG", choices=CRITERIA, help="AVG (default) or one criterion")
    a = ap.parse_args()
    ids = stories(a.annotations)
    csv.field_size_limit(1 << 30)
    pat = re.compile(r"^(.+) %s %s$" % (re.escape(a.criterion), re.escape(a.prompt)))
    rows = {}  # judge -> [(context, candidate, score)]
    with open(a.metrics, newline="", encoding="utf-8") as f:
        for r, row in enumerate(csv.DictReader(f)):
            for col, cell in row.items():
                m = pat.match(col or "")
                if not m:
                    continue
                try:
                    scores = json.loads(cell)
                except ValueError:
                    sys.exit(f"{a.metrics}:{r + 2}: column {col!r}: not a list of numbers")
                for i, s in enumerate(scores):
                    sid = r * len(scores) + i
                    if sid not in ids:
                        sys.exit(f"{a.metrics}:{r + 2}: column {col!r}: story {sid} is not in {a.annotations}")
                    rows.setdefault(m.group(1), []).append(ids[sid] + (s,))
    if not rows:
        sys.exit(f"{a.metrics}: no column 'JUDGE {a.criterion} {a.prompt}'")
    os.makedirs(a.outdir, exist_ok=True)
    for judge, rs in sorted(rows.items()):
        with open(os.path.join(a.outdir, judge + ".csv"), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["context", "candidate", "probe", "score"])
            for ctx, cand, s in rs:
                w.writerow([ctx, cand, "baseline", repr(float(s))])
        print(f"{judge}: {len(rs)} scores", file=sys.stderr)


if __name__ == "__main__":
    main()
