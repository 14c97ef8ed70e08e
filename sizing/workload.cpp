#include "sizing/workload.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/error.hpp"
#include "bench/yaml_json.hpp"

namespace mlbench::sizing {
namespace {

using Json = nlohmann::json;

// Counts (layers, hidden, seq_len, nodes, ...) stay far below this, and derived ones (4 x hidden) still fit
// an int.
constexpr int kMaxWhole = 1 << 28;

// The unit of a workload key, by its name's ending, for a value given as text: "_days", "_hours" and "_h" are
// durations listed in days or hours (`per` seconds each), "_s" seconds, "_bytes" a size; any other key is a
// count (tokens, params, request_rate).
struct KeyUnit {
  std::string_view unit;
  double per;
};
KeyUnit key_unit(std::string_view key) {
  static constexpr std::pair<std::string_view, KeyUnit> kEndings[] = {{"_days", {"s", 86400}},
                                                                      {"_hours", {"s", 3600}},
                                                                      {"_h", {"s", 3600}},
                                                                      {"_s", {"s", 1}},
                                                                      {"_bytes", {"B", 1}}};
  for (const auto& [ending, unit] : kEndings)
    if (key.ends_with(ending)) return unit;
  return {"", 1};
}

// Typed reads of one workload mapping; every error names the file and key.
class Fields {
 public:
  Fields(const Json& j, std::string where) : j_(j), where_(std::move(where)) {}
  void only(const std::set<std::string>& allowed) const {
    for (const auto& [k, _] : j_.items())
      if (!allowed.contains(k))
        throw UsageError(
            fmt::format("{}: unknown key '{}' (allowed: {})", where_, k, fmt::join(allowed, ", ")));
  }
  bool has(const char* key) const { return j_.contains(key) && !j_[key].is_null(); }
  // A number, or a quantity in the flags' grammar read by the key's unit (key_unit): tokens: 1T,
  // params: 13B, allowed_stall_s: 2m, interval_h: 90m, dataset_bytes: 8T (binary, as --size).
  double positive(const char* key) const {
    if (!has(key)) throw UsageError(fmt::format("{}: '{}' is required", where_, key));
    const auto [unit, per] = key_unit(key);
    const double v = j_[key].is_string()
                         ? quantity_value(j_[key], unit, fmt::format("{}: '{}'", where_, key)) / per
                         : (j_[key].is_number() ? j_[key].get<double>() : 0);
    if (!(v > 0) || !std::isfinite(v))
      throw UsageError(
          fmt::format("{}: '{}' must be a positive number or quantity (e.g. 13B, 1T, 2ms), got {}", where_,
                      key, j_[key].dump()));
    return v;
  }
  double positive_or(const char* key, double fallback) const { return has(key) ? positive(key) : fallback; }
  int whole(const char* key) const {
    double v = positive(key);
    if (v != std::floor(v) || v > kMaxWhole)
      throw UsageError(fmt::format("{}: '{}' must be a whole number up to {}", where_, key, kMaxWhole));
    return static_cast<int>(v);
  }
  int whole_or(const char* key, int fallback) const { return has(key) ? whole(key) : fallback; }
  std::string text_or(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!j_[key].is_string()) throw UsageError(fmt::format("{}: '{}' must be a string", where_, key));
    return j_[key].get<std::string>();
  }
  bool flag_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j_[key].is_boolean()) throw UsageError(fmt::format("{}: '{}' must be true or false", where_, key));
    return j_[key].get<bool>();
  }
  const Json& at(const char* key) const { return j_.at(key); }
  const std::string& where() const { return where_; }

 private:
  const Json& j_;
  std::string where_;
};

std::string precision_field(const Fields& f, const char* key, const std::string& fallback) {
  auto p = f.text_or(key, fallback);
  bytes_per_element(p);
  return p;
}

// A string key restricted to `allowed` (listed in the error as `listed`).
std::string choice(const Fields& f, const char* key, const std::set<std::string>& allowed, const char* listed,
                   const std::string& fallback) {
  auto v = f.text_or(key, fallback);
  if (!allowed.contains(v))
    throw UsageError(fmt::format("{}: '{}' must be one of {} (got '{}')", f.where(), key, listed, v));
  return v;
}

// Latent attention (DeepSeek-V2/V3's config.json names): kv_lora_rank with qk_rope_head_dim,
// qk_nope_head_dim and v_head_dim; q_lora_rank optional. Every head has its own K and V (no kv_heads), and
// the per-head widths replace head_dim.
void parse_latent_attention(const Fields& f, TransformerModel& m) {
  static constexpr const char* kParts[] = {"qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"};
  if (!f.has("kv_lora_rank")) {
    for (const char* key : {"q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim"})
      if (f.has(key))
        throw UsageError(fmt::format("{}: '{}' needs 'kv_lora_rank' (latent attention)", f.where(), key));
    return;
  }
  for (const char* key : {"kv_heads", "head_dim"})
    if (f.has(key))
      throw UsageError(fmt::format(
          "{}: '{}' does not apply to latent attention (kv_lora_rank): every head has its own K and V, "
          "widths qk_nope_head_dim + qk_rope_head_dim and v_head_dim",
          f.where(), key));
  m.kv_lora_rank = f.whole("kv_lora_rank");
  for (const char* key : kParts)
    if (!f.has(key))
      throw UsageError(fmt::format("{}: '{}' is required with 'kv_lora_rank' (all of: {})", f.where(), key,
                                   fmt::join(kParts, ", ")));
  m.qk_rope_head_dim = f.whole("qk_rope_head_dim");
  m.qk_nope_head_dim = f.whole("qk_nope_head_dim");
  m.v_head_dim = f.whole("v_head_dim");
  m.q_lora_rank = f.whole_or("q_lora_rank", 0);
}

