#!/usr/bin/env python3
"""The GPU bundle's summary (scripts/gpu-bundle/summary.py) over fixture reports of every GPU probe, each in
the shapes its probe writes: ok, incorrect and skipped cases of gpu.gemm and gpu.conv (verification: a count
of bad samples), gpu.hbm (a list of what was wrong, empty when correct), gpu.copy (a count of bad words) and
net.nccl (wrong_elements), plus the device tests' JUnit XML. Runs on the CPU, no GPU needed.
Usage: gpu_summary_test.py"""
import json
import os
import subprocess
import sys
import tempfile

SUMMARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu-bundle",
                       "summary.py")


def result(probe, params, status, info=None, metrics=None, reason=None):
    r = {"probe": probe, "params": params, "status": status, "info": info or {}, "metrics": metrics or []}
    if reason:
        r["reason"] = reason
    return r


def rate(name, value, unit):
    return {"name": name, "value": value, "unit": unit}


def gemm_verification(bad, share=0.4):
    return {"checked": 64, "bad": bad, "max_error_over_allowed": share if bad == 0 else 12.0,
            "error_model": {"u_out": 2**-8, "u_in": 0, "u_acc": 2**-13, "acc_step": 32, "floor": 0}}


REPORTS = {
    "gemm.json": [
        result("gpu.gemm", {"precision": "bf16", "m": 8192, "n": 8192, "k": 8192, "device": 0}, "ok",
               {"verification": gemm_verification(0)},
               [rate("tflops", 7.1e14, "FLOP/s"), rate("pct_of_peak", 71.8, "%")]),
        result("gpu.gemm", {"precision": "fp8", "m": 8192, "n": 8192, "k": 8192, "device": 0}, "incorrect",
               {"verification": gemm_verification(3)}, [rate("tflops", 1.2e15, "FLOP/s")],
               "3 of 64 sampled outputs wrong; first: D(0,0) = 0, expected 41.5"),
        result("gpu.gemm", {"precision": "fp8", "m": 8192, "n": 8192, "k": 8192, "device": 1}, "skipped",
               reason="fp8 needs compute capability 8.9 or newer; GPU 1 (A100) is 8.0"),
    ],
    "hbm.json": [
        result("gpu.hbm", {"kernel": "triad", "device": 0}, "ok",
               {"verification": {"arrays_checked": 3, "tolerance": 1e-9, "bad": []}},
               [rate("bandwidth", 4.1e12, "B/s"), rate("pct_of_peak", 85.0, "%")]),
        result("gpu.hbm", {"kernel": "copy", "device": 0}, "incorrect",
               {"verification": {"arrays_checked": 3, "tolerance": 1e-9,
                                 "bad": ["12 elements of c differ from 0.1"]}},
               [rate("bandwidth", 4.0e12, "B/s")], "contents wrong after 30 launches: 12 elements of c"),
        result("gpu.hbm", {"kernel": "nstream", "device": 0}, "skipped", reason="interrupted"),
    ],
    "copy.json": [
        result("gpu.copy", {"direction": "h2d", "memory": "pinned", "device": 0}, "ok",
               {"verification": {"words_per_buffer": 1 << 25, "bad": 0}}, [rate("bandwidth", 5.3e10, "B/s")]),
        result("gpu.copy", {"direction": "d2h", "memory": "pinned", "device": 0}, "incorrect",
               {"verification": {"words_per_buffer": 1 << 25, "bad": 7}}, [rate("bandwidth", 5.1e10, "B/s")],
               "7 words wrong"),
        result("gpu.copy", {"direction": "p2p", "device": 0}, "skipped", reason="one GPU: no peer to copy to"),
    ],
    "conv.json": [
        result("gpu.conv", {"precision": "bf16", "layer": "conv1", "direction": "fwd", "device": 0}, "ok",
               {"verification": gemm_verification(0, share=0.8)}, [rate("tflops", 3.0e14, "FLOP/s")]),
        result("gpu.conv", {"precision": "bf16", "layer": "res2a", "direction": "bwd_filter", "device": 0},
               "incorrect", {"verification": gemm_verification(16)}, [rate("tflops", 2.0e14, "FLOP/s")],
               "16 of 16 sampled outputs wrong; first: element 0 = 0, expected 812"),
        result("gpu.conv", {"precision": "fp16", "device": 0}, "skipped",
               reason="cuDNN is not loaded: libcudnn.so.9 not found"),
    ],
    "nccl.json": [
        result("net.nccl", {"collective": "all_reduce", "dtype": "float", "bytes": 1048576}, "ok",
               {"wrong_elements": 0, "timing": "blocking"},
               [rate("busbw", 1.5e11, "B/s"), rate("time", 1.4e-5, "s")]),
        result("net.nccl", {"collective": "all_reduce", "dtype": "float", "bytes": 8}, "incorrect",
               {"wrong_elements": 2, "timing": "nonblocking"}, [rate("busbw", 1.0e6, "B/s")],
               "2 of 2 checked elements wrong after one all_reduce call"),
        result("net.nccl", {}, "skipped",
               reason="a collective needs at least 2 ranks and this world has 1"),
    ],
}

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="1" disabled="0" errors="0" name="AllTests">
  <testsuite name="GpuDevice" tests="3" failures="1">
    <testcase name="GemmRuns" status="run" result="completed"/>
    <testcase name="HbmRuns" status="run" result="completed"><failure message="x"/></testcase>
    <testcase name="PeerCopy" status="run" result="skipped"><skipped message="one GPU"/></testcase>
  </testsuite>
