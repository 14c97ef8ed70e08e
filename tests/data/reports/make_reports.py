#!/usr/bin/python3
"""Writes the hand-made report fixtures of tests/data/reports (run once; the JSON files are committed).

Numbers are shaped after published results (METHODS.md "Reference figures"): H100 SXM bf16 GEMM ~760 TFLOPS, HBM triad ~3.0 TB/s,
NCCL all_reduce ring busbw ~360 GB/s at 1 GiB on 8 GPUs, Gen4 NVMe ~7 GB/s reads. A fixed-seed generator adds
run-to-run jitter and per-sample spread so stats.cv is realistic (0.3-2 %).
"""
import copy
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
rng = random.Random(20261130)


def stats(value, cv, n=30):
    sd = value * cv
    return {"min": value - 2.2 * sd, "p10": value - 1.28 * sd, "median": value, "p90": value + 1.28 * sd,
            "max": value + 2.4 * sd, "mean": value, "cv": cv, "mad": 0.6745 * sd, "n": n}


def metric(name, value, unit, cv, better="higher"):
    return {"name": name, "value": value, "unit": unit, "better": better, "stats": stats(value, cv)}


def result(probe, params, metrics, work, info=None):
    head = metrics[0]["value"]
    per_iter = next(iter(work.values()))
    t = per_iter / head if head else 1e-3
    return {"probe": probe, "params": params, "status": "ok", "work": work,
            "samples": [t * (1 + rng.gauss(0, metrics[0]["stats"]["cv"])) for _ in range(5)],
            "metrics": metrics, "telemetry": {}, "warnings": [], "info": info or {}}


def host(name, gpus):
    return {"hostname": name, "kernel": "6.1.0-27-amd64", "os": "Debian GNU/Linux 12 (bookworm)",
            "cpu": {"model": "AMD EPYC 9454 48-Core Processor", "sockets": 2, "cores": 96, "threads": 192},
            "memory": {"total_bytes": 1622 * 2**30}, "numa": [], "block_devices": [], "raid": [], "nics": [],
            "gpus": [{"index": i, "name": "NVIDIA H100 80GB HBM3", "uuid": f"GPU-{name[-2:]}{i:02d}a1f3-7c2e-4b8d-9e51-{i:012x}",
                      "compute_capability": "9.0", "sms": 132, "memory_bytes": 80 * 10**9} for i in range(gpus)],
            "notes": []}


PEAK = {"fp32": 67e12, "tf32": 494.5e12, "fp16": 989e12, "bf16": 989e12, "fp8": 1979e12}
EFF = {"fp32": 0.78, "tf32": 0.74, "fp16": 0.77, "bf16": 0.77, "fp8": 0.71}


def machine(name, gpus=2, scale=None, version="0.1.0"):
    """One report; scale maps (probe, key, device) to a factor applied to the healthy value."""
    scale = scale or {}

    def f(probe, key, dev=None):
        return scale.get((probe, key, dev), 1.0) * (1 + rng.gauss(0, 0.004))

    res = []
    for dev in range(gpus):
        for dtype in ["fp32", "tf32", "bf16", "fp16", "fp8"]:
            for n in [4096, 8192]:
                shape_eff = 1.0 if n == 8192 else 0.88
                v = PEAK[dtype] * EFF[dtype] * shape_eff * f("gpu.gemm", dtype, dev)
                res.append(result("gpu.gemm", {"precision": dtype, "m": n, "n": n, "k": n, "device": dev},
                                  [metric("tflops", v, "FLOP/s", 0.006), metric("pct_of_peak", 100 * v / PEAK[dtype], "%", 0.006)],
                                  {"flops": 2.0 * n**3}, {"algo": "cublasLt heuristic #0"}))
        for kernel, eff in [("copy", 0.905), ("triad", 0.897), ("read", 0.93)]:
            v = 3.35e12 * eff * f("gpu.hbm", kernel, dev)
            res.append(result("gpu.hbm", {"kernel": kernel, "device": dev},
                              [metric("bandwidth", v, "B/s", 0.003), metric("pct_of_peak", 100 * v / 3.35e12, "%", 0.003)],
                              {"bytes": 2 * 2**31}))
        for direction in ["h2d", "d2h"]:
            v = 55.1e9 * f("gpu.copy", direction, dev)
            res.append(result("gpu.copy", {"direction": direction, "memory": "pinned", "device": dev},
                              [metric("bandwidth", v, "B/s", 0.004), metric("pct_of_peak", 100 * v / 63.0e9, "%", 0.004)],
                              {"bytes": 2**28}))
    for exp in range(10, 31, 4):
        size = 2**exp
        bus = 362e9 * size / (size + 6e6) * f("net.nccl", "all_reduce")
        res.append(result("net.nccl", {"collective": "all_reduce", "dtype": "float", "bytes": size},
                          [metric("busbw", bus, "B/s", 0.01), metric("algbw", bus * 8 / 14, "B/s", 0.01)],
                          {"bytes": size}, {"algorithm": "RING", "ranks": 8}))
    for rw, bs, qd, jobs, iops in [("randread", 4096, 1, 1, 11500), ("randread", 4096, 128, 4, 1.05e6),
                                   ("read", 1 << 20, 16, 1, 6900), ("randwrite", 4096, 32, 4, 4.1e5)]:
        v = iops * f("storage.io", rw + str(qd))
        lat = qd * jobs / v
        res.append(result("storage.io", {"rw": rw, "bs": bs, "iodepth": qd, "jobs": jobs, "target": ["/dev/nvme0n1"]},
                          [metric("iops", v, "1/s", 0.012), metric("bandwidth", v * bs, "B/s", 0.012),
                           metric("lat_p50", lat * 0.95, "s", 0.02, "lower"), metric("lat_p99", lat * 1.9, "s", 0.05, "lower")],
                          {"ios": 1}))
    res.append(result("host.membw", {"kernel": "triad"},
                      [metric("bandwidth", 610e9 * f("host.membw", "triad"), "B/s", 0.008)], {"bytes": 3 * 2**30}))
    return {"schema_version": "1.0.0",
            "tool": {"name": "mlbench", "version": version, "git_sha": "275e5e7aa0c1",
                     "features": {"cuda": True, "cudnn": True, "nccl": True, "uring": True, "xlsx": True, "mpi": True, "blkid": True}},
            "host": host(name, gpus),
            "run": {"started_utc": "2026-11-28T09:14:03Z", "duration_s": 1843.2, "argv": ["mlbench", "run", "-o", name + ".json"],
                    "profile": "default", "options": {}},
            "results": res}


