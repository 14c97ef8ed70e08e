#!/usr/bin/env python3
"""configs/launch/fleet-k8s.yaml parses and holds together: the fields a fleet run depends on, checked without a
cluster. The burn-in Job is Indexed with parallelism = completions = NODES, one pod per GPU node (anti-affinity on
the pod's own label, a GPU node selector, nvidia.com/gpu = GPUS), every pod writes <host>.json into the shared
claim's run folder; the verdict Job waits for them and runs compare --fleet with the started hosts expected; both
Jobs agree on the claim, FLEET_RUN and NODES; every embedded script passes bash -n. With an mlbench binary, the
scripts then run here as the pods would, on a temporary folder standing in for the claim (a short host-memory run
as the per-node command): one node's pod, the wait and the verdict pass with NODES=1; with NODES=2 the verdict
fails saying only 1 of 2 pods started; a started host without a report is named missing.

Usage: fleet_k8s_test.py configs/launch/fleet-k8s.yaml [PATH/TO/mlbench]   (CTest: tools.fleet_k8s)
"""
import os
import subprocess
import sys
import tempfile

import yaml


def fail(msg):
    print(f"fleet_k8s_test: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def env(container):
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def script(container):
    check(container["command"] == ["/bin/bash", "-c"], f"{container['name']}: command is not bash -c")
    text = container["args"][0]
    syntax = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True)
    check(syntax.returncode == 0, f"{container['name']}: bash -n: {syntax.stderr.strip()}")
    return text


def claims(pod):
    return {v["name"]: v["persistentVolumeClaim"]["claimName"] for v in pod["volumes"] if "persistentVolumeClaim" in v}


def main(path):
    with open(path) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d["kind"], {})[d["metadata"]["name"]] = d
    pvc = by_kind["PersistentVolumeClaim"]["mlbench-fleet-reports"]
    check("ReadWriteMany" in pvc["spec"]["accessModes"], "the reports claim is not ReadWriteMany")

    burnin = by_kind["Job"]["mlbench-fleet"]["spec"]
    check(burnin["completionMode"] == "Indexed", "the burn-in Job is not Indexed")
    check(burnin["parallelism"] == burnin["completions"], "parallelism != completions: nodes would run in turns")
    check(burnin.get("backoffLimitPerIndex") == 0, "a failed node's pod would be retried")
    check(burnin.get("maxFailedIndexes") == burnin["completions"], "one failed node would stop the others")
    pod = burnin["template"]["spec"]
    labels = burnin["template"]["metadata"]["labels"]
    anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    check(any(t["topologyKey"] == "kubernetes.io/hostname" and
              t["labelSelector"]["matchLabels"].items() <= labels.items() for t in anti),
          "no required anti-affinity on the pod's own labels per host: two pods could share a node")
    check(pod.get("nodeSelector"), "no node selector for GPU nodes")
    check(pod.get("hostNetwork") is True, "without hostNetwork the report names the pod, not the node")
    [container] = pod["containers"]
    e = env(container)
    check(int(e["NODES"]) == burnin["completions"], f"NODES={e['NODES']} != completions={burnin['completions']}")
    check(int(container["resources"]["limits"]["nvidia.com/gpu"]) == int(e["GPUS"]), "nvidia.com/gpu != GPUS")
    check(e["MLBENCH_FLEET_COMMAND"].split()[0] == "burnin", "the per-node command is not mlbench burnin")
    text = script(container)
    for needed in ('mlbench $MLBENCH_FLEET_COMMAND -o "$reports/$host.json"', 'reports=/reports/$FLEET_RUN',
                   '"$reports/started/$host"', '"$reports/done/$host"'):
        check(needed in text, f"the burn-in script lacks {needed}")
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    check(mounts == {"reports": "/reports"}, f"burn-in mounts {mounts}")
    check(claims(pod) == {"reports": "mlbench-fleet-reports"}, "the burn-in pods do not mount the reports claim")

    verdict = by_kind["Job"]["mlbench-fleet-verdict"]["spec"]
    check(verdict.get("backoffLimit") == 0, "the verdict Job would be retried")
    vpod = verdict["template"]["spec"]
    check(claims(vpod) == {"reports": "mlbench-fleet-reports"}, "the verdict Job does not mount the reports claim")
    [wait] = vpod["initContainers"]
    [fleet] = vpod["containers"]
    wait_text = script(wait)
    check('/reports/$FLEET_RUN/done' in wait_text and "$NODES" in wait_text and "DEADLINE_S" in wait_text,
          "the wait does not count done markers up to NODES within DEADLINE_S")
    fleet_text = script(fleet)
    check('mlbench compare --fleet "$reports" --expect "@$reports/expected-hosts.txt"' in fleet_text,
          "the verdict step does not run compare --fleet with the started hosts expected")
    check('ls "$reports/started" > "$reports/expected-hosts.txt"' in fleet_text, "the expected hosts are not the started ones")
    for c in (wait, fleet):
        check(env(c)["FLEET_RUN"] == e["FLEET_RUN"], f"{c['name']}: FLEET_RUN differs from the burn-in Job's")
        check(int(env(c)["NODES"]) == burnin["completions"], f"{c['name']}: NODES differs from completions")
    print(f"fleet_k8s_test: fields ok ({burnin['completions']} nodes, {e['GPUS']} GPUs each, run {e['FLEET_RUN']})")
    return text, wait_text, fleet_text


