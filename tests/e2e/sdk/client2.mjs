// Interoperability: the official MCP TypeScript client 2.x
// (@modelcontextprotocol/client; nobody here wrote it) against transitd,
// over HTTP and over stdio, negotiating the stateless 2026-07-28 revision
// (pinned, and by its own probe), and the session revision by default.
//
//   node client2.mjs http://127.0.0.1:PORT/mcp /path/to/transitd

import assert from "node:assert/strict";
import { check, finish } from "./check.mjs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const url = new URL(process.argv[2]);
const daemon = process.argv[3];

async function exercise(label, client, expectedVersion) {
  await check(`${label}: negotiated ${expectedVersion}`, async () => {
    assert.equal(client.getNegotiatedProtocolVersion(), expectedVersion);
    assert.equal(client.getServerVersion()?.name, "transitd");
    assert.ok(client.getServerCapabilities()?.tools);
  });
  await check(`${label}: tools/list (strict schemas, cache hints)`, async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name).sort();
    assert.deepEqual(names, ["delete_user_variable", "find_stops", "geocode_address",
      "get_departures", "get_route", "get_trip", "get_user_variables", "line_status", "planJourney", "plan_trip",
      "save_user_variable", "service_alerts", "stationToilets", "transit_coverage"]);
  });
  await check(`${label}: get_departures with progress`, async () => {
    // Counted as the transport hands them over too: this SDK runs a
    // notification's handler a microtask later but a response's at once,
    // and the response forgets the call's progress handler, so progress
    // that arrives in the same read as the result (stdio, a fast upstream)
    // never reaches onprogress. The server sent it first all the same.
    const transport = client.transport;
    const deliver = transport.onmessage;
    let sent = 0;
    transport.onmessage = (message, extra) => {
      if (message.method === "notifications/progress") sent++;
      deliver(message, extra);
    };
    let progress = 0;
    let result;
    try {
      result = await client.callTool(
        { name: "get_departures", arguments: { stop: { type: "id", value: "HSL:1040129" }, limit: 2 } },
        { onprogress: () => progress++ },
      );
    } finally {
      transport.onmessage = deliver;
    }
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.equal(result.structuredContent.stopId, "HSL:1040129");
    assert.ok(result.structuredContent.departures.length <= 2);
    assert.ok(sent >= 1, "progress notifications arrived before the result");
    assert.ok(progress <= sent);
  });
  await check(`${label}: variables belong to the one local user`, async () => {
    const key = `home-${label.replace(/\W/g, "")}`;
    const saved = await client.callTool({ name: "save_user_variable",
      arguments: { key, type: "stop", value: { stopId: "HSL:1040129" } } });
    assert.notEqual(saved.isError, true, JSON.stringify(saved));
    const listed = await client.callTool({ name: "get_user_variables", arguments: { key } });
    assert.equal(listed.structuredContent.variables.length, 1);
    const board = await client.callTool({ name: "get_departures",
      arguments: { stop: { type: "label", value: key }, limit: 1 } });
    assert.notEqual(board.isError, true, JSON.stringify(board));
  });
  await check(`${label}: invalid arguments are a tool error`, async () => {
    const result = await client.callTool({ name: "get_departures",
      arguments: { stop: { type: "id", value: "HSL:1" }, limit: 500 } });
    assert.equal(result.isError, true);
    assert.equal(JSON.parse(result.content[0].text).error.code, "validation-error");
  });
  await check(`${label}: plan_trip validates against its outputSchema`, async () => {
    const result = await client.callTool({ name: "plan_trip", arguments: {
      origin: { type: "coords", value: { lat: 60.1699, lon: 24.9384 } },
      destination: { type: "coords", value: { lat: 60.2055, lon: 24.6559 } }, limit: 2 } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.ok(result.structuredContent.itineraries.length >= 1);
  });
  await check(`${label}: stationToilets (Mcp-Param-Station under 2026-07-28)`, async () => {
    const result = await client.callTool({ name: "stationToilets", arguments: { stationName: "Abbey Wood" } });
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.equal(result.structuredContent.stationName, "Abbey Wood");
  });
  await check(`${label}: an unknown tool is refused`, async () => {
    await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }));
  });
  await client.close();
}

const info = { name: "transitd-interop-2x", version: "1.0.0" };

// HTTP, pinned to 2026-07-28: no initialize, no session.
{
  const client = new Client(info, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  await check("http pinned: no session id", async () => {
    assert.equal(transport.sessionId, undefined);
  });
  await exercise("http pinned", client, "2026-07-28");
}
// HTTP, auto: the client's server/discover probe finds 2026-07-28.
{
  const client = new Client(info, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(url));
  await exercise("http auto", client, "2026-07-28");
}
// HTTP, the 2.x default: the session revision, on the same endpoint.
{
  const client = new Client(info);
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  await check("http legacy: a session", async () => assert.ok(transport.sessionId));
  await exercise("http legacy", client, "2025-11-25");
}
// stdio: the client launches transitd itself.
for (const [label, options] of [["stdio pinned", { versionNegotiation: { mode: { pin: "2026-07-28" } } }],
                                ["stdio legacy", {}]]) {
  const client = new Client(info, options);
  await client.connect(new StdioClientTransport({
    command: daemon, args: ["--stdio", "--demo", "--data-dir", ":memory:"], stderr: "ignore" }));
  await exercise(label, client, label.endsWith("pinned") ? "2026-07-28" : "2025-11-25");
}

finish();
