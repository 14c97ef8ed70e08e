// Writes sizing/published_nccl.inc: NCCL's all-gather and reduce-scatter latencies as NVIDIA's aiconfigurator
// collected them with nccl-tests (aic-core systems data <gpu>/comm/nccl/<version>/nccl_perf.parquet,
// collector/network/collect_nccl.py: half-precision elements, the message the whole gathered or reduced tensor),
// on 2, 4 and 8 GPUs of a node, each GPU at the oldest NCCL release measured there.
//
// Usage: node scripts/published-nccl.mjs AICONFIGURATOR_GIT_DIR NODE_MODULES_DIR > sizing/published_nccl.inc
// It reads the parquet files through scripts/aiconfigurator-data.mjs (hyparquet, installed apart).
import { openAiconfigurator } from './aiconfigurator-data.mjs'

const { rows: readRows, releases, print } = await openAiconfigurator('published-nccl.mjs')
// aiconfigurator's system name and the catalog's GPU name.
const gpus = [
  ['a100_sxm', 'A100-SXM4-80GB'],
  ['h100_sxm', 'H100-SXM'],
  ['h200_sxm', 'H200-SXM'],
  ['b200_sxm', 'B200'],
  ['gb200', 'GB200'],
]
const ops = ['all_gather', 'reduce_scatter']
const first = 12
const points = 16 // 2^12 ... 2^27 elements
// Each GPU at the oldest NCCL release measured there (its folders in numeric order): a folder whose rows
// name another release in their own version column (some of aiconfigurator's legacy folders hold a later
// collection) is passed over. A size measured more than once takes the median of its runs.
async function oldest(system) {
  for (const version of releases(`${system}/comm/nccl`)) {
    const rows = await readRows(`${system}/comm/nccl/${version}/nccl_perf.parquet`)
    const named = new Set(rows.map((r) => r.version).filter((v) => v !== undefined && v !== null))
    if (named.size === 0 || (named.size === 1 && named.has(version))) return [version, rows]
    console.error(`${system} ${version}: its rows name NCCL ${[...named].join(', ')}, passed over`)
  }
  return [null, []]
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const lines = []
for (const [system, name] of gpus) {
  const [version, rows] = await oldest(system)
  if (!version) {
    console.error(`${system}: no NCCL release measured as named, left out`)
    continue
  }
  for (const op of ops)
    for (const n of [2, 4, 8]) {
      const bySize = new Map()
      for (const r of rows)
        if (r.op_name === op && r.nccl_dtype === 'half' && Number(r.num_gpus) === n) {
          const size = Number(r.message_size)
          if (!bySize.has(size)) bySize.set(size, [])
          bySize.get(size).push(Number(r.latency))
        }
      const sizes = Array.from({ length: points }, (_, i) => 2 ** (first + i))
      if (!sizes.every((s) => bySize.has(s))) {
        console.error(`${system} ${version}: ${op} on ${n} GPUs lacks a power of two from 2^${first}, left out`)
        continue
      }
      const seconds = sizes.map((s) => (median(bySize.get(s)) * 1e-3).toExponential(3))
      lines.push(`{"${name}", "${op}", ${n}, "${version}", {${seconds.join(', ')}}},`)
    }
}
print(lines)
