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
# production dependencies under --prefix; then packages/daemon/service/service.sh writes a token
# (openssl rand -hex 32) readable only by the user, a JSON config and a unit file (Restart=on-failure,
# User=, DISPLAY and XAUTHORITY of that user), and runs daemon-reload, enable, restart. A token that already exists is kept, so controllers keep
# working across reinstalls. Without systemd running (a container), the files are written and the
# script says how to start the daemon by hand. Undo with scripts/uninstall-daemon.sh.
set -euo pipefail

usage() {
  echo "Usage: sudo bash scripts/install-daemon.sh --user USER [options]"
  echo
  echo "  --prefix DIR           where the daemon is installed (default /opt/pincer)"
  # The service's options, as packages/daemon/service/service.sh takes them.
  bash "$(dirname "${BASH_SOURCE[0]}")/../packages/daemon/service/service.sh" --help | tail -n +3
}

prefix="/opt/pincer" dry_run="" user="" pass=()
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --user) user="$2"; pass+=("$1" "$2"); shift 2 ;;
    --no-exec|--no-start) pass+=("$1"); shift ;;
    --display|--xauthority|--xvfb|--host|--port|--tls-cert|--tls-key|--tls-client-ca|--file-root|--exec-allow|--config-dir|--unit-dir|--service)
      [ $# -ge 2 ] || { echo "install-daemon: $1 needs a value" >&2; exit 2; }
      pass+=("$1" "$2"); shift 2 ;;
    *) echo "install-daemon: unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done

die() { echo "install-daemon: $*" >&2; exit 1; }
[ -n "$user" ] || { usage >&2; die "--user is required"; }

node_bin="$(command -v node)" || die "node is not installed (Node.js >= 20.9 is needed)"
node_bin="$(readlink -f "$node_bin")"
"$node_bin" -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=9)?0:1)' ||
  die "$node_bin is Node.js $("$node_bin" --version); pincer-daemon needs >= 20.9"

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
service_sh="$repo/packages/daemon/service/service.sh"
main_js="$prefix/node_modules/@pincer/daemon/dist/main.js"
service=(bash "$service_sh" install --node "$node_bin" --main "$main_js" --written-by "scripts/install-daemon.sh; remove with scripts/uninstall-daemon.sh" "${pass[@]}")
# The service's options are checked (and its unit made) before anything is installed.
"${service[@]}" --dry-run >/dev/null || exit $?

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

step() { echo "+ $*"; }
if [ -n "$dry_run" ]; then
  echo "== dry run: nothing is changed"
  step "npm pack @pincer/shared and @pincer/daemon from $repo"
  step "npm install --omit=dev --prefix $prefix <the two packages>"
  exec "${service[@]}" --dry-run
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
"${service[@]}"
