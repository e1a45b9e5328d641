#!/usr/bin/env bash
# pincer-daemon as a systemd service of a desktop user: the token, the config and the unit, written
# and started (`install`), or stopped and removed (`uninstall`). Used by scripts/install-daemon.sh
# (a checkout) and by a daemon bundle's install.sh and uninstall.sh (`pincer image bundle`,
# `pincer machine install`); the daemon itself is installed by them.
#
#   service.sh install --user USER --node NODE --main MAIN_JS [options]
#   service.sh uninstall [--config-dir DIR] [--unit-dir DIR] [--service NAME] [--keep-config] [--dry-run]
#
# A token that already exists is kept, so controllers keep working across reinstalls. Without systemd
# running (a container), the files are written and it says how to start the daemon by hand.
set -euo pipefail

die() { echo "pincer-service: $*" >&2; exit 1; }
step() { echo "+ $*"; }

usage() {
  cat <<'USAGE'
Usage: service.sh install --user USER --node NODE --main MAIN_JS [options]

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
  --config-dir DIR       config and token (default /etc/pincer)
  --unit-dir DIR         systemd unit directory (default /etc/systemd/system)
  --service NAME         unit name (default pincer-daemon)
  --no-start             write everything, but do not enable or start the service
  --dry-run              print the unit, the config and each action; change nothing
USAGE
}

config_dir="/etc/pincer" unit_dir="/etc/systemd/system" service="pincer-daemon" dry_run="" keep_config=""
systemd_running=""
[ -d /run/systemd/system ] && systemd_running=1

uninstall() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --config-dir) config_dir="$2"; shift 2 ;;
      --unit-dir) unit_dir="$2"; shift 2 ;;
      --service) service="$2"; shift 2 ;;
      --keep-config) keep_config=1; shift ;;
      --dry-run) dry_run=1; shift ;;
      *) die "uninstall: unknown option $1" ;;
    esac
  done
  [[ "$service" =~ ^[A-Za-z0-9_.@-]+$ ]] || die "--service $service: letters, digits, _ . @ - only"
  run() { echo "+ $*"; [ -n "$dry_run" ] || "$@"; }
  local unit_file="$unit_dir/$service.service" user="" home=""
  [ ! -f "$unit_file" ] || user="$(sed -n 's/^User=//p' "$unit_file" | head -n 1)"
  [ -z "$user" ] || home="$(getent passwd "$user" | cut -d: -f6)"
  if [ -n "$systemd_running" ]; then
    if [ -e "$unit_file" ] || systemctl cat "$service.service" >/dev/null 2>&1; then run systemctl disable --now "$service" || true; fi
  else
    echo "+ systemd is not running here: nothing to stop"
  fi
  [ ! -e "$unit_file" ] || run rm -f "$unit_file"
  [ -z "$systemd_running" ] || run systemctl daemon-reload
  # The daemon's own state in its user's home (the journal of uploads in progress), and the folders
  # it made for it if they are empty now.
  if [ -n "$home" ] && [ "$home" != "/" ] && [ -d "$home/.local/state/pincer-daemon" ]; then
    run rm -rf "$home/.local/state/pincer-daemon"
    [ -n "$dry_run" ] || rmdir "$home/.local/state" "$home/.local" 2>/dev/null || true
  fi
  if [ -n "$keep_config" ]; then
    echo "+ keeping $config_dir (--keep-config)"
  elif [ -d "$config_dir" ]; then
    run rm -f "$config_dir/token" "$config_dir/daemon.json"
    run rmdir --ignore-fail-on-non-empty "$config_dir"
  fi
}

