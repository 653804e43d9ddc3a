#include "containers/zstd.hpp"

#include <map>
#include <memory>
#include <mutex>

#include <zstd.h>

#include "containers/sarc.hpp"
#include "core/failure.hpp"
#include "rigrip/registry.hpp"

namespace rigrip::containers {
namespace {

constexpr std::uint64_t kMaxOutput = 1ull << 30;
constexpr std::uint32_t kDictMagic = 0xEC30A437;

// Dictionaries by ID. Registered before the work starts (command-line parsing) and then only
// read, from any number of threads.
std::mutex g_mutex;
std::map<std::uint32_t, std::vector<std::uint8_t>>& dictionaries() {
  static std::map<std::uint32_t, std::vector<std::uint8_t>> d;
  return d;
}
const std::vector<std::uint8_t>* find_dictionary(std::uint32_t id) {
  std::lock_guard lock(g_mutex);
  auto it = dictionaries().find(id);
  return it == dictionaries().end() ? nullptr : &it->second;  // entries are never removed
}

std::uint64_t output_bound(std::span<const std::uint8_t> data) {
  return std::min<std::uint64_t>(kMaxOutput, 1024ull * data.size() + 65536);
}

struct dctx_free {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};
struct cctx_free {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};

}  // namespace

bool zstd_has_dictionary(std::uint32_t id) { return find_dictionary(id) != nullptr; }

bool is_zstd(std::span<const std::uint8_t> d) {
  return d.size() >= 4 && d[0] == 0x28 && d[1] == 0xB5 && d[2] == 0x2F && d[3] == 0xFD;
}

std::uint32_t zstd_dictionary_id(std::span<const std::uint8_t> d) {
  return is_zstd(d) ? ZSTD_getDictID_fromFrame(d.data(), d.size()) : 0;
}

std::vector<std::uint8_t> zstd_decompress(std::span<const std::uint8_t> data) {
  if (!is_zstd(data)) core::fail(code::bad_magic, "expected the zstd magic 28 B5 2F FD", 0);
  const std::uint64_t bound = output_bound(data);
  // Each frame's declared size, checked before the output is allocated.
  std::uint64_t declared = 0;
  bool all_sized = true;
  for (std::size_t at = 0; at < data.size();) {
    const auto rest = data.subspan(at);
    const std::size_t frame = ZSTD_findFrameCompressedSize(rest.data(), rest.size());
    if (ZSTD_isError(frame))
      core::fail(code::bad_value, std::string("zstd frame: ") + ZSTD_getErrorName(frame), at);
    const unsigned long long n = ZSTD_getFrameContentSize(rest.data(), rest.size());
    if (n == ZSTD_CONTENTSIZE_ERROR) core::fail(code::bad_value, "zstd frame header is damaged", at);
    if (n == ZSTD_CONTENTSIZE_UNKNOWN) all_sized = false;
    else declared += n;
    if (declared > bound)
      core::fail(code::bad_count, "zstd content size " + std::to_string(declared) + " is over the limit of " +
                                      std::to_string(bound) + " bytes for " + std::to_string(data.size()) + " input bytes", at);
    at += frame;
  }
  const std::uint32_t dict_id = ZSTD_getDictID_fromFrame(data.data(), data.size());
  const std::vector<std::uint8_t>* dict = nullptr;
  if (dict_id) {
    dict = find_dictionary(dict_id);
    if (!dict)
      core::fail(code::unsupported_feature,
                 "this zstd stream was made with dictionary " + std::to_string(dict_id) +
                     ", which is not loaded: pass --zstd-dict with the game's dictionaries (Tears of the "
                     "Kingdom: romfs/Pack/ZsDic.pack.zs)", 0);
  }
  std::unique_ptr<ZSTD_DCtx, dctx_free> ctx(ZSTD_createDCtx());
  if (!ctx) core::fail(code::internal, "zstd: out of memory", 0);
  if (dict) ZSTD_DCtx_loadDictionary(ctx.get(), dict->data(), dict->size());
  ZSTD_DCtx_setParameter(ctx.get(), ZSTD_d_windowLogMax, 27);  // at most a 128 MiB window
  std::vector<std::uint8_t> out(all_sized ? declared : std::min<std::uint64_t>(bound, 4 * data.size() + 4096));
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  std::size_t produced = 0;
  for (;;) {
    if (produced == out.size()) {
      if (out.size() >= bound)
        core::fail(code::limit_exceeded, "zstd output exceeds " + std::to_string(bound) + " bytes", in.pos);
      out.resize(std::min<std::uint64_t>(bound, out.size() * 2 + 4096));
    }
    ZSTD_outBuffer o{out.data(), out.size(), produced};
    const std::size_t r = ZSTD_decompressStream(ctx.get(), &o, &in);
    produced = o.pos;
    if (ZSTD_isError(r)) core::fail(code::bad_value, std::string("zstd: ") + ZSTD_getErrorName(r), in.pos);
    if (in.pos == in.size && r == 0) break;
    if (in.pos == in.size && o.pos < o.size) core::fail(code::truncated, "zstd stream ends inside a frame", in.pos);
  }
  if (all_sized && produced != declared)
    core::fail(code::bad_value, "zstd frames declare " + std::to_string(declared) + " bytes but hold " +
                                    std::to_string(produced), 0);
  out.resize(produced);
  return out;
}

std::vector<std::uint8_t> zstd_compress(std::span<const std::uint8_t> data, std::uint32_t dictionary_id, int level) {
  std::unique_ptr<ZSTD_CCtx, cctx_free> ctx(ZSTD_createCCtx());
  if (!ctx) core::fail(code::internal, "zstd: out of memory", 0);
  ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(ctx.get(), ZSTD_c_contentSizeFlag, 1);
  if (dictionary_id) {
    const auto* dict = find_dictionary(dictionary_id);
    if (!dict)
      core::fail(code::unsupported_feature, "zstd dictionary " + std::to_string(dictionary_id) + " is not loaded", 0);
    ZSTD_CCtx_loadDictionary(ctx.get(), dict->data(), dict->size());
  }
  std::vector<std::uint8_t> out(ZSTD_compressBound(data.size()));
  const std::size_t n = ZSTD_compress2(ctx.get(), out.data(), out.size(), data.data(), data.size());
  if (ZSTD_isError(n)) core::fail(code::internal, std::string("zstd: ") + ZSTD_getErrorName(n), 0);
  out.resize(n);
  return out;
}

std::vector<std::uint32_t> add_zstd_dictionaries(std::span<const std::uint8_t> file) {
  std::vector<std::uint32_t> ids;
  auto add = [&](std::span<const std::uint8_t> d) {
    const unsigned id = ZSTD_getDictID_fromDict(d.data(), d.size());
    if (!id) return;
    std::lock_guard lock(g_mutex);
    // First registration wins: a decompression in another thread may hold the stored one.
    dictionaries().try_emplace(id, d.begin(), d.end());
    ids.push_back(id);
  };
  auto is_dict = [](std::span<const std::uint8_t> d) {
    return d.size() >= 8 && (std::uint32_t(d[0]) | std::uint32_t(d[1]) << 8 | std::uint32_t(d[2]) << 16 |
                             std::uint32_t(d[3]) << 24) == kDictMagic;
  };
  if (is_dict(file)) {
    add(file);
  } else {
    std::vector<std::uint8_t> plain;
    if (is_zstd(file)) plain = zstd_decompress(file);
    else plain.assign(file.begin(), file.end());
    if (plain.size() >= 4 && plain[0] == 'S' && plain[1] == 'A' && plain[2] == 'R' && plain[3] == 'C') {
      const auto a = sarc::parse(plain);
      for (std::size_t i = 0; i < a.entries.size(); ++i)
        if (is_dict(a.data(i))) add(a.data(i));
    } else if (is_dict(plain)) {
      add(plain);
    }
  }
  if (ids.empty())
    core::fail(code::bad_magic, "no zstd dictionary here (expected a dictionary, magic 37 A4 30 EC, or a SARC "
                                "of them such as ZsDic.pack.zs)", 0);
  return ids;
}

}  // namespace rigrip::containers

