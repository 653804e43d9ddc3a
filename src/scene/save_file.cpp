// File output that never leaves a partial file: bytes go to a short temporary in the
// output's folder (".rr-<pid>-XXXXXX.tmp", whatever the output's name, so a legal output
// name never becomes too long) and are renamed into place. A signal handler removes the
// temporaries in flight; a later run removes those of killed runs in the folders it writes.
// An output that is not a regular file (a device, a FIFO, /dev/stdout, "-") is written
// through, never replaced; a symlink keeps pointing where it did.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "rigrip/registry.hpp"

namespace rigrip {
namespace {
namespace fs = std::filesystem;

// Temporaries in flight, readable from a signal handler: fixed slots, no allocation.
constexpr int slots = 64;
constexpr std::size_t slot_size = 4096;
char g_paths[slots][slot_size];
std::atomic<bool> g_used[slots];

int register_temp(const std::string& p) {
  if (p.size() >= slot_size) return -1;
  for (int i = 0; i < slots; ++i) {
    bool expected = false;
    if (g_used[i].compare_exchange_strong(expected, true)) {
      std::memcpy(g_paths[i], p.c_str(), p.size() + 1);
      std::atomic_signal_fence(std::memory_order_seq_cst);
      return i;
    }
  }
  return -1;  // more than 64 writes at once: still removed on every error path
}
void unregister_temp(int slot) {
  if (slot >= 0) g_used[slot].store(false);
}

extern "C" void on_fatal_signal(int sig) {
  for (int i = 0; i < slots; ++i)
    if (g_used[i].load()) ::unlink(g_paths[i]);  // async-signal-safe
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

bool write_all(int fd, byte_view data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool write_all(int fd, std::span<const byte_view> parts) {
  for (const byte_view part : parts)
    if (!write_all(fd, part)) return false;
  return true;
}

std::string why(int err) { return std::strerror(err); }

// Our temporaries: ".rr-<pid>-XXXXXX.tmp"; stale when that process is gone.
bool stale_temp(const std::string& name) {
  if (name.rfind(".rr-", 0) != 0 || name.size() < 16 || name.compare(name.size() - 4, 4, ".tmp") != 0) return false;
  const std::size_t dash = name.find('-', 4);
  if (dash == std::string::npos) return false;
  long pid = 0;
  for (std::size_t i = 4; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9' || pid > 100000000) return false;
    pid = pid * 10 + (name[i] - '0');
  }
  if (pid == static_cast<long>(::getpid())) return false;
  return pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
}
// The naming of earlier versions ("<output>.rigrip-tmp-<n>"): removed when over an hour old.
bool old_style_temp(const fs::directory_entry& e) {
  const std::string name = e.path().filename().string();
  if (name.find(".rigrip-tmp-") == std::string::npos) return false;
  std::error_code ec;
  auto t = fs::last_write_time(e.path(), ec);
  return !ec && fs::file_time_type::clock::now() - t > std::chrono::hours(1);
}

// Once per folder and process: remove temporaries that killed runs left behind.
void sweep_once(const fs::path& dir) {
  static std::mutex m;
  static std::set<std::string> done;
  {
    std::lock_guard<std::mutex> lock(m);
    if (!done.insert(dir.string()).second) return;
  }
  remove_stale_temporaries(dir.string());
}

result<void> write_through(const std::string& path, std::span<const byte_view> data, const char* what) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return error{code::io_error, std::string("cannot open ") + what + " for writing: " + why(errno), path, no_offset, {}};
  const bool ok = write_all(fd, data);
  const int err = errno;
  ::close(fd);
  if (!ok) return error{code::io_error, std::string("write to ") + what + " failed: " + why(err), path, no_offset, {}};
  return {};
}
}  // namespace

std::size_t remove_stale_temporaries(const std::string& folder) {
  std::error_code ec;
  std::size_t removed = 0;
  for (fs::directory_iterator it(folder.empty() ? "." : folder, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (!it->is_regular_file(ec2)) continue;
    const std::string name = it->path().filename().string();
    if (stale_temp(name) || old_style_temp(*it))
      if (fs::remove(it->path(), ec2)) ++removed;
  }
  return removed;
}

void remove_temporaries_on_signals() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
      struct sigaction sa {};
      sa.sa_handler = on_fatal_signal;
      sigemptyset(&sa.sa_mask);
      struct sigaction old {};
      // A signal the caller chose to ignore stays ignored.
      if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
      ::sigaction(sig, &sa, nullptr);
    }
  });
}

result<void> save_file(const std::string& path, byte_view data) { return save_file_parts(path, {&data, 1}); }

result<void> save_file_parts(const std::string& path, std::span<const byte_view> data) {
  if (path == "-") {
    if (!write_all(STDOUT_FILENO, data)) return error{code::io_error, "write to standard output failed: " + why(errno), "-", no_offset, {}};
    return {};
  }
  fs::path p(path);
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return error{code::io_error, "the output is a directory", path, no_offset, {}};
    if (S_ISLNK(st.st_mode)) {
      // Write what the link points to, keep the link: a regular target is replaced
      // atomically in its own folder, anything else is written through.
      std::error_code ec;
      fs::path target = fs::canonical(p, ec);
      struct stat ts {};
      if (ec || ::stat(target.c_str(), &ts) != 0) return write_through(path, data, "the symlink's target");
      if (S_ISREG(ts.st_mode)) return save_file_parts(target.string(), data);
      if (S_ISDIR(ts.st_mode)) return error{code::io_error, "the output is a directory", path, no_offset, {}};
      return write_through(path, data, "the output");
    }
    if (!S_ISREG(st.st_mode)) return write_through(path, data, "the output");  // device, FIFO, socket
  }
  std::error_code ec;
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  if (p.has_parent_path() && !fs::create_directories(dir, ec) && ec)
    return error{code::io_error, "cannot create output folder " + dir.string() + ": " + ec.message(), path,
                 no_offset, {}};
  sweep_once(dir);
  std::string tmpl = (dir / (".rr-" + std::to_string(::getpid()) + "-XXXXXX.tmp")).string();
  int fd = ::mkstemps(tmpl.data(), 4);
  if (fd < 0) return error{code::io_error, "cannot create output file: " + why(errno), path, no_offset, {}};
  const int slot = register_temp(tmpl);
  auto cleanup = [&] {
    ::unlink(tmpl.c_str());
    unregister_temp(slot);
  };
  bool ok = write_all(fd, data);
  int err = errno;
  // The file gets the permissions a plain create would give (mkstemp makes it 0600).
  static const mode_t mask = [] {  // read once: umask() has no read-only form
    const mode_t m = ::umask(0);
    ::umask(m);
    return m;
  }();
  if (ok) ::fchmod(fd, 0666 & ~mask);
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    cleanup();
    return error{code::io_error, "write failed: " + why(err), path, no_offset, {}};
  }
  if (::rename(tmpl.c_str(), path.c_str()) != 0) {
    err = errno;
    cleanup();
    return error{code::io_error, "cannot move output into place: " + why(err), path, no_offset, {}};
  }
  unregister_temp(slot);
  return {};
}

}  // namespace rigrip
