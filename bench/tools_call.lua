-- wrk script: POST one tools/call to /mcp, in an MCP session or stateless.
--   wrk -t2 -c32 -d10s --latency -s bench/tools_call.lua URL -- SESSION BODYFILE
-- SESSION is the Mcp-Session-Id ("-" for none); BODYFILE holds the JSON-RPC
-- request (default: get_departures at HSL:1040129).

function init(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
  if args[1] and args[1] ~= "-" then
    wrk.headers["Mcp-Session-Id"] = args[1]
  end
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":' ..
    '{"name":"get_departures","arguments":{"stop":{"type":"id","value":' ..
    '"HSL:1040129"},"limit":5}}}'
  if args[2] then
    local f = assert(io.open(args[2], "rb"))
    wrk.body = f:read("*a")
    f:close()
  end
end

function done(summary, latency, requests)
  io.write(string.format(
    "RESULT rps=%.0f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f requests=%d " ..
    "non2xx=%d errors=%d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.timeout))
end
