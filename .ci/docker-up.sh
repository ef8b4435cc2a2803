#!/usr/bin/env bash
# Starts a Docker engine for coldstart's container tests and benchmarks, then imports two base
# images made from the host's own Node (no image can be pulled here):
#   coldstart-node:local             node + its libraries + /bin/sh (dash), like node:20-slim
#   coldstart-node-distroless:local  node + its libraries only, entrypoint node, no shell
# Safe to run again: an engine it started earlier is reused, images are re-imported only when
# the host's Node changed; every other image, stopped container and the build cache are removed
# (step 5), so run it before building images, not between. Stop the engine with .ci/docker-down.sh.
#
# The engine never gets a bridge network (it would take an address range that must not be used
# on these machines): bridge none, no iptables, no masquerading, and gVisor (runsc) registered
# with --network=none. Every container and build must use --network none.
#
# Environment:
#   COLDSTART_DOCKER_STATE  directory for the config, log and PID file (default /tmp/coldstart-docker)
set -Eeuo pipefail
trap 'echo "docker-up: error: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

STATE_DIR="${COLDSTART_DOCKER_STATE:-/tmp/coldstart-docker}"
PID_FILE="$STATE_DIR/dockerd.pid"
LOG_FILE="$STATE_DIR/dockerd.log"
CONFIG_FILE="$STATE_DIR/daemon.json"
# /usr/bin/docker comes with the engine; /usr/local/bin/docker (first on PATH) is a newer client.
DOCKER=/usr/bin/docker
DOCKERD=/usr/sbin/dockerd
BASE_IMAGE=coldstart-node:local
DISTROLESS_IMAGE=coldstart-node-distroless:local
START_TIMEOUT_S=60

say() { echo "docker-up: $*" >&2; }
die() { echo "docker-up: error: $*" >&2; exit 1; }
now() { echo "${EPOCHREALTIME/[.,]/}"; }            # microseconds
since() { echo $(( ($(now) - $1) / 1000 ))ms; }

[ "$(id -u)" = 0 ] || die "needs root (apt-get install, dockerd)"
mkdir -p "$STATE_DIR"

# One run at a time: two concurrent runs would start two engines on one socket.
exec 9>"$STATE_DIR/lock"
flock -w 120 9 || die "another docker-up.sh holds $STATE_DIR/lock"

