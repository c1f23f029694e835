// A bare Node `http` server (one event loop, no MCP) answering every POST
// with the bytes in --body-file: the reference row the anchors' figures
// carry beside the httplib floor, run here in the same harness so the two
// can be compared on this machine.
//
//   node bench/node_floor.mjs --body-file FILE --port N
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : undefined;
};
const bodyFile = flag('--body-file');
const port = Number(flag('--port') ?? '0');
if (!bodyFile || !Number.isInteger(port)) {
  console.error('usage: node node_floor.mjs --body-file FILE --port N');
  process.exit(2);
}
const body = readFileSync(bodyFile);
const server = createServer((req, res) => {
  req.resume(); // read and drop the request body
  req.on('end', () => {
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': body.length,
    });
    res.end(body);
  });
});
server.keepAliveTimeout = 30000;
server.listen(port, '127.0.0.1', () => console.log(server.address().port));