def run_pod(text, claim, mlbench, **env_vars):
    """A pod's script with the claim at `claim` and mlbench from the build; its exit status and output."""
    script_text = text.replace("/reports", claim).replace("mlbench ", f"{mlbench} ")
    run_env = dict(os.environ, FLEET_RUN="run-test", **env_vars)
    r = subprocess.run(["bash", "-c", script_text], capture_output=True, text=True, env=run_env, timeout=120)
    return r.returncode, r.stdout + r.stderr


def run_here(texts, mlbench):
    burnin_text, wait_text, fleet_text = texts
    host = subprocess.run(["hostname", "-s"], capture_output=True, text=True, check=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="mlbench-k8s-") as claim:
        rc, out = run_pod(burnin_text, claim, mlbench, JOB_COMPLETION_INDEX="0",
                          MLBENCH_FLEET_COMMAND="hostmem --profile quick --size 96M --threads 1 --kernels triad")
        check(rc == 0, f"the burn-in pod exited {rc}: {out}")
        folder = os.path.join(claim, "run-test")
        for path in (f"{host}.json", f"started/{host}", f"done/{host}"):
            check(os.path.isfile(os.path.join(folder, path)), f"the burn-in pod wrote no {path}")
        rc, out = run_pod(wait_text, claim, mlbench, NODES="1", DEADLINE_S="30")
        check(rc == 0, f"the wait exited {rc}: {out}")
        rc, out = run_pod(fleet_text, claim, mlbench, NODES="1")
        check(rc == 0 and "fleet verdict: pass" in out, f"the verdict of one node exited {rc}: {out}")
        rc, out = run_pod(fleet_text, claim, mlbench, NODES="2")
        check(rc == 1 and "only 1 of 2 pods started" in out, f"the verdict with a pod never started exited {rc}: {out}")
        open(os.path.join(folder, "started", "node-x"), "w").close()
        rc, out = run_pod(fleet_text, claim, mlbench, NODES="2")
        check(rc == 1 and "missing: node-x (no report)" in out, f"a started node without a report: exit {rc}: {out}")
    print("fleet_k8s_test: the pods' scripts ran here: pass with every node, fail naming a missing one")


if __name__ == "__main__":
    texts = main(sys.argv[1])
    if len(sys.argv) > 2:
        run_here(texts, os.path.realpath(sys.argv[2]))