# ---------------------------------------------------------------------------------------------
# 1. Packages
install_packages() {
  local missing=()
  [ -x "$DOCKERD" ] && [ -x "$DOCKER" ] || missing+=(docker.io)
  command -v runsc >/dev/null 2>&1 || missing+=(runsc)
  [ ${#missing[@]} -eq 0 ] && return 0
  # If the package ever started an engine by itself, it would read this file: make sure that
  # engine could not create a bridge either. (Our own engine uses $CONFIG_FILE.)
  if [ ! -e /etc/docker/daemon.json ]; then
    mkdir -p /etc/docker
    write_config /etc/docker/daemon.json /usr/bin/runsc
  fi
  local t0; t0=$(now)
  say "installing ${missing[*]} (apt-get)"
  apt-get update -qq >"$STATE_DIR/apt.log" 2>&1 || { tail -20 "$STATE_DIR/apt.log" >&2; die "apt-get update failed (log: $STATE_DIR/apt.log)"; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    >>"$STATE_DIR/apt.log" 2>&1 || { tail -20 "$STATE_DIR/apt.log" >&2; die "apt-get install ${missing[*]} failed (log: $STATE_DIR/apt.log)"; }
  say "installed ${missing[*]} in $(since "$t0")"
}

# gVisor as Cloud Run runs it today (2024-07, systrap platform and directfs by default), beside
# Debian bookworm's 2022 build (ptrace): Debian's bookworm-backports package, fetched from the
# machine's own mirror without touching its apt sources, unpacked under /opt.
RUNSC_2024=/opt/runsc-2024/usr/bin/runsc
install_runsc_2024() {
  [ -x "$RUNSC_2024" ] && return 0
  local uri a t0; t0=$(now)
  uri=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null)
  [ -n "$uri" ] || uri=http://deb.debian.org/debian
  a=$(mktemp -d); mkdir -p "$a/lists/partial"
  echo "deb $uri bookworm-backports main" >"$a/sources.list"
  local o=(-o "Dir::Etc::SourceList=$a/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$a/lists")
  if apt-get "${o[@]}" update -qq >>"$STATE_DIR/apt.log" 2>&1 \
    && (cd "$a" && apt-get "${o[@]}" download runsc/bookworm-backports >>"$STATE_DIR/apt.log" 2>&1) \
    && dpkg -x "$a"/runsc_*.deb /opt/runsc-2024; then
    say "installed gVisor 2024 ($("$RUNSC_2024" --version | sed -n 1p)) in $(since "$t0")"
  else
    say "warning: could not fetch runsc from bookworm-backports (log: $STATE_DIR/apt.log): no runsc-2024 runtime"
  fi
  rm -rf "$a"
}

# write_config FILE RUNSC_PATH: the daemon config from shared/ENVIRONMENT.md, written atomically;
# runsc-2024 registered beside runsc when it is installed.
write_config() {
  local more=""
  [ -x "$RUNSC_2024" ] && more=",
    \"runsc-2024\": { \"path\": \"$RUNSC_2024\", \"runtimeArgs\": [\"--network=none\"] }"
  cat >"$1.tmp" <<EOF
{
  "bridge": "none",
  "iptables": false,
  "ip-masq": false,
  "runtimes": {
    "runsc": { "path": "$2", "runtimeArgs": ["--network=none"] }$more
  }
}
EOF
  mv -f "$1.tmp" "$1"
}

# ---------------------------------------------------------------------------------------------
# 2. The engine
engine_answers() { timeout 10 "$DOCKER" info --format '{{.ServerVersion}}' >/dev/null 2>&1; }

our_pid() {
  local pid
  [ -s "$PID_FILE" ] || return 1
  pid=$(cat "$PID_FILE")
  [ -r "/proc/$pid/comm" ] && [ "$(cat "/proc/$pid/comm")" = dockerd ] || return 1
  echo "$pid"
}

# An engine we did not start may be used only if it is configured as ours would be.
check_engine_config() {
  local networks runtimes
  networks=$("$DOCKER" network ls --format '{{.Name}}' 2>/dev/null) || die "docker network ls failed"
  if grep -qx bridge <<<"$networks"; then
    die "the running Docker engine has a bridge network; it must be started with \"bridge\": \"none\" (see $CONFIG_FILE). Stop it and run .ci/docker-up.sh again"
  fi
  runtimes=$("$DOCKER" info --format '{{json .Runtimes}}' 2>/dev/null) || die "docker info failed"
  grep -q '"runsc"' <<<"$runtimes" || die "the running Docker engine has no runsc runtime (runtimes: $runtimes)"
}

start_engine() {
  local pid t0 runsc_path
  if pid=$(our_pid) && engine_answers; then
    say "engine already running (pid $pid)"
    check_engine_config
    if [ -x "$RUNSC_2024" ] && ! "$DOCKER" info --format '{{json .Runtimes}}' | grep -q '"runsc-2024"'; then
      write_config "$CONFIG_FILE" "$(command -v runsc)"
      kill -HUP "$pid" # dockerd reloads its runtimes
      sleep 1
      say "registered runsc-2024 with the running engine"
    fi
    return 0
  fi
  if engine_answers; then
    say "using an engine started elsewhere (not stopped by docker-down.sh)"
    check_engine_config
    return 0
  fi
  if pid=$(our_pid); then
    die "dockerd (pid $pid, from $PID_FILE) runs but does not answer; run .ci/docker-down.sh, then this again (log: $LOG_FILE)"
  fi
  runsc_path=$(command -v runsc) || die "runsc not found after install"
  write_config "$CONFIG_FILE" "$runsc_path"
  rm -f "$PID_FILE"
  t0=$(now)
  # setsid: the engine outlives this script and is not hit by a Ctrl-C meant for it.
  # --pidfile: dockerd writes its own PID, whatever setsid had to fork.
  # 9>&-: the engine must not inherit the lock, or it would hold it for its whole life.
  setsid "$DOCKERD" --config-file "$CONFIG_FILE" --pidfile "$PID_FILE" \
    >"$LOG_FILE" 2>&1 </dev/null 9>&- &
  local launcher=$!
  local deadline=$(( $(now) + START_TIMEOUT_S * 1000000 ))
  until engine_answers; do
    if [ "$(now)" -gt "$deadline" ]; then
      tail -30 "$LOG_FILE" >&2 || true
      die "dockerd did not answer within ${START_TIMEOUT_S}s (log: $LOG_FILE)"
    fi
    if ! our_pid >/dev/null && ! kill -0 "$launcher" 2>/dev/null; then
      tail -30 "$LOG_FILE" >&2 || true
      die "dockerd exited during start (log: $LOG_FILE)"
    fi
    sleep 0.2
  done
  say "engine started in $(since "$t0") (pid $(our_pid || echo '?'), log $LOG_FILE)"
  check_engine_config
}

# ---------------------------------------------------------------------------------------------
# 3. Base images from the host's Node
node_bin=""
libraries() {  # the shared libraries and the loader that ldd lists for the given programs
  ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' | sort -u
}

# populate_rootfs DIR NODE_PATH WITH_SHELL
populate_rootfs() {
  local dir=$1 node_path=$2 with_shell=$3 lib programs=("$node_bin")
  [ "$with_shell" = yes ] && programs+=(/bin/dash)
  mkdir -p "$dir$(dirname "$node_path")" "$dir/etc" "$dir/tmp" "$dir/root"
  cp -L "$node_bin" "$dir$node_path"
  for lib in $(libraries "${programs[@]}"); do
    cp -L --parents "$lib" "$dir"
  done
  chmod 1777 "$dir/tmp"
  if [ "$with_shell" = yes ]; then
    mkdir -p "$dir/bin" "$dir/home/node"
    cp -L /bin/dash "$dir/bin/dash"
    ln -s dash "$dir/bin/sh"
    chown 1000:1000 "$dir/home/node"
    printf '%s\n' 'root:x:0:0:root:/root:/bin/sh' 'node:x:1000:1000::/home/node:/bin/sh' \
      'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' >"$dir/etc/passwd"
    printf '%s\n' 'root:x:0:' 'node:x:1000:' 'nogroup:x:65534:' >"$dir/etc/group"
  else
    printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
      'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$dir/etc/passwd"
    printf '%s\n' 'root:x:0:' 'nogroup:x:65534:' 'nonroot:x:65532:' >"$dir/etc/group"
  fi
}

# import_image NAME NODE_PATH WITH_SHELL CHANGE...: skipped when the image exists and was made
# from the same Node binary, so builds FROM it keep their cache.
import_image() {
  local name=$1 node_path=$2 with_shell=$3; shift 3
  local stamp_file="$STATE_DIR/${name//[:\/]/_}.stamp" stamp id rootfs t0
  stamp="$fingerprint $node_path $with_shell $*"
  id=$("$DOCKER" image inspect --format '{{.Id}}' "$name" 2>/dev/null || true)
  if [ -n "$id" ] && [ -s "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp $id" ]; then
    say "$name is up to date ($id)"
    return 0
  fi
  t0=$(now)
  rootfs=$(mktemp -d "$STATE_DIR/rootfs.XXXXXX")
  populate_rootfs "$rootfs" "$node_path" "$with_shell"
  local changes=() c
  for c in "$@"; do changes+=(-c "$c"); done
  # Fixed mtimes and numeric owners: the same host gives the same layer.
  id=$(tar -C "$rootfs" --sort=name --mtime=@0 --numeric-owner -c . | "$DOCKER" import "${changes[@]}" - "$name") \
    || { rm -rf "$rootfs"; die "docker import of $name failed"; }
  rm -rf "$rootfs"
  echo "$stamp $id" >"$stamp_file"
  say "imported $name in $(since "$t0") ($("$DOCKER" image inspect --format '{{.Size}}' "$name" | awk '{printf "%.0f MB", $1/1e6}'))"
}

build_base_images() {
  node_bin=$(readlink -f "$(command -v node)") || die "no node on PATH to build $BASE_IMAGE from"
  local version; version=$("$node_bin" --version)
  fingerprint="$version $(sha256sum "$node_bin" | cut -c1-16)"
  import_image "$BASE_IMAGE" /usr/local/bin/node yes \
    'ENV PATH=/usr/local/bin:/bin' "ENV NODE_VERSION=${version#v}" 'CMD ["node"]'
  # As gcr.io/distroless/nodejs*: node in /nodejs/bin, node is the entrypoint, no shell at all.
  import_image "$DISTROLESS_IMAGE" /nodejs/bin/node no \
    'ENV PATH=/usr/local/bin:/usr/bin:/bin:/nodejs/bin' 'ENTRYPOINT ["/nodejs/bin/node"]'
}

# ---------------------------------------------------------------------------------------------
# 4. BuildKit must resolve FROM a local image without a pull (no registry can be reached). The
# engine's built-in BuildKit does, as long as the Dockerfile has no `# syntax=` line (that line
# makes it pull a frontend image). The probe also runs a RUN step with --network none.
check_buildkit() {
  local ctx t0 out
  ctx=$(mktemp -d "$STATE_DIR/probe.XXXXXX")
  printf '%s\n' 'ARG NODE_IMAGE' 'FROM ${NODE_IMAGE}' \
    'RUN ["node", "-e", "require(\"fs\").writeFileSync(\"/probe\", process.version)"]' >"$ctx/Dockerfile"
  t0=$(now)
  if ! out=$(DOCKER_BUILDKIT=1 "$DOCKER" build --progress plain --network none --no-cache \
        --build-arg NODE_IMAGE="$BASE_IMAGE" -t coldstart-probe:local "$ctx" 2>&1); then
    rm -rf "$ctx"
    echo "$out" | tail -20 >&2
    die "BuildKit could not build FROM $BASE_IMAGE without the network"
  fi
  rm -rf "$ctx"
  "$DOCKER" image rm coldstart-probe:local >/dev/null 2>&1 || true
  say "BuildKit builds FROM $BASE_IMAGE offline ($(since "$t0"))"
}

# ---------------------------------------------------------------------------------------------
# 5. Each build leaves its context and layers in BuildKit's cache, and a run that was killed may
# leave containers and test images: over four suites that is gigabytes of a disk other machines
# share. Start every run with only the base images, and say how much disk is left.
free_disk() {
  local t0 left stale; t0=$(now)
  "$DOCKER" container prune --force >/dev/null 2>&1 || true
  # By name (an ID could be a base image's under another tag); untagged images by ID.
  stale=$("$DOCKER" image ls --format '{{.Repository}}:{{.Tag}} {{.ID}}' \
    | awk -v a="$BASE_IMAGE" -v b="$DISTROLESS_IMAGE" '$1 == a || $1 == b { next } $1 ~ /<none>/ { print $2; next } { print $1 }' | sort -u) || true
  [ -z "$stale" ] || "$DOCKER" image rm $stale >/dev/null 2>&1 || true
  "$DOCKER" builder prune --all --force >/dev/null 2>&1 || true
  left=$(df -Pk "$("$DOCKER" info --format '{{.DockerRootDir}}')" | awk 'NR == 2 { print int($4 / 1048576) }') || true
  [ -n "$left" ] || left=0
  say "cleared old build cache, containers and images ($(since "$t0")); ${left} GiB free for the engine"
  [ "$left" -ge 5 ] || say "warning: only ${left} GiB free: image builds may fail with 'no space left on device'"
}

install_packages
install_runsc_2024
start_engine
build_base_images
check_buildkit
free_disk
say "ready: $("$DOCKER" info --format 'engine {{.ServerVersion}}, runtimes {{range $k, $v := .Runtimes}}{{$k}} {{end}}')"
