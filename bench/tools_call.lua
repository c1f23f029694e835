-- wrk script: POST tools/call get_departures to /mcp in one MCP session.
--   wrk -t2 -c32 -d10s --latency -s bench/tools_call.lua URL -- SESSION STOP
-- SESSION is the Mcp-Session-Id (from initialize); STOP the stop id.

local session, stop = nil, "HSL:1040129"

function init(args)
  session = args[1]
  if args[2] then stop = args[2] end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
  wrk.headers["Mcp-Session-Id"] = session
  wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":' ..
    '{"name":"get_departures","arguments":{"stop":{"type":"id","value":"' ..
    stop .. '"},"limit":5}}}'
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