// Local attention (config.json names): sliding_window (Mistral, Gemma, GPT-OSS) or attention_chunk_size
// (Llama 4), one of the two, and global_every: each global_every-th layer attends to the whole context (Llama
// 4: 4, its NoPE layers; GPT-OSS: 2; Gemma 3: 6, its sliding_window_pattern). Without global_every every
// layer is local.
void parse_local_attention(const Fields& f, TransformerModel& m) {
  if (f.has("sliding_window") && f.has("attention_chunk_size"))
    throw UsageError(fmt::format(
        "{}: 'sliding_window' and 'attention_chunk_size' exclude each other: give the one the model's "
        "config.json names (a window sliding with each query, or fixed chunks)",
        f.where()));
  if (!f.has("sliding_window") && !f.has("attention_chunk_size")) {
    if (f.has("global_every"))
      throw UsageError(fmt::format(
          "{}: 'global_every' needs 'sliding_window' or 'attention_chunk_size' (the local layers' window)",
          f.where()));
    return;
  }
  m.local_chunked = f.has("attention_chunk_size");
  m.local_window = f.whole(m.local_chunked ? "attention_chunk_size" : "sliding_window");
  m.global_every = f.whole_or("global_every", 0);
  if (f.has("global_every") && m.global_every < 2)
    throw UsageError(fmt::format(
        "{}: 'global_every' must be 2 or more (each global_every-th layer attends to the whole context; "
        "leave it out when every layer is local)",
        f.where()));
}

TransformerModel parse_model(const Fields& top) {
  if (!top.has("model") || !top.at("model").is_object())
    throw UsageError(fmt::format("{}: 'model' must be a mapping (architecture or params)", top.where()));
  Fields f(top.at("model"), top.where() + ": model");
  f.only({"params",
          "active_params",
          "layers",
          "hidden",
          "heads",
          "kv_heads",
          "head_dim",
          "ffn_hidden",
          "vocab",
          "tie_word_embeddings",
          "gated_ffn",
          "norm",
          "rotary",
          "dropout",
          "experts",
          "top_k",
          "shared_experts",
          "n_group",
          "topk_group",
          "kv_lora_rank",
          "q_lora_rank",
          "qk_rope_head_dim",
          "qk_nope_head_dim",
          "v_head_dim",
          "sliding_window",
          "attention_chunk_size",
          "global_every",
          "dense_layers",
          "dense_ffn_hidden"});
  TransformerModel m;
  parse_latent_attention(f, m);
  parse_local_attention(f, m);
  if (f.has("experts")) {
    m.experts = f.whole("experts");
    if (!f.has("top_k"))
      throw UsageError(
          fmt::format("{}: 'top_k' is required with 'experts' (allowed: 1 to {})", f.where(), m.experts));
    m.top_k = f.whole("top_k");
    if (m.top_k > m.experts)
      throw UsageError(fmt::format("{}: 'top_k' {} exceeds the {} experts (allowed: 1 to {})", f.where(),
                                   m.top_k, m.experts, m.experts));
    if (f.has("shared_experts")) m.shared_experts = f.whole("shared_experts");
    if (f.has("n_group") != f.has("topk_group"))
      throw UsageError(
          fmt::format("{}: 'n_group' and 'topk_group' go together (node-limited routing: "
                      "the expert groups and how many of them a token's experts come from)",
                      f.where()));
    if (f.has("n_group")) {
      m.expert_groups = f.whole("n_group");
      m.group_top_k = f.whole("topk_group");
      if (m.experts % m.expert_groups != 0 || m.group_top_k > m.expert_groups)
        throw UsageError(
            fmt::format("{}: 'n_group' {} must divide the {} experts and 'topk_group' {} must not exceed it",
                        f.where(), m.expert_groups, m.experts, m.group_top_k));
    }
    if (!f.has("layers") && !f.has("hidden"))
      throw UsageError(fmt::format(
          "{}: 'experts' needs the architecture (layers, hidden, heads, ffn_hidden per expert)", f.where()));
    if (f.has("dense_layers") != f.has("dense_ffn_hidden"))
      throw UsageError(fmt::format(
          "{}: 'dense_layers' and 'dense_ffn_hidden' go together (how many layers run a dense FFN in place "
          "of the experts, and its width: DeepSeek-V3's first_k_dense_replace and intermediate_size)",
          f.where()));
    if (f.has("dense_layers")) {
      m.dense_layers = f.whole("dense_layers");
      m.dense_ffn_hidden = f.whole("dense_ffn_hidden");
    }
  } else {
    for (const char* key :
         {"top_k", "shared_experts", "n_group", "topk_group", "dense_layers", "dense_ffn_hidden"})
      if (f.has(key))
        throw UsageError(
            fmt::format("{}: '{}' needs 'experts' (the routed experts per layer)", f.where(), key));
  }
  m.vocab = f.whole_or("vocab", 32000);
  m.gated_ffn = f.flag_or("gated_ffn", true);
  m.rms_norm = choice(f, "norm", {"rmsnorm", "layernorm"}, "rmsnorm, layernorm", "rmsnorm") == "rmsnorm";
  m.rotary = f.flag_or("rotary", true);
  m.dropout = f.flag_or("dropout", false);
  m.tied_embeddings = f.flag_or("tie_word_embeddings", false);
  if (f.has("layers") || f.has("hidden")) {
    m.layers = f.whole("layers");
    m.hidden = f.whole("hidden");
    m.heads = f.whole("heads");
    m.kv_heads = f.whole_or("kv_heads", m.heads);
    m.explicit_head_dim = f.whole_or("head_dim", 0);
    m.ffn_hidden = f.whole_or("ffn_hidden", 4 * m.hidden);
    if (m.dense_layers >= m.layers)
      throw UsageError(fmt::format("{}: 'dense_layers' {} leaves no MoE layer of the {} (at most {})",
                                   f.where(), m.dense_layers, m.layers, m.layers - 1));
    if (m.global_every > m.layers)
      throw UsageError(fmt::format("{}: 'global_every' {} exceeds the {} layers (allowed: 2 to {})",
                                   f.where(), m.global_every, m.layers, m.layers));
    if (m.heads % m.kv_heads != 0)
      throw UsageError(fmt::format("{}: heads must divide by kv_heads", f.where()));
    if (!m.explicit_head_dim && !m.mla() && m.hidden % m.heads != 0)
      throw UsageError(fmt::format(
          "{}: hidden {} does not divide by heads {}: give 'head_dim' (the attention width per head)",
          f.where(), m.hidden, m.heads));
    // The layers' matrices and the embedding and output matrices; norms are negligible.
    m.params = m.layers * m.layer_matrix_params() + m.embedding_params();
    m.active_params = m.layers * m.layer_active_params() + m.embedding_params();
    if (f.has("params")) m.params = f.positive("params");
  } else {
    for (const char* key : {"head_dim", "kv_lora_rank"})
      if (f.has(key))
        throw UsageError(
            fmt::format("{}: '{}' needs the architecture (layers, hidden, heads)", f.where(), key));
    m.params = f.positive("params");
    m.derived_shape = true;
    // N ~ 12 L h^2 with h = 128 L (Llama-class aspect ratio), h rounded to a multiple of 128.
    double h = std::max(128.0, std::round(std::cbrt(m.params * 128 / 12) / 128) * 128);
    if (h > kMaxWhole)
      throw UsageError(fmt::format("{}: 'params' is too large to derive an architecture from", f.where()));
    m.hidden = static_cast<int>(h);
    m.layers = std::max(1, static_cast<int>(std::lround(m.params / (12.0 * m.hidden * m.hidden))));
    m.heads = m.hidden / 128;
    m.kv_heads = m.heads;
    m.ffn_hidden = 4 * m.hidden;
    m.gated_ffn = false;
  }
  m.active_params = f.positive_or("active_params", m.moe() ? m.active_params : m.params);
  if (m.active_params > m.params)
    throw UsageError(fmt::format("{}: active_params exceeds params", f.where()));
  return m;
}

