#!/usr/bin/env bash
# Stops the Docker engine that .ci/docker-up.sh started, by the PID it recorded. An engine
# started some other way is left alone. Images stay in the engine's data root for next time.
set -euo pipefail

STATE_DIR="${COLDSTART_DOCKER_STATE:-/tmp/coldstart-docker}"
PID_FILE="$STATE_DIR/dockerd.pid"
STOP_TIMEOUT_S=30

say() { echo "docker-down: $*" >&2; }

if [ ! -s "$PID_FILE" ]; then
  say "no engine started by docker-up.sh ($PID_FILE is missing)"
  exit 0
fi
pid=$(cat "$PID_FILE")
# The PID may have been reused since: only signal it if it is still a dockerd.
if [ ! -r "/proc/$pid/comm" ] || [ "$(cat "/proc/$pid/comm")" != dockerd ]; then
  say "dockerd (pid $pid) is not running"
  rm -f "$PID_FILE"
  exit 0
fi

# SIGTERM: dockerd stops its containers and the containerd it started, then exits.
kill -TERM "$pid"
for _ in $(seq $((STOP_TIMEOUT_S * 5))); do
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.2
done
if kill -0 "$pid" 2>/dev/null; then
  say "dockerd (pid $pid) still running after ${STOP_TIMEOUT_S}s: killing it"
  kill -KILL "$pid" 2>/dev/null || true
fi
rm -f "$PID_FILE"
say "stopped dockerd (pid $pid)"
