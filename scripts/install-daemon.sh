#!/usr/bin/env bash
# Installs pincer-daemon on a Debian/Ubuntu machine as a systemd service, from this checkout
# (built: npm ci && npm run build).
#
#   sudo bash scripts/install-daemon.sh --user alice                       # alice's desktop, :0, 127.0.0.1:50051
#   sudo bash scripts/install-daemon.sh --user alice --host 0.0.0.0 --tls-cert c.pem --tls-key k.pem
#   sudo bash scripts/install-daemon.sh --user bench --xvfb 1920x1080x24   # headless: its own Xvfb
#   bash scripts/install-daemon.sh --user alice --dry-run                  # print everything, change nothing
#
# What it does: packs the built @pincer/shared and @pincer/daemon and installs them with their
# production dependencies under --prefix; writes a token (openssl rand -hex 32) readable only by
# the user, a JSON config and a unit file (Restart=on-failure, User=, DISPLAY and XAUTHORITY of that
# user); then daemon-reload, enable --now. A token that already exists is kept, so controllers keep
# working across reinstalls. Without systemd running (a container), the files are written and the
# script says how to start the daemon by hand. Undo with scripts/uninstall-daemon.sh.
set -euo pipefail

usage() {
  cat <<'EOF'
Usage: sudo bash scripts/install-daemon.sh --user USER [options]

  --user USER            account the daemon runs as (required); its commands run as this user too
  --display :N           X display of that user's session (default :0)
  --xauthority FILE      X authority file (default: ~USER/.Xauthority)
  --xvfb WxHxD           headless: the daemon starts its own Xvfb instead (e.g. 1920x1080x24)
  --host HOST            interface to listen on (default 127.0.0.1; anything else is protected by the token)
  --port PORT            TCP port (default 50051)
  --tls-cert FILE --tls-key FILE [--tls-client-ca FILE]
                         serve TLS (and mutual TLS); the files must be readable by USER
  --file-root DIR        confine file paths and working directories to DIR
  --no-exec              refuse all commands; --exec-allow LIST: only these programs
  --prefix DIR           where the daemon is installed (default /opt/pincer)
  --config-dir DIR       config and token (default /etc/pincer)
  --unit-dir DIR         systemd unit directory (default /etc/systemd/system)
  --service NAME         unit name (default pincer-daemon)
  --no-start             write everything, but do not enable or start the service
  --dry-run              print the unit, the config and each action; change nothing
EOF
}

user="" display=":0" xauthority="" xvfb="" host="127.0.0.1" port="50051"
tls_cert="" tls_key="" tls_client_ca="" file_root="" no_exec="" exec_allow=""
prefix="/opt/pincer" config_dir="/etc/pincer" unit_dir="/etc/systemd/system" service="pincer-daemon"
no_start="" dry_run=""
while [ $# -gt 0 ]; do
  case "$1" in
    --user) user="$2"; shift 2 ;;
    --display) display="$2"; shift 2 ;;
    --xauthority) xauthority="$2"; shift 2 ;;
    --xvfb) xvfb="$2"; shift 2 ;;
    --host) host="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --tls-cert) tls_cert="$2"; shift 2 ;;
    --tls-key) tls_key="$2"; shift 2 ;;
    --tls-client-ca) tls_client_ca="$2"; shift 2 ;;
    --file-root) file_root="$2"; shift 2 ;;
    --no-exec) no_exec=1; shift ;;
    --exec-allow) exec_allow="$2"; shift 2 ;;
    --prefix) prefix="$2"; shift 2 ;;
    --config-dir) config_dir="$2"; shift 2 ;;
    --unit-dir) unit_dir="$2"; shift 2 ;;
    --service) service="$2"; shift 2 ;;
    --no-start) no_start=1; shift ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "install-daemon: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