def find(rep, probe, **params):
    for r in rep["results"]:
        if r["probe"] == probe and all(r["params"].get(k) == v for k, v in params.items()):
            return r
    raise KeyError((probe, params))


def write(path, doc):
    with open(os.path.join(HERE, path), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


# Two runs of one machine: B has one HBM regression on gpu1, a faster storage read, ok -> failed, ok ->
# incorrect, and one result only in each report.
run_a = machine("gpu-node-17")
run_b = machine("gpu-node-17", scale={("gpu.hbm", "triad", 1): 0.90, ("storage.io", "read16", None): 1.12})
run_b["run"]["started_utc"] = "2026-11-29T21:40:11Z"
failed = find(run_b, "storage.io", rw="randwrite")
failed.update(status="failed", reason="io_uring_enter failed at storage/uring.cpp:212: errno 5 (Input/output error)", metrics=[], samples=[])
wrong = find(run_b, "gpu.gemm", precision="fp8", m=4096, device=1)
wrong.update(status="incorrect", reason="412 of 4096 sampled elements exceed the fp8 tolerance 5e-2")
run_a["results"].append(result("gpu.hbm", {"kernel": "write", "device": 0},
                               [metric("bandwidth", 3.05e12, "B/s", 0.003)], {"bytes": 2**31}))
run_b["results"].append(result("host.membw", {"kernel": "copy"}, [metric("bandwidth", 575e9, "B/s", 0.009)], {"bytes": 2 * 2**30}))
write("run_a.json", run_a)
write("run_b.json", run_b)

# The fleet: 12 healthy nodes, node07's gpu1 slow in GEMM and HBM (a throttling or degraded part).
for i in range(1, 13):
    name = f"node{i:02d}"
    scale = {}
    if i == 7:
        scale = {("gpu.gemm", d, 1): 0.81 for d in PEAK}
        scale.update({("gpu.hbm", k, 1): 0.86 for k in ["copy", "triad", "read"]})
    write(f"fleet/{name}.json", machine(name, scale=scale))

newer = machine("gpu-node-17")
newer["schema_version"] = "2.0.0"
write("newer_major.json", newer)

with open(os.path.join(HERE, "run_a.json")) as f:
    text = f.read()
with open(os.path.join(HERE, "truncated.json"), "w") as f:
    f.write(text[: len(text) // 3])

write("not_mlbench.json", {"fio version": "fio-3.33", "timestamp": 1732785243, "global options": {"ioengine": "io_uring"},
                           "jobs": [{"jobname": "randread", "read": {"iops": 1048512.3, "bw": 4194049}}]})

# A CPU-only machine: nothing in common with run_a's GPU results... except what is removed below.
cpu = machine("cpu-box-01", gpus=0)
cpu["results"] = [r for r in cpu["results"] if r["probe"] == "host.membw"]
cpu["results"][0]["params"] = {"kernel": "scale"}
cpu["host"]["gpus"] = []
write("cpu_only.json", cpu)