</testsuites>
"""


def main():
    failures = []

    def check(condition, what):
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as folder:
        for name, results in REPORTS.items():
            with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                json.dump({"schema_version": 1, "results": results}, f)
        with open(os.path.join(folder, "not-a-report.json"), "w", encoding="utf-8") as f:
            json.dump([1, 2], f)
        with open(os.path.join(folder, "gpu_device_tests.xml"), "w", encoding="utf-8") as f:
            f.write(JUNIT)
        out = subprocess.run([sys.executable, SUMMARY, folder], capture_output=True, text=True, check=False)
    check(out.returncode == 0, f"summary.py exited {out.returncode}: {out.stderr}")
    lines = out.stdout.splitlines()
    text = out.stdout
    check("[]" not in text and "['" not in text, "a list printed where a count belongs")
    by_probe = {}
    for line in lines[1:]:
        by_probe.setdefault(line.split()[0], []).append(line)
    for probe in ("gpu.gemm", "gpu.hbm", "gpu.copy", "gpu.conv", "net.nccl"):
        rows = by_probe.get(probe, [])
        check(len(rows) == 3, f"{probe}: {len(rows)} rows, expected 3")
        if len(rows) != 3:
            continue
        ok, bad, skipped = rows
        check(" ok " in ok and " verified " in ok, f"{probe} ok row: {ok}")
        check(" incorrect " in bad and " wrong " in bad and "verified" not in bad, f"{probe} incorrect row: {bad}")
        check(" skipped " in skipped and " - " in skipped, f"{probe} skipped row: {skipped}")
    check(" 1 wrong " in by_probe["gpu.hbm"][1], f"hbm counts the bad arrays: {by_probe['gpu.hbm'][1]}")
    check(" 7 wrong " in by_probe["gpu.copy"][1], f"copy counts the bad words: {by_probe['gpu.copy'][1]}")
    check("contents wrong after 30 launches" in by_probe["gpu.hbm"][1], "the reason of an incorrect case")
    check("at least 2 ranks" in by_probe["net.nccl"][2], "the reason of a skipped case")
    check("thin margin" in by_probe["gpu.conv"][0] and "0.80 of allowed" in by_probe["gpu.conv"][0],
          f"a correct case near its error model's limit says so: {by_probe['gpu.conv'][0]}")
    check("thin margin" not in by_probe["gpu.gemm"][0], f"a correct case well inside says nothing: {by_probe['gpu.gemm'][0]}")
    check("710 TFLOP/s" in by_probe["gpu.gemm"][0] and "71.8" in by_probe["gpu.gemm"][0], "gemm's headline")
    check("150 GB/s 14 us" in by_probe["net.nccl"][0], f"nccl's headline: {by_probe['net.nccl'][0]}")
    check("gpu_device_tests.xml: 3 tests, 1 failed, 0 errors, 1 skipped" in text, "the device tests' counts")
    check(lines[-1] == "cases: 5 incorrect, 5 ok, 5 skipped", f"the counts line: {lines[-1]}")
    if failures:
        print(text)
        for f in failures:
            print(f"gpu_summary_test: FAIL: {f}", file=sys.stderr)
        return 1
    print("gpu_summary_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
