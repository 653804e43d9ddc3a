// `rigrip view`'s server (see view_server.hpp for why it is a separate module).
#include "view_server.hpp"

#include <httplib.h>
#include <pthread.h>
#include <sys/socket.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

extern "C" __attribute__((visibility("default"))) int rigrip_view_serve(const rigrip_view_request* rq) {
  if (rq == nullptr || rq->abi != rigrip_view_server_abi) {
    std::cerr << "error: E_IO: the viewer's server module does not match this rigrip (rebuild both)\n";
    return 1;
  }
  httplib::Server svr;
  // httplib's default sets SO_REUSEPORT, which lets a second viewer share a port in use.
  svr.set_socket_options([](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<const void*>(&yes), sizeof yes);
  });
  const std::string list = rq->models_json;
  svr.Get("/models.json", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(list, "application/json");
  });
  svr.Get(R"(/models/(\d+)\.glb)", [&](const httplib::Request& req, httplib::Response& res) {
    const auto i = std::strtoul(req.matches[1].str().c_str(), nullptr, 10);
    if (i >= rq->glb_count) {
      res.status = 404;
      return;
    }
    const auto& g = rq->glbs[i];
    res.set_content(reinterpret_cast<const char*>(g.data), g.size, "model/gltf-binary");
  });
  svr.set_file_extension_and_mimetype_mapping("js", "text/javascript");
  if (!svr.set_mount_point("/", rq->assets_dir)) {
    std::cerr << "error: E_IO: cannot serve " << rq->assets_dir << "\n";
    return 1;
  }
  const int port = rq->port;
  int bound = port;
  if (port == 0) {
    bound = svr.bind_to_any_port("127.0.0.1");
  } else if (!svr.bind_to_port("127.0.0.1", port)) {
    bound = -1;
  }
  if (bound <= 0) {
    std::cerr << "error: E_IO: cannot listen on 127.0.0.1:" << port
              << (port ? " (in use? --port 0 picks a free port)" : "") << "\n";
    return 1;
  }
  // Ctrl-C / SIGTERM stop the server from a thread that waits for them (no work in a handler).
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&set, &sig);
    svr.stop();
  });
  waiter.detach();
  std::cout << "serving " << rq->glb_count << " file(s) at http://127.0.0.1:" << bound << "/ (Ctrl-C stops)"
            << std::endl;
  svr.listen_after_bind();
  std::cout << "viewer stopped\n";
  return 0;
}
