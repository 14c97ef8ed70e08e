// Writes sizing/published_moe.inc: TensorRT-LLM's fused-MoE op latencies as NVIDIA's aiconfigurator
// collected them (aic-core systems data <gpu>/moe/trtllm/<version>/moe_perf.parquet,
// collector/trtllm/collect_moe.py), for the generic MoE shapes aiconfigurator models with a power-law
// routing of alpha 1.2 (sdk/models/moe.py), on one GPU (moe_tp_size and moe_ep_size 1), on one GPU of a
// tensor-parallel split of every expert (moe_tp_size 2, 4 or 8: TensorRT-LLM's mapping when no expert-parallel
// size is given) and on one rank of an expert-parallel group (moe_ep_size 2, 4 or 8: the rank's share of the
// experts, given every rank's tokens, as attention data parallelism all-gathers them).
//
// Usage: node scripts/published-moe.mjs AICONFIGURATOR_GIT_DIR NODE_MODULES_DIR > sizing/published_moe.inc
// It reads the parquet files through scripts/aiconfigurator-data.mjs (hyparquet, installed apart).
import { openAiconfigurator } from './aiconfigurator-data.mjs'

const { rows: readRows, print } = await openAiconfigurator('published-moe.mjs')
// aiconfigurator's system name, the catalog's GPU name, and the TensorRT-LLM releases read, oldest first (its
// 1.3.0rc15 folders for H100, H200 and GB200 only point at 1.3.0rc10's data, and releases after 1.3.0rc20 are
// not read; the A100's one collection is 1.0.0). A shape is read at the oldest release that holds it whole:
// the published runs the engine is checked on ran TensorRT-LLM 0.17 and 1.0, no newer than any collection here.
const gpus = [
  ['h100_sxm', 'H100-SXM', ['1.2.0rc5', '1.3.0rc10', '1.3.0rc20']],
  ['h200_sxm', 'H200-SXM', ['1.2.0rc5', '1.3.0rc10', '1.3.0rc20']],
  ['b200_sxm', 'B200', ['1.2.0rc5', '1.3.0rc10', '1.3.0rc15', '1.3.0rc20']],
  ['gb200', 'GB200', ['1.3.0rc10', '1.3.0rc20']],
  ['a100_sxm', 'A100-SXM4-80GB', ['1.0.0']],
]
const precisions = { bfloat16: 'bf16', fp8: 'fp8', nvfp4: 'nvfp4' }
// hidden, expert FFN, top-k, experts, whether one GPU holding every expert is measured, and the measured
// dtype of each workload precision where it is not the default above: Qwen3-30B-A3B, Qwen3-235B-A22B, Mixtral
// 8x7B, Mixtral 8x22B and Llama 4 Scout on one GPU and on each split; Llama 4 Maverick and DeepSeek-V3/R1,
// whose FP8 checkpoints scale per 128 x 128 block (fp8_block), on their expert-parallel splits only (no GPU
// holds them whole).
const shapes = [
  [2048, 768, 8, 128, true],
  [4096, 1536, 8, 128, true],
  [4096, 14336, 2, 8, true],
  [6144, 16384, 2, 8, true],
  [5120, 8192, 1, 16, true],
  [5120, 8192, 1, 128, false],
  [7168, 2048, 8, 256, false, { fp8: 'fp8_block', nvfp4: 'nvfp4' }],
]
const points = 15  // 2^0 ... 2^14 tokens
// The splits [moe_tp_size, moe_ep_size] read for a shape: one GPU, and every tensor- and expert-parallel
// split of a node.
const splitsOf = (shape) => [
  ...(shape[4] ? [[1, 1], [2, 1], [4, 1], [8, 1]] : []),
  [1, 2],
  [1, 4],
  [1, 8],
]
// The CUTLASS MoE's rows, named moe_torch_flow_cutlass, or moe_torch_flow in the older collections (H200):
// the first of these a GPU's table has.
const sources = ['moe_torch_flow_cutlass', 'moe_torch_flow']

// The measured dtypes a shape is read in, by the workload precision each stands for.
const dtypesOf = (shape) => shape[5] ?? Object.fromEntries(Object.entries(precisions).map(([d, p]) => [p, d]))
const keyOf = (dtype, shape, [tp, ep]) => [dtype, ...shape.slice(0, 4), tp, ep].join(' ')
const wanted = new Set(
  shapes.flatMap((shape) =>
    Object.values(dtypesOf(shape)).flatMap((d) => splitsOf(shape).map((split) => keyOf(d, shape, split))),
  ),
)
// One release's table: key (dtype, shape and split) -> tokens -> milliseconds.
async function release(system, version) {
  const rows = await readRows(`${system}/moe/trtllm/${version}/moe_perf.parquet`)
  const source = sources.find((k) => rows.some((r) => r.kernel_source === k))
  const table = new Map()
  for (const r of rows) {
    if (r.kernel_source !== source || r.distribution !== 'power_law_1.2') continue
    const key = [r.moe_dtype, r.hidden_size, r.inter_size, r.topk, r.num_experts, r.moe_tp_size, r.moe_ep_size]
      .map(String)
      .join(' ')
    if (!wanted.has(key)) continue
    if (!table.has(key)) table.set(key, new Map())
    const tokens = Number(r.num_tokens)
    if (table.get(key).has(tokens)) throw new Error(`${system} ${version}: two rows for ${key} at ${tokens} tokens`)
    table.get(key).set(tokens, Number(r.latency))
  }
  return table
}
const lines = []
for (const [system, name, versions] of gpus) {
  const tables = []
  for (const version of versions) tables.push([version, await release(system, version)])
  for (const precision of Object.values(precisions))
    for (const shape of shapes)
      for (const [tp, ep] of splitsOf(shape)) {
        const [h, f, k, e] = shape
        const dtype = dtypesOf(shape)[precision]
        if (!dtype) continue
        const key = keyOf(dtype, shape, [tp, ep])
        const found = tables.find(([, table]) => {
          const byTokens = table.get(key)
          return byTokens && Array.from({ length: points }, (_, i) => 2 ** i).every((t) => byTokens.has(t))
        })
        if (!found) {
          console.error(`${system}: no release holds ${key} at every power of two to ${2 ** (points - 1)}, left out`)
          continue
        }
        const [version, table] = found
        const seconds = Array.from({ length: points }, (_, i) => (table.get(key).get(2 ** i) * 1e-3).toExponential(3))
        lines.push(`{"${name}", "${precision}", ${h}, ${f}, ${k}, ${e}, ${tp}, ${ep}, "${version}", {${seconds.join(', ')}}},`)
      }
}
print(lines)
