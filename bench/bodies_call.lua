-- wrk script: POST the JSON-RPC bodies of a file (one per line) to /mcp in
-- turn, in an MCP session.
--   wrk -t1 -c8 -d10s --latency -s bench/bodies_call.lua URL -- SESSION FILE

local bodies = {}
local next_body = 0

function init(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = "2025-11-25"
  wrk.headers["Mcp-Session-Id"] = args[1]
  for line in io.lines(args[2]) do
    bodies[#bodies + 1] = line
  end
  -- Each thread starts elsewhere in the list.
  next_body = math.random(#bodies) - 1
end

function request()
  next_body = next_body % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[next_body])
end

function done(summary, latency, requests)
  io.write(string.format(
    "RESULT rps=%.1f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f requests=%d " ..
    "non2xx=%d errors=%d\n",
    summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write +
    summary.errors.timeout))
end