LayoutSpec parse_layout(const Fields& top, const TransformerModel& m, int seq_len) {
  LayoutSpec l;
  if (!top.has("layout")) return l;
  if (!top.at("layout").is_object())
    throw UsageError(fmt::format("{}: 'layout' must be a mapping of tp, pp, dp, cp, ep, etp, vp, micro_batch",
                                 top.where()));
  Fields f(top.at("layout"), top.where() + ": layout");
  f.only({"tp", "pp", "dp", "cp", "ep", "etp", "vp", "micro_batch"});
  auto opt = [&](const char* key) { return f.has(key) ? std::optional<int>(f.whole(key)) : std::nullopt; };
  l.tp = opt("tp");
  l.pp = opt("pp");
  l.dp = opt("dp");
  l.cp = opt("cp");
  l.vp = opt("vp");
  l.micro_batch = opt("micro_batch");
  l.ep = opt("ep");
  l.etp = opt("etp");
  double product = 1.0 * l.tp.value_or(1) * l.pp.value_or(1) * l.dp.value_or(1) * l.cp.value_or(1);
  if (product > kMaxWhole)
    throw UsageError(fmt::format("{}: tp x pp x dp x cp = {:.3g} GPUs (allowed: up to {})", f.where(),
                                 product, kMaxWhole));
  if (l.tp && m.heads % *l.tp != 0)
    throw UsageError(
        fmt::format("{}: 'tp' {} does not divide the {} attention heads (allowed: divisors of {})", f.where(),
                    *l.tp, m.heads, m.heads));
  if (l.pp && *l.pp > m.layers)
    throw UsageError(fmt::format("{}: 'pp' {} exceeds the {} layers (allowed: 1 to {})", f.where(), *l.pp,
                                 m.layers, m.layers));
  if (l.cp && seq_len % *l.cp != 0)
    throw UsageError(fmt::format("{}: 'cp' {} does not divide seq_len {} (allowed: divisors of {})",
                                 f.where(), *l.cp, seq_len, seq_len));
  if (l.vp && l.pp && (m.layers / *l.pp) % *l.vp != 0)
    throw UsageError(fmt::format("{}: 'vp' {} does not divide the {} layers per pipeline stage", f.where(),
                                 *l.vp, m.layers / *l.pp));
  return l;
}

// Expert parallelism: the routed experts split ep ways, the ep ranks taken from the data-parallel ones.
void check_ep(const std::string& where, const TransformerModel& m, const LayoutSpec& l) {
  if (l.etp && !l.ep)
    throw UsageError(
        fmt::format("{}: 'etp' {} needs 'ep' (expert parallelism) in the layout", where, *l.etp));
  if (!l.ep) return;
  if (!m.moe())
    throw UsageError(
        fmt::format("{}: 'ep' {} needs a mixture-of-experts model (model: experts, top_k)", where, *l.ep));
  if (m.experts % *l.ep != 0)
    throw UsageError(fmt::format("{}: 'ep' {} does not divide the {} experts (allowed: divisors of {})",
                                 where, *l.ep, m.experts, m.experts));
  if (l.etp && !l.tp)
    throw UsageError(fmt::format("{}: 'etp' {} needs 'tp' in the layout (etp divides it)", where, *l.etp));
  // etp equal to tp is Megatron-Core's default: the checks below without folding.
  if (l.etp && *l.etp != *l.tp) {
    int tp = *l.tp;
    if (*l.etp > tp || tp % *l.etp != 0)
      throw UsageError(fmt::format("{}: 'etp' {} must divide the layout's tp {} (allowed: divisors of {})",
                                   where, *l.etp, tp, tp));
    if (m.ffn_hidden % *l.etp != 0)
      throw UsageError(fmt::format("{}: 'etp' {} does not divide the experts' ffn_hidden {}", where, *l.etp,
                                   m.ffn_hidden));
    // Folded onto the experts' own grid, the ep x etp ranks come from the tp x cp x dp of a stage.
    long long ranks = static_cast<long long>(tp) * l.cp.value_or(1) * l.dp.value_or(1);
    if (l.dp && l.cp && ranks % (static_cast<long long>(*l.ep) * *l.etp) != 0)
      throw UsageError(
          fmt::format("{}: 'ep' {} x 'etp' {} does not divide tp x cp x dp = {} (allowed: ep x etp "
                      "dividing it)",
                      where, *l.ep, *l.etp, ranks));
    return;
  }
  if (l.dp && *l.dp % *l.ep != 0)
    throw UsageError(
        fmt::format("{}: 'ep' {} does not divide dp {} (allowed: divisors of {} that divide {} experts; "
                    "with 'etp' below tp, ep x etp dividing tp x cp x dp)",
                    where, *l.ep, *l.dp, *l.dp, m.experts));
}