die() { echo "install-daemon: $*" >&2; exit 1; }
[ -n "$user" ] || { usage >&2; die "--user is required"; }
[[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || die "--port $port: not a port number"
[[ "$service" =~ ^[A-Za-z0-9_.@-]+$ ]] || die "--service $service: letters, digits, _ . @ - only"
[ -z "$xvfb" ] || [[ "$xvfb" =~ ^[0-9]+x[0-9]+(x[0-9]+)?$ ]] || die "--xvfb $xvfb: give WIDTHxHEIGHT[xDEPTH]"
if { [ -n "$tls_cert" ] && [ -z "$tls_key" ]; } || { [ -z "$tls_cert" ] && [ -n "$tls_key" ]; }; then die "--tls-cert and --tls-key go together"; fi
[ -z "$no_exec" ] || [ -z "$exec_allow" ] || die "--no-exec and --exec-allow exclude each other"

passwd_line="$(getent passwd "$user")" || die "no such user: $user (create it first: adduser $user)"
home="$(echo "$passwd_line" | cut -d: -f6)"
group="$(id -gn "$user")"
[ -n "$xauthority" ] || xauthority="$home/.Xauthority"

node_bin="$(command -v node)" || die "node is not installed (Node.js >= 20.9 is needed)"
node_bin="$(readlink -f "$node_bin")"
"$node_bin" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=9)?0:1)' ||
  die "$node_bin is Node.js $("$node_bin" --version); pincer-daemon needs >= 20.9"

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for f in packages/shared/dist/index.js packages/daemon/dist/main.js; do
  [ -f "$repo/$f" ] || die "$repo/$f is missing: build first (npm ci && npm run build)"
done
# tsc -b rewrites a project's tsbuildinfo whenever one of its sources changed (not always the .js).
stale=""
for pkg in shared daemon; do
  info="$repo/packages/$pkg/tsconfig.tsbuildinfo"
  [ -f "$info" ] || { stale="$repo/packages/$pkg (never built)"; break; }
  stale="$(find "$repo/packages/$pkg/src" -name '*.ts' -newer "$info" -print -quit)"
  [ -z "$stale" ] || break
done
[ -z "$stale" ] || [ -n "$dry_run" ] || die "$stale is newer than its build output: run npm run build first"
if [ "$(id -u)" -ne 0 ] && [ -z "$dry_run" ]; then die "run as root (sudo), or with --dry-run"; fi

token_file="$config_dir/token"
config_file="$config_dir/daemon.json"
unit_file="$unit_dir/$service.service"
main_js="$prefix/node_modules/@pincer/daemon/dist/main.js"

config_json="$(
  HOST="$host" PORT="$port" TOKEN_FILE="$token_file" DISPLAY_="$display" XVFB="$xvfb" TLS_CERT="$tls_cert" TLS_KEY="$tls_key" \
  TLS_CLIENT_CA="$tls_client_ca" FILE_ROOT="$file_root" NO_EXEC="$no_exec" EXEC_ALLOW="$exec_allow" "$node_bin" -e '
    const e = process.env, c = { host: e.HOST, port: Number(e.PORT), tokenFile: e.TOKEN_FILE };
    if (e.XVFB) c.xvfb = e.XVFB; else c.display = e.DISPLAY_;
    if (e.TLS_CERT) { c.tlsCert = e.TLS_CERT; c.tlsKey = e.TLS_KEY; }
    if (e.TLS_CLIENT_CA) c.tlsClientCa = e.TLS_CLIENT_CA;
    if (e.FILE_ROOT) c.fileRoot = e.FILE_ROOT;
    if (e.NO_EXEC) c.noExec = true;
    if (e.EXEC_ALLOW) c.execAllow = e.EXEC_ALLOW.split(",").map((s) => s.trim()).filter(Boolean);
    process.stdout.write(JSON.stringify(c, null, 2) + "\n");'
)"

if [ -n "$xvfb" ]; then
  unit_order="After=network-online.target
Wants=network-online.target"
  wanted_by="multi-user.target"
  unit_env=""
else
  # Not After=graphical.target: that target waits for the units it wants, which would be a cycle.
  unit_order="After=network-online.target display-manager.service
Wants=network-online.target"
  wanted_by="graphical.target"
  unit_env="Environment=DISPLAY=$display
Environment=XAUTHORITY=$xauthority"
fi

malloc_env="MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=131072"
node_flags="--single-threaded-gc --max-semi-space-size=2"
unit="# Written by scripts/install-daemon.sh; remove with scripts/uninstall-daemon.sh.
[Unit]
Description=pincer-daemon: this machine's mouse, keyboard, screen, files and processes for Pincer controllers
$unit_order

