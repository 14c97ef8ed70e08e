// Writes sizing/published_nccl.inc: NCCL's all-gather and reduce-scatter latencies as NVIDIA's aiconfigurator
// collected them with nccl-tests (aic-core systems data <gpu>/comm/nccl/<version>/nccl_perf.parquet,
// collector/network/collect_nccl.py: half-precision elements, the message the whole gathered or reduced tensor),
// on 2, 4 and 8 GPUs of a node, each GPU at the oldest NCCL release measured there.
//
// Usage: node scripts/published-nccl.mjs AICONFIGURATOR_GIT_DIR NODE_MODULES_DIR > sizing/published_nccl.inc
// It reads the parquet files through scripts/aiconfigurator-data.mjs (hyparquet, installed apart).
import { openAiconfigurator } from './aiconfigurator-data.mjs'

const { rows: readRows, print } = await openAiconfigurator('published-nccl.mjs')
// aiconfigurator's system name, the catalog's GPU name, and its oldest NCCL release measured.
const gpus = [
  ['a100_sxm', 'A100-SXM4-80GB', '2.27.3'],
  ['h100_sxm', 'H100-SXM', '2.23'],
  ['h200_sxm', 'H200-SXM', '2.23'],
  ['b200_sxm', 'B200', '2.27.3'],
  ['gb200', 'GB200', '2.23'],
]
const ops = ['all_gather', 'reduce_scatter']
const first = 12
const points = 16 // 2^12 ... 2^27 elements
const lines = []
for (const [system, name, version] of gpus) {
  const rows = await readRows(`${system}/comm/nccl/${version}/nccl_perf.parquet`)
  for (const op of ops)
    for (const n of [2, 4, 8]) {
      const bySize = new Map()
      for (const r of rows)
        if (r.op_name === op && r.nccl_dtype === 'half' && Number(r.num_gpus) === n)
          bySize.set(Number(r.message_size), Number(r.latency))
      const sizes = Array.from({ length: points }, (_, i) => 2 ** (first + i))
      if (!sizes.every((s) => bySize.has(s))) {
        console.error(`${system} ${version}: ${op} on ${n} GPUs lacks a power of two from 2^${first}, left out`)
        continue
      }
      const seconds = sizes.map((s) => (bySize.get(s) * 1e-3).toExponential(3))
      lines.push(`{"${name}", "${op}", ${n}, "${version}", {${seconds.join(', ')}}},`)
    }
}
print(lines)