FineTune parse_finetune(const Fields& top) {
  FineTune ft;
  if (!top.has("finetune")) return ft;
  if (!top.at("finetune").is_object())
    throw UsageError(fmt::format("{}: 'finetune' must be a mapping of method, rank, targets", top.where()));
  Fields f(top.at("finetune"), top.where() + ": finetune");
  f.only({"method", "rank", "targets"});
  choice(f, "method", {"lora"}, "lora", "");
  ft.rank = f.whole("rank");
  std::set<std::string> known(std::begin(kLoraTargets), std::end(kLoraTargets));
  if (!f.has("targets")) {
    ft.targets.assign(std::begin(kLoraTargets), std::end(kLoraTargets));
    return ft;
  }
  const auto& t = f.at("targets");
  auto bad = [&] {
    return UsageError(fmt::format("{}: 'targets' must be a non-empty list of distinct {} (got {})", f.where(),
                                  fmt::join(kLoraTargets, ", "), t.dump()));
  };
  if (!t.is_array() || t.empty()) throw bad();
  for (const auto& e : t) {
    if (!e.is_string() || !known.contains(e.get<std::string>())) throw bad();
    if (std::find(ft.targets.begin(), ft.targets.end(), e.get<std::string>()) != ft.targets.end())
      throw bad();
    ft.targets.push_back(e.get<std::string>());
  }
  return ft;
}

Checkpointing parse_checkpoint(const Fields& top) {
  Checkpointing c;
  if (!top.has("checkpoint")) return c;
  Fields f(top.at("checkpoint"), top.where() + ": checkpoint");
  f.only({"interval_h", "retention", "allowed_stall_s", "survive_drive_loss"});
  c.interval_s = f.positive_or("interval_h", 1) * 3600;
  c.retention = f.whole_or("retention", 5);
  c.allowed_stall_s = f.positive_or("allowed_stall_s", 60);
  c.survive_drive_loss = f.flag_or("survive_drive_loss", false);
  c.interval_given = f.has("interval_h");
  c.retention_given = f.has("retention");
  c.stall_given = f.has("allowed_stall_s");
  return c;
}

}  // namespace

std::optional<int> LayoutSpec::gpus() const {
  if (!tp || !pp || !dp || !cp) return std::nullopt;
  return *tp * *pp * *dp * *cp;
}

double TransformerModel::ffn_params() const { return (gated_ffn ? 3.0 : 2.0) * hidden * ffn_hidden; }

double TransformerModel::attention_params() const {
  double h = hidden, a = heads;
  if (mla()) {
    // Q: h x a (nope + rope), or down h x q_lora then up q_lora x a (nope + rope); KV: down h x (kv_lora +
    // rope), up kv_lora x a (nope + v); O: a v x h.
    double q_out = a * qk_head_dim();
    double q = q_lora_rank > 0 ? h * q_lora_rank + static_cast<double>(q_lora_rank) * q_out : h * q_out;
    double kv = h * (kv_lora_rank + qk_rope_head_dim) + kv_lora_rank * a * (qk_nope_head_dim + v_head_dim);
    return q + kv + a * v_head_dim * h;
  }
  double d = head_dim();
  return 2.0 * h * a * d + 2.0 * h * kv_heads * d;
}

double TransformerModel::kv_elements_per_token() const {
  if (mla()) return static_cast<double>(layers) * (kv_lora_rank + qk_rope_head_dim);
  return 2.0 * layers * kv_heads * head_dim();
}

double TransformerModel::attention_flops_per_context_token(bool absorbed) const {
  double per_head = absorbed && mla() ? 2.0 * kv_lora_rank + qk_rope_head_dim
                                      : static_cast<double>(qk_head_dim()) + v_dim();
  return 2.0 * layers * heads * per_head;
}

int TransformerModel::local_layers() const {
  if (local_window <= 0) return 0;
  return global_every > 0 ? layers - layers / global_every : layers;
}

namespace {
// The query-key pairs of the queries at positions 1 .. n (each attends to itself and what precedes it) in a
// layer whose queries see at most `window` tokens: the last `window` (sliding) or those of their own
// `window`-token chunk (chunked); window 0: the whole prefix.
double causal_pairs(double n, double window, bool chunked) {
  if (window <= 0 || n <= window) return n * (n + 1) / 2;
  if (!chunked) return window * (window + 1) / 2 + (n - window) * window;
  double chunks = std::floor(n / window), rest = n - chunks * window;
  return chunks * window * (window + 1) / 2 + rest * (rest + 1) / 2;
}
}  // namespace