[Service]
Type=simple
User=$user
Group=$group
$unit_env
# glibc malloc settings that give memory back after transfers and screenshots (DAEMON_MALLOC_ENV in
# packages/shared/src/nodeFlags.ts); the daemon keeps them out of the commands it runs.
Environment=$malloc_env
# Node flags (DAEMON_NODE_FLAGS in the same file): the GC on the main thread, a small young generation.
WorkingDirectory=-~
ExecStart=$node_bin $node_flags $main_js --config $config_file
Restart=on-failure
RestartSec=5
# Descriptors for connections, files, commands' pipes, the X connection and the buses; the daemon
# gives at most half of them to connections that have not authenticated (--max-unauthenticated-connections).
LimitNOFILE=65536
# No systemd sandboxing (PrivateTmp, ProtectHome...): the daemon reads and writes files and runs
# programs for its clients by design, and PrivateTmp would hide the X socket in /tmp/.X11-unix.
# Confine it with fileRoot, noExec or execAllow in $config_file instead.

[Install]
WantedBy=$wanted_by
"
unit="$(printf '%s\n' "$unit" | sed '/^$/N;/^\n$/D')"

systemd_running=""
[ -d /run/systemd/system ] && systemd_running=1

step() { echo "+ $*"; }
if [ -n "$dry_run" ]; then
  echo "== dry run: nothing is changed"
  echo "== $unit_file"
  printf '%s\n' "$unit"
  echo "== $config_file"
  printf '%s\n' "$config_json"
  echo "== actions"
  step "npm pack @pincer/shared and @pincer/daemon from $repo"
  step "npm install --omit=dev --prefix $prefix <the two packages>"
  if [ -f "$token_file" ]; then step "keep the existing token $token_file"; else step "openssl rand -hex 32 > $token_file"; fi
  step "chown $user:$group $token_file; chmod 600 $token_file"
  step "write $config_file (mode 644) and $unit_file"
  if [ -n "$no_start" ]; then step "not starting (--no-start)"
  elif [ -n "$systemd_running" ]; then step "systemctl daemon-reload; systemctl enable --now $service"
  else step "systemd is not running here: the service would not be started"; fi
  exit 0
fi

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
step "packing @pincer/shared and @pincer/daemon"
mkdir -p "$stage/packs"
# Each package's "files" says what it ships: dist/, and the daemon's native spawner source, which
# its install script compiles on the machine (needs cc; without it the daemon refuses to start: its
# Node spawner cannot stop processes that call setsid).
npm pack --silent --pack-destination "$stage/packs" "$repo/packages/shared" "$repo/packages/daemon" >/dev/null

step "installing into $prefix"
mkdir -p "$prefix"
[ -f "$prefix/package.json" ] || echo '{ "name": "pincer-daemon-install", "private": true }' >"$prefix/package.json"
npm install --omit=dev --no-audit --no-fund --prefer-offline --loglevel=error --prefix "$prefix" "$stage"/packs/*.tgz
[ -f "$main_js" ] || die "npm install did not produce $main_js"
[ -x "$prefix/node_modules/@pincer/daemon/native/build/pincer-spawner" ] ||
  die "the daemon's native spawner was not built (no C compiler?); install one (Debian: apt-get install gcc) and run this again"
# Packages copied as root keep the invoking user's umask; make sure the service user can read them.
chmod -R a+rX "$prefix"

mkdir -p "$config_dir"
chmod 755 "$config_dir"
if [ -f "$token_file" ]; then
  step "keeping the existing token $token_file"
else
  step "generating the token $token_file"
  (umask 077 && { openssl rand -hex 32 2>/dev/null || "$node_bin" -e 'console.log(require("node:crypto").randomBytes(32).toString("hex"))'; } >"$token_file")
fi
chown "$user:$group" "$token_file"
chmod 600 "$token_file"
printf '%s\n' "$config_json" >"$config_file"
chmod 644 "$config_file"
mkdir -p "$unit_dir"
printf '%s\n' "$unit" >"$unit_file"
chmod 644 "$unit_file"
step "wrote $config_file and $unit_file"

if [ -n "$no_start" ]; then
  step "not starting (--no-start)"
elif [ -n "$systemd_running" ]; then
  systemctl daemon-reload
  systemctl enable --now "$service"
  step "started: systemctl status $service; journalctl -u $service (audit lines included)"
else
  echo "systemd is not running on this machine: the unit is written but not started. Start the daemon by hand:"
  echo "  runuser -u $user -- env $malloc_env $node_bin $node_flags $main_js --config $config_file"
fi
reach="$host"
case "$host" in 0.0.0.0|::|"[::]") reach="<this machine's address>" ;; esac
echo "Controllers connect to $reach:$port with the token in $token_file (copy it to them, mode 600):"
echo "  connect(\"$reach:$port\", { tokenFile: \"/path/to/token\"$([ -n "$tls_cert" ] && echo ', tls: { ca: "/path/to/ca.pem" }') })"
