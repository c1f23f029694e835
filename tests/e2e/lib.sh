# Shell helpers of the end-to-end scripts (sourced).

# The port a process printed to its log (`pattern` right before the
# digits), waiting up to 10 s for the line.
log_port() { # log-file pattern
  for _ in $(seq 1 200); do
    local port
    port=$(sed -n "s|.*$2\([0-9][0-9]*\).*|\1|p" "$1" | head -1)
    if [ -n "$port" ]; then echo "$port"; return 0; fi
    sleep 0.05
  done
  cat "$1" >&2
  return 1
}
