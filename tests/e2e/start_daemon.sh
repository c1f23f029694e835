# Sourced by the e2e scripts: start_daemon BINARY [ARGS...] starts transitd
# in demo mode on a free loopback port, sets `port`, and stops it when the
# script exits.
start_daemon() {
  local binary=$1
  shift
  daemon_log=$(mktemp)
  "$binary" --demo --port 0 --data-dir :memory: "$@" >"$daemon_log" 2>&1 &
  daemon_pid=$!
  trap 'kill $daemon_pid 2>/dev/null || true; wait $daemon_pid 2>/dev/null || true; rm -f "$daemon_log"' EXIT
  port=""
  for _ in $(seq 1 100); do
    port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*|\1|p' "$daemon_log")
    [ -n "$port" ] && return 0
    kill -0 $daemon_pid 2>/dev/null || { cat "$daemon_log"; echo "transitd exited early"; exit 1; }
    sleep 0.1
  done
  cat "$daemon_log"
  echo "transitd did not start"
  exit 1
}