install() {
  local user="" display=":0" xauthority="" xvfb="" host="127.0.0.1" port="50051" tls_cert="" tls_key="" tls_client_ca=""
  local file_root="" no_exec="" exec_allow="" no_start="" node_bin="" main_js="" written_by="service.sh"
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
      --config-dir) config_dir="$2"; shift 2 ;;
      --unit-dir) unit_dir="$2"; shift 2 ;;
      --service) service="$2"; shift 2 ;;
      --no-start) no_start=1; shift ;;
      --dry-run) dry_run=1; shift ;;
      --node) node_bin="$2"; shift 2 ;;
      --main) main_js="$2"; shift 2 ;;
      --written-by) written_by="$2"; shift 2 ;;
      -h|--help) usage; exit 0 ;;
      *) echo "pincer-service: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
  done
  [ -n "$user" ] || { usage >&2; die "--user is required"; }
  [ -n "$node_bin" ] && [ -n "$main_js" ] || die "--node and --main are required"
  [[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] || die "--port $port: not a port number"
  [[ "$service" =~ ^[A-Za-z0-9_.@-]+$ ]] || die "--service $service: letters, digits, _ . @ - only"
  [ -z "$xvfb" ] || [[ "$xvfb" =~ ^[0-9]+x[0-9]+(x[0-9]+)?$ ]] || die "--xvfb $xvfb: give WIDTHxHEIGHT[xDEPTH]"
  [[ "$display" =~ ^:[0-9]+(\.[0-9]+)?$ ]] || die "--display $display: give :N (a local display)"
  if { [ -n "$tls_cert" ] && [ -z "$tls_key" ]; } || { [ -z "$tls_cert" ] && [ -n "$tls_key" ]; }; then die "--tls-cert and --tls-key go together"; fi
  [ -z "$no_exec" ] || [ -z "$exec_allow" ] || die "--no-exec and --exec-allow exclude each other"

  local passwd_line home group
  passwd_line="$(getent passwd "$user")" || die "no such user: $user (create it first: adduser $user)"
  home="$(echo "$passwd_line" | cut -d: -f6)"
  group="$(id -gn "$user")"
  [ -n "$xauthority" ] || xauthority="$home/.Xauthority"
  if [ "$(id -u)" -ne 0 ] && [ -z "$dry_run" ]; then die "run as root (sudo), or with --dry-run"; fi

  local token_file="$config_dir/token" config_file="$config_dir/daemon.json" unit_file="$unit_dir/$service.service"
  local config_json
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

  local unit_order wanted_by unit_env
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

  local malloc_env="MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536 MALLOC_TRIM_THRESHOLD_=131072"
  local node_flags="--single-threaded-gc --max-semi-space-size=2"
  local unit="# Written by $written_by.
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
# Until the desktop session's X server is up (a display manager logging the user in), the daemon
# exits at start; systemd starts it again.
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

  if [ -n "$dry_run" ]; then
    echo "== $unit_file"
    printf '%s\n' "$unit"
    echo "== $config_file"
    printf '%s\n' "$config_json"
    echo "== actions"
    if [ -f "$token_file" ]; then step "keep the existing token $token_file"; else step "openssl rand -hex 32 > $token_file"; fi
    step "chown $user:$group $token_file; chmod 600 $token_file"
    step "write $config_file (mode 644) and $unit_file"
    if [ -n "$no_start" ]; then step "not starting (--no-start)"
    elif [ -n "$systemd_running" ]; then step "systemctl daemon-reload; systemctl enable --now $service"
    else step "systemd is not running here: the service would not be started"; fi
    return 0
  fi

  mkdir -p "$config_dir"
  chmod 755 "$config_dir"
  if [ -f "$token_file" ]; then
    step "keeping the existing token $token_file"
  else
    step "generating the token $token_file"
    (umask 077 && { openssl rand -hex 32 2>/dev/null || "$node_bin" -e 'console.log(require("node:crypto").randomBytes(32).toString("hex"))'; } >"$token_file.tmp")
    mv "$token_file.tmp" "$token_file"
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
    systemctl enable "$service" 2>&1
    systemctl restart "$service"
    step "started: systemctl status $service; journalctl -u $service (audit lines included)"
  else
    echo "systemd is not running on this machine: the unit is written but not started. Start the daemon by hand:"
    echo "  runuser -u $user -- env $malloc_env $node_bin $node_flags $main_js --config $config_file"
  fi
  local reach="$host"
  case "$host" in 0.0.0.0|::|"[::]") reach="<this machine's address>" ;; esac
  echo "Controllers connect to $reach:$port with the token in $token_file (copy it to them, mode 600):"
  echo "  connect(\"$reach:$port\", { tokenFile: \"/path/to/token\"$([ -n "$tls_cert" ] && echo ', tls: { ca: "/path/to/ca.pem" }') })"
}

case "${1:-}" in
  install) shift; install "$@" ;;
  uninstall) shift; uninstall "$@" ;;
  -h|--help) usage; exit 0 ;;
  *) echo "pincer-service: give install or uninstall" >&2; usage >&2; exit 2 ;;
esac