double TransformerModel::attended_share(double from, double to) const {
  int local = local_layers();
  if (local == 0 || to <= from) return 1;
  double full = causal_pairs(to, 0, false) - causal_pairs(from, 0, false);
  double window =
      causal_pairs(to, local_window, local_chunked) - causal_pairs(from, local_window, local_chunked);
  return ((layers - local) * full + local * window) / (static_cast<double>(layers) * full);
}

std::string TransformerModel::local_attention_text(double share) const {
  int local = local_layers();
  if (local == 0) return "";
  return fmt::format(
      "{} of {} layers attend within {} {}-token {} ({}{}), {:.3f} of the whole context's "
      "query-key pairs",
      local, layers, local_chunked ? "their" : "a", local_window, local_chunked ? "chunks" : "sliding window",
      local_chunked ? "attention_chunk_size" : "sliding_window",
      global_every > 0 ? fmt::format(", global_every {}", global_every) : "", share);
}

double TransformerModel::dense_ffn_params() const {
  return (gated_ffn ? 3.0 : 2.0) * hidden * dense_ffn_hidden;
}

double TransformerModel::layer_matrix_params() const {
  if (!moe()) return attention_params() + ffn_params();
  double moe_layer = static_cast<double>(hidden) * experts + (experts + shared_experts) * ffn_params();
  return attention_params() + (moe_layers() * moe_layer + dense_layers * dense_ffn_params()) / layers;
}

double TransformerModel::layer_active_params() const {
  if (!moe()) return attention_params() + ffn_params();
  double moe_layer = static_cast<double>(hidden) * experts + ffns_per_token() * ffn_params();
  return attention_params() + (moe_layers() * moe_layer + dense_layers * dense_ffn_params()) / layers;
}

double TransformerModel::ffn_width(bool routed) const {
  if (!moe()) return ffn_hidden;
  double copies = routed ? ffns_per_token() : shared_experts;
  return (moe_layers() * copies * ffn_hidden + static_cast<double>(dense_layers) * dense_ffn_hidden) / layers;
}

namespace {
// Each precision's storage bits per element with its block scales, the catalog peak its GEMMs run at, and
// the peak an attention kernel runs at over a KV cache stored in it. NVFP4: 16 e2m1 elements share an fp8
// (e4m3) scale, 4 + 8/16 = 4.5 bits; MXFP4 (OCP Microscaling v1.0): 32 share an 8-bit e8m0 scale, 4 + 8/32
// = 4.25 bits. Blackwell's tensor cores run both at the FP4 rate. Attention multiplies queries by the cache
// as stored or dequantized: an FP4 cache is dequantized to FP8 (Blackwell's FP4-to-FP8 path, as
// TensorRT-LLM's NVFP4 KV cache runs), an INT8 cache to FP16 (TensorRT-LLM's INT8 KV cache).
struct PrecisionSpec {
  std::string_view name;
  double bits;
  std::string_view peak;
  std::string_view attention_peak;
};
constexpr PrecisionSpec kPrecisions[] = {{"fp32", 32, "fp32", "fp32"}, {"tf32", 32, "tf32", "tf32"},
                                         {"bf16", 16, "bf16", "bf16"}, {"fp16", 16, "fp16", "fp16"},
                                         {"fp8", 8, "fp8", "fp8"},     {"int8", 8, "int8", "fp16"},
                                         {"nvfp4", 4.5, "fp4", "fp8"}, {"mxfp4", 4.25, "fp4", "fp8"}};
const PrecisionSpec& precision_spec(const std::string& precision) {
  for (const auto& p : kPrecisions)
    if (p.name == precision) return p;
  std::vector<std::string_view> names;
  for (const auto& p : kPrecisions) names.push_back(p.name);
  throw UsageError(fmt::format("unknown precision '{}' (use {})", precision, fmt::join(names, ", ")));
}
}  // namespace

double bytes_per_element(const std::string& precision) { return precision_spec(precision).bits / 8; }

std::string peak_precision(const std::string& precision) {
  return std::string(precision_spec(precision).peak);
}

std::string attention_peak_precision(const std::string& kv_precision) {
  return std::string(precision_spec(kv_precision).attention_peak);
}

namespace {
FusedKernels parse_fused(const Fields& f, const std::string& where) {
  FusedKernels out;
  if (!f.has("fused")) return out;
  const auto& list = f.at("fused");
  std::vector<std::string> names;
  for (const auto& [kernel, name] : kFusedKernelNames) names.push_back(name);
  auto bad = [&] {
    return UsageError(
        fmt::format("{}: 'fused' must be a list of the elementwise passes run fused, each once, of "
                    "{} (got {})",
                    where, fmt::join(names, ", "), list.dump()));
  };
  if (!list.is_array()) throw bad();
  for (const auto& e : list) {
    if (!e.is_string()) throw bad();
    auto it = std::find_if(std::begin(kFusedKernelNames), std::end(kFusedKernelNames),
                           [&](const auto& k) { return e.get<std::string>() == k.second; });
    if (it == std::end(kFusedKernelNames) || out.has(it->first)) throw bad();
    out.kernels.push_back(it->first);
  }
  if (out.has(FusedKernel::cross_entropy) && out.has(FusedKernel::te_cross_entropy))
    throw UsageError(
        fmt::format("{}: 'fused' names two cross-entropy kernels: give cross_entropy (Megatron-LM's) "
                    "or te_cross_entropy (Transformer Engine's)",
                    where));
  return out;
}
}  // namespace

