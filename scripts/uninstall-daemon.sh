#!/usr/bin/env bash
# Removes what scripts/install-daemon.sh installed: stops and disables the service, removes its unit,
# the installed packages and the config directory with the token.
#
#   sudo bash scripts/uninstall-daemon.sh               # pincer-daemon, /opt/pincer, /etc/pincer
#   sudo bash scripts/uninstall-daemon.sh --keep-config # keep /etc/pincer (the token) for a reinstall
#   bash scripts/uninstall-daemon.sh --dry-run          # print the actions, change nothing
#
# Take the same --prefix, --config-dir, --unit-dir and --service as the install, if it was given any.
set -euo pipefail

prefix="/opt/pincer" config_dir="/etc/pincer" unit_dir="/etc/systemd/system" service="pincer-daemon"
keep_config="" dry_run=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --config-dir) config_dir="$2"; shift 2 ;;
    --unit-dir) unit_dir="$2"; shift 2 ;;
    --service) service="$2"; shift 2 ;;
    --keep-config) keep_config=1; shift ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "uninstall-daemon: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ "$service" =~ ^[A-Za-z0-9_.@-]+$ ]] || { echo "uninstall-daemon: --service $service: bad name" >&2; exit 2; }
if [ "$(id -u)" -ne 0 ] && [ -z "$dry_run" ]; then echo "uninstall-daemon: run as root (sudo), or with --dry-run" >&2; exit 1; fi

# Refuse to remove a directory the install did not make: it holds our package.json or our token.
if [ -d "$prefix" ] && ! grep -qs '"pincer-daemon-install"' "$prefix/package.json"; then
  echo "uninstall-daemon: $prefix was not made by install-daemon.sh (no pincer-daemon-install package.json); not removing it" >&2
  exit 1
fi

[ -z "$dry_run" ] || echo "== dry run: nothing is changed"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
args=(--config-dir "$config_dir" --unit-dir "$unit_dir" --service "$service")
[ -z "$keep_config" ] || args+=(--keep-config)
[ -z "$dry_run" ] || args+=(--dry-run)
bash "$repo/packages/daemon/service/service.sh" uninstall "${args[@]}"
if [ -d "$prefix" ]; then
  echo "+ rm -rf $prefix"
  [ -n "$dry_run" ] || rm -rf "$prefix"
fi
if [ -n "$dry_run" ]; then echo "pincer-daemon ($service): the above would be removed"; else echo "pincer-daemon ($service) removed"; fi
