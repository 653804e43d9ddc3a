// The local web server of `rigrip view`, built as a module that the CLI loads with dlopen only
// when `view` serves. Linking cpp-httplib into the executable loaded OpenSSL, zlib and brotli
// and ran OpenSSL's initialisation in every rigrip process (about a third of the start-up of a
// one-file `convert`); a plain C interface keeps the module independent of the CLI's C++ types.
#pragma once

#include <cstddef>

extern "C" {

// Raised when the fields below change, so that a stale module is refused instead of misread.
inline constexpr int rigrip_view_server_abi = 1;

struct rigrip_view_glb {
  const unsigned char* data;
  std::size_t size;
};

struct rigrip_view_request {
  int abi;                      // rigrip_view_server_abi
  const char* assets_dir;       // the page's files (index.html, three/...)
  const char* models_json;      // served as /models.json
  const rigrip_view_glb* glbs;  // served as /models/<i>.glb
  std::size_t glb_count;
  int port;  // 0: a free port
};

// Serves until SIGINT/SIGTERM. Returns the process exit code; messages go to stdout/stderr.
int rigrip_view_serve(const rigrip_view_request* request);

using rigrip_view_serve_fn = int (*)(const rigrip_view_request*);
}
