#!/usr/bin/env python3
"""configs/launch/fleet-k8s.yaml parses and holds together: the fields a fleet run depends on, checked without a
cluster. The burn-in Job is Indexed with parallelism = completions = NODES, one pod per GPU node (anti-affinity on
the pod's own label, a GPU node selector, nvidia.com/gpu = GPUS), every pod writes <host>.json into the shared
claim's run folder; the verdict Job waits for them and runs compare --fleet with the started hosts expected; both
Jobs agree on the claim, FLEET_RUN and NODES; every embedded script passes bash -n.

Usage: fleet_k8s_test.py configs/launch/fleet-k8s.yaml   (CTest: tools.fleet_k8s)
"""
import subprocess
import sys

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
    check('mlbench compare --fleet "$reports" --expect @/tmp/expected-hosts.txt' in fleet_text,
          "the verdict step does not run compare --fleet with the started hosts expected")
    check('ls "$reports/started" > /tmp/expected-hosts.txt' in fleet_text, "the expected hosts are not the started ones")
    for c in (wait, fleet):
        check(env(c)["FLEET_RUN"] == e["FLEET_RUN"], f"{c['name']}: FLEET_RUN differs from the burn-in Job's")
        check(int(env(c)["NODES"]) == burnin["completions"], f"{c['name']}: NODES differs from completions")
    print(f"fleet_k8s_test: ok ({burnin['completions']} nodes, {e['GPUS']} GPUs each, run {e['FLEET_RUN']})")


if __name__ == "__main__":
    main(sys.argv[1])
