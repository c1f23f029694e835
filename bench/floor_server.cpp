// The benchmark floor: bare cpp-httplib, tuned as transitd tunes it
// (TCP_NODELAY, a sized thread pool, long keep-alive, a deep backlog),
// answering every POST /mcp with a fixed body, with nothing behind it.
// Whatever transitd adds on top is measured against this.
//
//   transitd-floor --body-file FILE [--port N] [--threads N]
// Prints the port on the first line of stdout.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <httplib.h>
#include <sys/socket.h>

int main(int argc, char** argv) {
  std::string body_file;
  int port = 0;
  std::size_t threads = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--body-file")
      body_file = argv[i + 1];
    else if (flag == "--port")
      port = std::stoi(argv[i + 1]);
    else if (flag == "--threads")
      threads = static_cast<std::size_t>(std::stoul(argv[i + 1]));
    else {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
  }
  std::ifstream in{body_file, std::ios::binary};
  if (!in) {
    std::cerr << "usage: transitd-floor --body-file FILE [--port N]\n";
    return 2;
  }
  std::ostringstream text;
  text << in.rdbuf();
  const std::string body = text.str();

  httplib::Server server;
  server.set_tcp_nodelay(true);
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_keep_alive_max_count(10000);
  server.set_keep_alive_timeout(30);
  int listen_fd = -1;
  server.set_socket_options([&listen_fd](socket_t fd) {
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd = fd;
  });
  server.Post("/mcp", [&body](const httplib::Request&, httplib::Response& res) {
    res.set_content(body, "application/json");
  });
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{\"status\":\"ok\"}", "application/json");
  });
  port = port == 0 ? server.bind_to_any_port("127.0.0.1")
                   : (server.bind_to_port("127.0.0.1", port) ? port : -1);
  if (port < 0) {
    std::cerr << "cannot listen on 127.0.0.1\n";
    return 1;
  }
  // httplib listens with a backlog of 5.
  ::listen(listen_fd, 1024);
  std::cout << port << std::endl;
  server.listen_after_bind();
  return 0;
}
