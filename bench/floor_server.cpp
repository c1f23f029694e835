// The benchmark floor: transitd's own HTTP listener (cpp-httplib with the
// same tuning) answering every POST /mcp with a fixed body, with nothing
// behind it. Whatever transitd adds on top is measured against this.
//
//   transitd-floor --body-file FILE [--port N] [--threads N]
// Prints the port on the first line of stdout.

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "transport/http_server.hpp"

int main(int argc, char** argv) {
  std::string body_file;
  transitd::http_server_options options;
  options.port = 0;
  options.threads = 300;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--body-file")
      body_file = argv[i + 1];
    else if (flag == "--port")
      options.port = std::stoi(argv[i + 1]);
    else if (flag == "--threads")
      options.threads = static_cast<std::size_t>(std::stoul(argv[i + 1]));
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
  transitd::mcp::http_reply fixed;
  fixed.content_type = "application/json";
  fixed.body = text.str();
  transitd::http_server server{
    options, [fixed](const transitd::mcp::http_request&) { return fixed; }};
  std::cout << server.bind() << std::endl;
  server.run();
  return 0;
}