Workload load_workload(const std::filesystem::path& path) {
  auto doc = load_yaml_file(path);
  if (!doc.is_object()) throw UsageError(fmt::format("{}: expected a mapping with 'kind'", path.string()));
  Fields f(doc, path.string());
  Workload w;
  w.source = path.string();
  w.kind = f.text_or("kind", "");
  w.name = f.text_or("name", path.stem().string());
  w.hardware = f.text_or("hardware", "");
  const std::set<std::string> common = {"kind",          "name",           "hardware",
                                        "deadline_days", "deadline_hours", "nodes"};
  auto with = [&](std::set<std::string> extra) {
    extra.insert(common.begin(), common.end());
    return extra;
  };
  if (f.has("deadline_days")) w.deadline_s = f.positive("deadline_days") * 86400;
  if (f.has("deadline_hours")) w.deadline_s = f.positive("deadline_hours") * 3600;
  if (f.has("nodes")) w.nodes = f.whole("nodes");

  if (w.kind == "llm-training") {
    f.only(with({"model",
                 "tokens",
                 "seq_len",
                 "global_batch_tokens",
                 "micro_batch",
                 "precision",
                 "optimizer",
                 "checkpoint",
                 "dataset_bytes",
                 "recompute",
                 "sequence_parallel",
                 "attention",
                 "schedule",
                 "overlap_p2p_comm",
                 "fp8_attention",
                 "fp8_params",
                 "fp8_activation_input",
                 "fused",
                 "cp_comm",
                 "fp8_recipe",
                 "layout",
                 "ep",
                 "ep_dispatch",
                 "finetune"}));
    LlmTraining t;
    t.model = parse_model(f);
    t.tokens = f.positive("tokens");
    t.seq_len = f.whole("seq_len");
    t.global_batch_tokens = f.positive_or("global_batch_tokens", 4194304);
    t.recompute = choice(f, "recompute", {"none", "selective", "full", "auto"}, kRecomputeModes, "auto");
    t.sequence_parallel = f.flag_or("sequence_parallel", true);
    t.attention = choice(f, "attention", {"flash", "standard"}, kAttentionKinds, "flash");
    t.schedule = choice(f, "schedule", {"1f1b", "interleaved", "dualpipe"}, kSchedules, "interleaved");
    t.overlap_p2p_comm = f.flag_or("overlap_p2p_comm", true);
    t.fp8_attention = f.flag_or("fp8_attention", false);
    t.fp8_params = f.flag_or("fp8_params", false);
    t.fp8_activation_input = f.flag_or("fp8_activation_input", false);
    t.fused = parse_fused(f, path.string());
    t.cp_comm = choice(f, "cp_comm", {"p2p", "all_gather", "a2a"}, kCpComms, "p2p");
    t.fp8_recipe = choice(f, "fp8_recipe", {"delayed", "current", "mxfp8"}, kFp8Recipes, "delayed");
    t.ep_dispatch = choice(f, "ep_dispatch", {"bf16", "fp8"}, kDispatchPrecisions, "bf16");
    t.layout = parse_layout(f, t.model, t.seq_len);
    if (f.has("micro_batch")) {
      int mb = f.whole("micro_batch");
      if (t.layout.micro_batch && *t.layout.micro_batch != mb)
        throw UsageError(fmt::format("{}: 'micro_batch' {} and layout.micro_batch {} disagree", path.string(),
                                     mb, *t.layout.micro_batch));
      t.layout.micro_batch = mb;
    }
    if (f.has("ep")) {
      int ep = f.whole("ep");
      if (t.layout.ep && *t.layout.ep != ep)
        throw UsageError(
            fmt::format("{}: 'ep' {} and layout.ep {} disagree", path.string(), ep, *t.layout.ep));
      t.layout.ep = ep;
    }
    check_ep(path.string(), t.model, t.layout);
    // Megatron-Core refuses MoE under tensor parallelism without sequence parallelism; folded experts take
    // each GPU's own sequence shard to the all-to-all.
    if (t.layout.etp && *t.layout.etp != *t.layout.tp && !t.sequence_parallel)
      throw UsageError(fmt::format("{}: layout 'etp' {} below tp {} needs 'sequence_parallel: true'",
                                   path.string(), *t.layout.etp, *t.layout.tp));
    if (t.schedule == "dualpipe" && t.layout.pp && *t.layout.pp > 1 && *t.layout.pp % 2 != 0)
      throw UsageError(
          fmt::format("{}: 'schedule: dualpipe' needs an even pp (got layout pp {}): it runs "
                      "micro-batches from both ends of the pipeline",
                      path.string(), *t.layout.pp));
    if (t.layout.vp && *t.layout.vp > 1 && t.schedule != "interleaved")
      throw UsageError(fmt::format("{}: layout 'vp' {} needs 'schedule: interleaved' (allowed with 1f1b: 1)",
                                   path.string(), *t.layout.vp));
    t.precision = precision_field(f, "precision", "bf16");
    if (f.has("fp8_recipe") && t.precision != "fp8")
      throw UsageError(
          fmt::format("{}: 'fp8_recipe' is an FP8 run's scaling: it needs 'precision: fp8' (got {})",
                      path.string(), t.precision));
    if (t.fp8_attention && bytes_per_element(t.precision) >= 2)
      throw UsageError(fmt::format("{}: 'fp8_attention' is for FP8 and FP4 runs (got precision {}): drop it",
                                   path.string(), t.precision));
    if (t.fp8_attention && t.attention == "standard")
      throw UsageError(fmt::format(
          "{}: 'fp8_attention' is fused attention in FP8 (Transformer Engine's fp8_dpa), not 'attention: "
          "standard': drop one",
          path.string()));
    for (auto [key, on] :
         {std::pair{"fp8_params", t.fp8_params}, {"fp8_activation_input", t.fp8_activation_input}})
      if (on && t.precision != "fp8")
        throw UsageError(fmt::format("{}: '{}' is for FP8 runs (got precision {}): drop it", path.string(),
                                     key, t.precision));
    if (t.cp_comm == "a2a" && t.layout.cp && *t.layout.cp > 1 &&
        !a2a_splits_heads(t.model, t.layout.tp.value_or(1), *t.layout.cp)) {
      int kv = t.model.mla() ? t.model.heads : t.model.kv_heads;
      throw UsageError(
          fmt::format("{}: 'cp_comm: a2a' splits each TP rank's heads over cp: {} query and {} KV heads do "
                      "not split over "
                      "{}cp {}; use cp_comm p2p or a cp that divides them",
                      path.string(), t.model.heads, kv,
                      t.layout.tp ? fmt::format("tp {} x ", *t.layout.tp) : "", *t.layout.cp));
    }
    if (t.fp8_activation_input && !t.model.gated_ffn)
      throw UsageError(
          fmt::format("{}: 'fp8_activation_input' is Megatron-LM's SwiGLU option "
                      "(activation_func_fp8_input_store): it needs a gated FFN; drop it",
                      path.string()));
    if (t.fp8_activation_input && !t.fused.has(FusedKernel::activation))
      throw UsageError(
          fmt::format("{}: 'fp8_activation_input' runs in the fused SwiGLU kernel "
                      "(bias_activation_fusion): add activation to 'fused' or drop it",
                      path.string()));
    t.optimizer = f.text_or("optimizer", "adam");
    if (t.optimizer != "adam" && t.optimizer != "adam-fp32-grads")
      throw UsageError(fmt::format("{}: optimizer must be 'adam' or 'adam-fp32-grads'", path.string()));
    t.checkpoint = parse_checkpoint(f);
    t.finetune = parse_finetune(f);
    t.dataset_bytes = f.positive_or("dataset_bytes", t.tokens * 4);
    if (t.global_batch_tokens < t.seq_len)
      throw UsageError(fmt::format("{}: global_batch_tokens is smaller than one sequence", path.string()));
    w.spec = t;
  } else if (w.kind == "cv-training") {
    f.only(with({"params", "dataset_images", "dataset_bytes", "epochs", "flops_per_image", "precision",
                 "checkpoint"}));
    CvTraining c;
    c.params = f.positive("params");
    c.dataset_images = f.positive("dataset_images");
    c.dataset_bytes = f.positive("dataset_bytes");
    c.epochs = f.positive("epochs");
    c.flops_per_image = f.positive("flops_per_image");
    c.precision = precision_field(f, "precision", "bf16");
    c.checkpoint = parse_checkpoint(f);
    w.spec = c;
  } else if (w.kind == "llm-inference") {
    // The serving engine and its settings (vLLM's names, TensorRT-LLM's free_gpu_memory_fraction).
    std::set<std::string> keys{"engine",
                               "gpu_memory_utilization",
                               "free_gpu_memory_fraction",
                               "max_num_batched_tokens",
                               "max_num_seqs",
                               "cuda_graph_bytes",
                               "cuda_graph_batch_sizes",
                               "capacity_scheduler_policy",
                               "unquantized",
                               "attention_dp"};
    keys.insert({"model", "precision", "kv_precision", "request_rate", "concurrent_users", "input_tokens",
                 "output_tokens", "ttft_s", "tpot_s", "offline", "scenario", "tp", "batch", "requests",
                 "served_model"});
    f.only(with(keys));
    LlmInference s;
    s.model = parse_model(f);
    if (f.has("tp")) {
      s.tp = f.whole("tp");
      if (s.model.heads % *s.tp != 0)
        throw UsageError(
            fmt::format("{}: 'tp' {} does not divide the {} attention heads (allowed: divisors of {})",
                        path.string(), *s.tp, s.model.heads, s.model.heads));
    }
    if (f.has("batch")) s.batch = f.whole("batch");
    // The serving engine's memory settings, vLLM's names; unset: its defaults.
    if (f.has("gpu_memory_utilization")) {
      s.gpu_memory_utilization = f.positive("gpu_memory_utilization");
      if (*s.gpu_memory_utilization > 1)
        throw UsageError(
            fmt::format("{}: 'gpu_memory_utilization' {} exceeds 1 (allowed: a fraction of HBM, "
                        "0 < x <= 1, vLLM's default 0.9)",
                        path.string(), *s.gpu_memory_utilization));
    }
    if (f.has("engine")) s.engine = choice(f, "engine", {"vllm", "trtllm"}, kEngines, "vllm");
    if (f.has("free_gpu_memory_fraction")) {
      s.free_gpu_memory_fraction = f.positive("free_gpu_memory_fraction");
      if (*s.free_gpu_memory_fraction > 1)
        throw UsageError(
            fmt::format("{}: 'free_gpu_memory_fraction' {} exceeds 1 (allowed: a fraction of the memory left "
                        "after weights, 0 < x <= 1, TensorRT-LLM's default 0.9)",
                        path.string(), *s.free_gpu_memory_fraction));
    }
    if (s.engine != "vllm" && (f.has("gpu_memory_utilization") || f.has("cuda_graph_bytes")))
      throw UsageError(fmt::format(
          "{}: 'gpu_memory_utilization' and 'cuda_graph_bytes' are vLLM's settings (engine: {}); give "
          "'free_gpu_memory_fraction' for TensorRT-LLM",
          path.string(), s.engine));
    if (f.has("capacity_scheduler_policy")) {
      if (s.engine != "trtllm")
        throw UsageError(
            fmt::format("{}: 'capacity_scheduler_policy' is TensorRT-LLM's setting: add 'engine: trtllm'",
                        path.string()));
      s.capacity_scheduler_policy = choice(f, "capacity_scheduler_policy",
                                           {"guaranteed_no_evict", "max_utilization"}, kCapacityPolicies, "");
    }
    if (s.engine != "trtllm" && f.has("free_gpu_memory_fraction"))
      throw UsageError(fmt::format(
          "{}: 'free_gpu_memory_fraction' is TensorRT-LLM's setting: add 'engine: trtllm' or give vLLM's "
          "'gpu_memory_utilization'",
          path.string()));
    s.attention_dp = f.flag_or("attention_dp", false);
    if (s.attention_dp) {
      if (s.engine != "trtllm")
        throw UsageError(fmt::format(
            "{}: 'attention_dp' is TensorRT-LLM's enable_attention_dp: add 'engine: trtllm'", path.string()));
      if (!s.tp || *s.tp < 2)
        throw UsageError(fmt::format(
            "{}: 'attention_dp' splits the sequences over the tensor-parallel GPUs: give 'tp' of 2 or more",
            path.string()));
      if (!s.model.moe() || s.model.experts % *s.tp != 0)
        throw UsageError(fmt::format(
            "{}: 'attention_dp' runs the experts expert-parallel over the tp {} GPUs: it needs a MoE model "
            "whose 'experts' tp divides (got {} experts)",
            path.string(), *s.tp, s.model.experts));
    }
    if (f.has("cuda_graph_batch_sizes")) {
      const auto& sizes = f.at("cuda_graph_batch_sizes");
      auto bad = [&] {
        return UsageError(fmt::format(
            "{}: 'cuda_graph_batch_sizes' must be a non-empty list of increasing positive whole batch sizes "
            "(the engine's captured CUDA graphs, e.g. [1, 2, 4, 8]; got {})",
            path.string(), sizes.dump()));
      };
      if (!sizes.is_array() || sizes.empty()) throw bad();
      for (const auto& e : sizes) {
        if (!e.is_number_integer() || e.get<long long>() < 1 ||
            (!s.cuda_graph_batch_sizes.empty() && e.get<long long>() <= s.cuda_graph_batch_sizes.back()))
          throw bad();
        s.cuda_graph_batch_sizes.push_back(static_cast<int>(e.get<long long>()));
      }
    }
    if (f.has("unquantized")) {
      const auto& parts = f.at("unquantized");
      const std::set<std::string> allowed{"attention", "first_last_layers"};
      auto bad = [&] {
        return UsageError(fmt::format(
            "{}: 'unquantized' must be a list of the parts kept at 16 bits, each once, of {} (got {})",
            path.string(), kUnquantizedParts, parts.dump()));
      };
      if (!parts.is_array() || parts.empty()) throw bad();
      for (const auto& e : parts) {
        if (e == "embeddings")
          throw UsageError(fmt::format(
              "{}: 'unquantized' lists 'embeddings', which every quantized checkpoint keeps at 16 bits with "
              "the output head: drop it (the other parts: {})",
              path.string(), kUnquantizedParts));
        if (!e.is_string() || !allowed.contains(e.get<std::string>()) ||
            std::find(s.unquantized.begin(), s.unquantized.end(), e.get<std::string>()) !=
                s.unquantized.end())
          throw bad();
        s.unquantized.push_back(e.get<std::string>());
      }
    }
    if (f.has("max_num_batched_tokens")) s.max_num_batched_tokens = f.whole("max_num_batched_tokens");
    if (f.has("max_num_seqs")) s.max_num_seqs = f.whole("max_num_seqs");
    if (f.has("cuda_graph_bytes")) s.cuda_graph_bytes = f.positive("cuda_graph_bytes");
    s.precision = precision_field(f, "precision", "fp8");
    s.kv_precision = precision_field(f, "kv_precision", s.precision);
    s.input_tokens = f.positive("input_tokens");
    s.output_tokens = f.positive("output_tokens");
    s.ttft_s = f.positive_or("ttft_s", 0);
    s.tpot_s = f.positive_or("tpot_s", 0);
    s.offline = f.flag_or("offline", false);
    if (f.has("scenario")) {
      s.scenario = choice(f, "scenario", {"offline", "server", "interactive"}, kScenarios, "");
      if (f.has("offline") && s.offline != (s.scenario == "offline"))
        throw UsageError(fmt::format("{}: 'offline: {}' and 'scenario: {}' disagree (give one)",
                                     path.string(), s.offline, s.scenario));
      s.offline = s.scenario == "offline";
      if (!s.offline && (s.ttft_s <= 0 || s.tpot_s <= 0))
        throw UsageError(fmt::format(
            "{}: 'scenario: {}' needs its p99 targets 'ttft_s' and 'tpot_s' (MLPerf sets them per model)",
            path.string(), s.scenario));
    }
    if (s.attention_dp && !s.offline)
      throw UsageError(fmt::format(
          "{}: 'attention_dp' is modelled for offline throughput, not a request queue at a rate: give "
          "'offline: true' or drop 'attention_dp'",
          path.string()));
    if (f.has("requests")) {
      if (!s.offline)
        throw UsageError(fmt::format(
            "{}: 'requests' is an offline run's request count: it needs 'offline: true'", path.string()));
      s.requests = f.whole("requests");
    }
    s.served_model = f.text_or("served_model", w.name);
    if (f.has("request_rate")) {
      s.request_rate = f.positive("request_rate");
    } else if (f.has("concurrent_users")) {
      // Each user waits for a whole answer before asking again.
      double per_request_s = s.ttft_s + s.output_tokens * (s.tpot_s > 0 ? s.tpot_s : 0.05);
      s.request_rate = f.positive("concurrent_users") / per_request_s;
    } else if (!s.offline && !w.nodes) {
      throw UsageError(fmt::format(
          "{}: give 'request_rate', 'concurrent_users', or 'nodes' with 'offline: true'", path.string()));
    }
    w.spec = s;
  } else {
    throw UsageError(fmt::format("{}: 'kind' must be llm-training, cv-training or llm-inference (got '{}')",
                                 path.string(), w.kind));
  }
  bool training = w.kind != "llm-inference";
  if (training && !w.deadline_s && !w.nodes)
    throw UsageError(fmt::format(
        "{}: give 'deadline_days' (find the node count) or 'nodes' (predict the time)", path.string()));
  return w;
}

}  // namespace mlbench::sizing
