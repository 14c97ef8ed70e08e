#!/usr/bin/env python3
"""Headline figures of a GPU validation run: one line per case of every mlbench report (*.json holding
"results") in FOLDER, with status, verification, the headline metric and % of peak, plus the GPU device
tests' counts from their JUnit XML. Used by the bundle's run.sh and by scripts/gpu-validate.sh.
Usage: summary.py FOLDER"""
import glob
import json
import os
import sys
import xml.etree.ElementTree as ET

# Parameters that name the device rather than the case; the case column leaves them out.
NOISE = {"device_name", "uuid", "peer_uuid", "shape", "devices", "ranks", "hosts"}
SCALE = {"FLOP/s": (1e12, "TFLOP/s"), "OP/s": (1e12, "TOP/s"), "B/s": (1e9, "GB/s"), "s": (1e-6, "us")}


def figure(metric):
    if metric is None or metric.get("value") is None:
        return ""
    div, unit = SCALE.get(metric["unit"], (1, metric["unit"]))
    return f"{metric['value'] / div:.4g} {unit}"


def case_of(result):
    params = result.get("params", {})
    words = []
    for key, value in params.items():
        if key in NOISE or isinstance(value, (dict, list)):
            continue
        words.append(f"GPU{value}" if key == "device" and isinstance(value, int) else str(value))
    timing = result.get("info", {}).get("timing")
    if timing:
        words.append(timing)
    return " ".join(words)


def verification(result):
    info = result.get("info", {})
    v = info.get("verification")
    if isinstance(v, dict) and "bad" in v:
        # A count (gemm, conv, copy) or a list of what was wrong (hbm: one entry per bad array or sum).
        bad = len(v["bad"]) if isinstance(v["bad"], list) else v["bad"]
        if bad != 0:
            return f"{bad} wrong"
        # gemm and conv: the largest error as a share of what the error model allows. Above half of it, a
        # correct device is nearer the limit than the model's own simulation puts it: said, so that a thin
        # margin is seen on the first run before it becomes a false `incorrect` on another.
        share = v.get("max_error_over_allowed")
        if isinstance(share, (int, float)) and share > 0.5:
            return f"verified (error {share:.2f} of allowed: thin margin)"
        return "verified"
    if "wrong_elements" in info:
        return "verified" if info["wrong_elements"] == 0 else f"{info['wrong_elements']} wrong"
    return "incorrect" if result["status"] == "incorrect" else "-"


def metric(result, name):
    return next((m for m in result.get("metrics", []) if m["name"] == name), None)


def main(folder):
    lines = [f"{'probe':10} {'case':44} {'status':9} {'check':10} {'headline':>24} {'% peak':>7}"]
    counts = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
        if not isinstance(report, dict) or "results" not in report:
            continue
        for r in report["results"]:
            counts[r["status"]] = counts.get(r["status"], 0) + 1
            metrics = r.get("metrics", [])
            if r["probe"] == "net.nccl":
                head = " ".join(x for x in (figure(metric(r, "busbw")), figure(metric(r, "time"))) if x)
            else:
                head = figure(metrics[0]) if metrics else ""
            pct = metric(r, "pct_of_peak")
            pct_text = "" if pct is None or pct.get("value") is None else f"{pct['value']:.1f}"
            line = f"{r['probe']:10} {case_of(r)[:44]:44} {r['status']:9} {verification(r):10} {head:>24} {pct_text:>7}"
            if r["status"] != "ok":
                line += f"  {r.get('reason', '')}"
            lines.append(line.rstrip())
    for path in sorted(glob.glob(os.path.join(folder, "*.xml"))):
        suites = ET.parse(path).getroot()
        attrs = {k: suites.get(k, "0") for k in ("tests", "failures", "errors", "disabled")}
        skipped = sum(1 for c in suites.iter("testcase") if c.find("skipped") is not None)
        lines.append(f"{os.path.basename(path)}: {attrs['tests']} tests, {attrs['failures']} failed, "
                     f"{attrs['errors']} errors, {skipped} skipped")
    lines.append("cases: " + (", ".join(f"{n} {s}" for s, n in sorted(counts.items())) or "none"))
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: summary.py FOLDER")
    main(sys.argv[1])
