#!/usr/bin/env python3
"""serve.llm's own overhead: `mlbench serve` against the fixture server on 127.0.0.1 with a model that costs
nothing but a fixed decode step, so every figure the client reports beyond the server's own log is the client's.

It runs N concurrent streams (default 2,000) and compares:
  - streams held at once (the report's connections) and errors;
  - output tokens/s over the run (the report's output_tokens_per_s);
  - ITL p99 as the client measured it against ITL p99 of the server's own log (the gaps between the times it
    wrote consecutive tokens): the difference is what the client adds;
  - the client process's CPU seconds (user + system) per 1,000 tokens.
Targets on a 2-core machine: >= 2,000 streams, >= 50,000 tokens/s, < 1 ms added to ITL p99. The server
and the client share the machine's cores, so the tokens/s is the pair's; the script says which one was busy.

Usage: scripts/serve-overhead.py [--build build/cpu] [--streams 2000] [--osl 100] [--step-ms 20] [--json]
Needs the built `mlbench` and `tests/serve/mlbench_fake_llm_server` (cmake --build --preset cpu --target mlbench
mlbench_fake_llm_server).
"""
import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time


def percentile(values, q):
    """numpy's default (linear) percentile, as vLLM and mlbench report them."""
    v = sorted(values)
    if not v:
        return float("nan")
    pos = (len(v) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build/cpu")
    ap.add_argument("--streams", type=int, default=2000)
    ap.add_argument("--requests", type=int, default=0, help="default: 2 x streams")
    ap.add_argument("--osl", type=int, default=100)
    ap.add_argument("--step-ms", type=float, default=20.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    requests = a.requests or 2 * a.streams
    mlbench = os.path.join(a.build, "mlbench")
    server = os.path.join(a.build, "tests", "serve", "mlbench_fake_llm_server")
    for p in (mlbench, server):
        if not os.access(p, os.X_OK):
            sys.exit(f"serve-overhead: {p} is not built; build the targets mlbench and mlbench_fake_llm_server")
    with tempfile.TemporaryDirectory(prefix="mlbench-serve-overhead-") as tmp:
        port_file, log, report = (os.path.join(tmp, n) for n in ("port", "log.jsonl", "report.json"))
        srv = subprocess.Popen([server, "--port-file", port_file, "--log", log, "--max-batch", str(a.streams + 1),
                                "--prefill-ms-per-token", "0", "--step-ms", str(a.step_ms), "--step-ms-per-seq",
                                "0"])
        try:
            deadline = time.time() + 30
            while not os.path.exists(port_file):
                if time.time() > deadline or srv.poll() is not None:
                    sys.exit("serve-overhead: the fixture server did not start")
                time.sleep(0.05)
            port = open(port_file).read().strip()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.time()
            rc = subprocess.call([mlbench, "serve", "--url", f"http://127.0.0.1:{port}", "--concurrency",
                                  str(a.streams), "--requests", str(requests), "--isl", "8", "--osl", str(a.osl),
                                  "-o", report], stdout=subprocess.DEVNULL)
            wall = time.time() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
        finally:
            srv.send_signal(signal.SIGTERM)
            srv.wait(timeout=30)
        if rc != 0:
            sys.exit(f"serve-overhead: mlbench serve exited {rc}")
        r = json.load(open(report))["results"][0]
        m = {x["name"]: x["value"] for x in r["metrics"]}
        server_itl = []
        for line in open(log):
            e = json.loads(line)
            if e.get("stream"):
                t = e["token_times_s"]
                server_itl += [t[i] - t[i - 1] for i in range(1, len(t))]
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out = {
            "streams": r["info"]["connections"],
            "errors": r["info"]["errors"],
            "output_tokens_per_s": m["output_tokens_per_s"],
            "itl_p99_client_s": m["itl_p99"],
            "itl_p99_server_s": percentile(server_itl, 0.99),
            "itl_p99_added_s": m["itl_p99"] - percentile(server_itl, 0.99),
            "itl_p50_added_s": m["itl_p50"] - percentile(server_itl, 0.50),
            "client_cpu_s": cpu,
            "client_cpu_s_per_1k_tokens": cpu / max(1, r["work"]["output_tokens"]) * 1000,
            "wall_s": wall,
        }
        if a.json:
            print(json.dumps(out, indent=2))
        else:
            for k, v in out.items():
                print(f"{k:28} {v}")
        ok = (out["streams"] >= 2000 and out["output_tokens_per_s"] >= 50000 and out["itl_p99_added_s"] < 1e-3
              and not out["errors"])
        print("targets (>= 2000 streams, >= 50000 tokens/s, < 1 ms added to ITL p99):", "met" if ok else "NOT met")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