// ---- registration (src/containers/containers.inc) -----------------------------------
namespace rigrip::containers {
namespace {
int detect_zstd(byte_view d, std::string_view) { return is_zstd(d) ? score::magic : score::none; }
std::vector<container_entry> unpack_zstd(byte_view d) { return {{std::string(), zstd_decompress(d)}}; }
bytes repack_zstd(byte_view original, const std::vector<container_entry>& entries) {
  if (entries.size() != 1) core::fail(code::bad_count, "a zstd stream holds exactly one file");
  // Same dictionary as the original, so the game can open it.
  return zstd_compress(entries[0].data, zstd_dictionary_id(original));
}
nlohmann::json dump_zstd(byte_view d) {
  if (!is_zstd(d)) core::fail(code::bad_magic, "expected the zstd magic 28 B5 2F FD", 0);
  const unsigned long long n = ZSTD_getFrameContentSize(d.data(), d.size());
  nlohmann::json j{{"magic", "zstd"}, {"dictionary_id", zstd_dictionary_id(d)}};
  j["content_size"] = (n == ZSTD_CONTENTSIZE_UNKNOWN || n == ZSTD_CONTENTSIZE_ERROR) ? nlohmann::json(nullptr)
                                                                                     : nlohmann::json(n);
  return j;
}
}  // namespace
}  // namespace rigrip::containers

rigrip::container rigrip_container_zstd() {
  using namespace rigrip;
  return container{"zstd", "Zstandard compression (.zs; dictionaries from --zstd-dict): one stream, opened before detection",
                   {".zs"}, "content: zstd frame magic 28 B5 2F FD",
                   /*archive=*/false, "the zstd-decompressed data", containers::detect_zstd,
                   containers::unpack_zstd, containers::repack_zstd, containers::dump_zstd};
}
