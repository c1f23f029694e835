// Interoperability: the official MCP TypeScript SDK client (nobody here
// wrote it) against transitd. Connects, lists tools, calls get_departures
// with valid and invalid arguments, and ends the session.
//
//   node client.mjs http://127.0.0.1:PORT/mcp [/path/to/transitd (stdio)]

import assert from "node:assert/strict";
import { check, finish } from "./check.mjs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = new URL(process.argv[2]);

const transport = new StreamableHTTPClientTransport(url);
const client = new Client({ name: "transitd-interop", version: "1.0.0" });

await check("connect (initialize + initialized)", async () => {
  await client.connect(transport);
  assert.ok(transport.sessionId, "the server assigned a session id");
  assert.equal(client.getServerVersion()?.name, "transitd");
  assert.ok(client.getServerCapabilities()?.tools);
});

await check("tools/list has get_departures with both schemas", async () => {
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === "get_departures");
  assert.ok(tool, "get_departures is listed");
  assert.equal(tool.inputSchema.type, "object");
  assert.equal(tool.outputSchema.type, "object");
  assert.equal(tool.annotations?.readOnlyHint, true);
});

await check("get_departures answers (structuredContent validated by the SDK)", async () => {
  const result = await client.callTool({
    name: "get_departures",
    arguments: { stop: { type: "id", value: "HSL:1040129" }, limit: 3 },
  });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  const board = result.structuredContent;
  assert.equal(board.stopId, "HSL:1040129");
  assert.ok(board.departures.length >= 1 && board.departures.length <= 3);
  assert.match(board.correlationId, /^[0-9a-f-]{36}$/);
  assert.deepEqual(JSON.parse(result.content[0].text), board);
});

await check("get_departures with a progress token (SSE reply)", async () => {
  let progress = 0;
  const result = await client.callTool(
    { name: "get_departures", arguments: { stop: { type: "id", value: "HSL:1" } } },
    undefined,
    { onprogress: () => progress++ },
  );
  assert.notEqual(result.isError, true);
  assert.ok(progress >= 1, "progress notifications arrived");
});

await check("invalid arguments are a tool error, not a protocol error", async () => {
  const result = await client.callTool({
    name: "get_departures",
    arguments: { stop: { type: "id", value: "HSL:1" }, limit: 500 },
  });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent, undefined);
  const error = JSON.parse(result.content[0].text).error;
  assert.equal(error.code, "validation-error");
  assert.match(error.message, /limit/);
});

await check("an unknown tool is a JSON-RPC error", async () => {
  await assert.rejects(
    client.callTool({ name: "no_such_tool", arguments: {} }),
    (err) => err.code === -32602,
  );
});

// Every tool once: the SDK validates structuredContent against each
// outputSchema, so this proves the schemas match what the tools return.
const here = { type: "coords", value: { lat: 60.1699, lon: 24.9384 } };
const there = { type: "coords", value: { lat: 60.2055, lon: 24.6559 } };
for (const [name, args] of [
  ["find_stops", { coordinate: { lat: 60.1699, lon: 24.9384 }, radius: 3000, maxResults: 50 }],
  ["geocode_address", { text: "kamppi", size: 3, focus: { lat: 60.17, lon: 24.93 } }],
  ["plan_trip", { origin: here, destination: there, limit: 3 }],
  ["save_user_variable", { key: "home", type: "location", value: { lat: 60.2, lon: 24.66, name: "Home" } }],
  ["save_user_variable", { key: "work", type: "stop", value: { stopId: "HSL:1040129" } }],
  ["get_user_variables", {}],
  ["get_departures", { stop: { type: "label", value: "work" } }],
  ["plan_trip", { origin: here, destination: { type: "label", value: "home" } }],
  ["delete_user_variable", { key: "home" }],
  ["stationToilets", { stationName: "Abbey Wood" }],
  ["planJourney", { from: "Bank", to: "Mile End" }],
]) {
  await check(`${name} validates against its outputSchema`, async () => {
    const result = await client.callTool({ name, arguments: args });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.ok(result.structuredContent);
    assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
  });
}

await check("tools/list has every tool", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, ["delete_user_variable", "find_stops", "geocode_address",
    "get_departures", "get_route", "get_trip", "get_user_variables", "line_status", "planJourney", "plan_trip",
    "save_user_variable", "service_alerts", "stationToilets", "transit_coverage"]);
});

await check("stationToilets disambiguation is a tool error with the envelope", async () => {
  const result = await client.callTool({ name: "stationToilets", arguments: { stationName: "Abbey" } });
  assert.equal(result.isError, true);
  const envelope = JSON.parse(result.content[0].text);
  assert.equal(envelope.success, false);
  assert.equal(envelope.code, "DISAMBIGUATION_REQUIRED");
  assert.ok(envelope.stationDisambiguation.length >= 2);
});

await check("ping", async () => {
  await client.ping();
});

await check("terminate the session", async () => {
  await transport.terminateSession();
  assert.equal(transport.sessionId, undefined);
  await client.close();
});

// stdio: the SDK launches transitd itself (one JSON-RPC message per line).
const daemon = process.argv[3];
if (daemon) {
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const stdio = new Client({ name: "transitd-interop-stdio", version: "1.0.0" });
  await check("stdio: connect, list and call", async () => {
    await stdio.connect(new StdioClientTransport({
      command: daemon, args: ["--stdio", "--demo", "--data-dir", ":memory:"], stderr: "ignore" }));
    const { tools } = await stdio.listTools();
    assert.equal(tools.length, 14);
    const result = await stdio.callTool({ name: "save_user_variable",
      arguments: { key: "work", type: "stop", value: { stopId: "HSL:1040129" } } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    const board = await stdio.callTool({ name: "get_departures",
      arguments: { stop: { type: "label", value: "work" }, limit: 1 } });
    assert.equal(board.structuredContent.stopId, "HSL:1040129");
    await stdio.close();
  });
}

finish();
