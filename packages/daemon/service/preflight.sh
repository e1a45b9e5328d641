#!/bin/sh
# What a host has for pincer-daemon, as key=value lines, changing nothing: the architecture, glibc,
# systemd, the desktop user, the X display's socket and the Xauthority file of that user's session
# (found in the environment of the user's processes on that display, else ~/.Xauthority), shared
# libraries the daemon bundle takes from the system, and an install already there.
# `pincer machine install` runs it over SSH before it copies anything; by hand:
#   sh preflight.sh --user alice [--display :0] [--xauthority FILE] [--xvfb] [--prefix /opt/pincer] [--libs "libX11.so.6 ..."]
set -u
user="" display=":0" xauthority="" xvfb="" prefix="/opt/pincer" libs=""
while [ $# -gt 0 ]; do
  case "$1" in
    --user) user="$2"; shift 2 ;;
    --display) display="$2"; shift 2 ;;
    --xauthority) xauthority="$2"; shift 2 ;;
    --xvfb) xvfb=1; shift ;;
    --prefix) prefix="$2"; shift 2 ;;
    --libs) libs="$2"; shift 2 ;;
    *) echo "error=unknown option $1"; exit 2 ;;
  esac
done
echo "arch=$(uname -m)"
echo "kernel=$(uname -r)"
g="$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc //p')"
[ -n "$g" ] || g="$(ldd --version 2>/dev/null | head -n 1 | grep -o '[0-9][0-9]*\.[0-9][0-9]*$')"
echo "glibc=$g"
echo "root=$([ "$(id -u)" -eq 0 ] && echo yes || echo no)"
echo "systemd=$([ -d /run/systemd/system ] && echo yes || echo no)"
if [ -f /etc/os-release ]; then echo "os=$(. /etc/os-release && echo "${PRETTY_NAME:-$ID}")"; fi
line="$(getent passwd "$user" 2>/dev/null)"
if [ -n "$user" ] && [ -n "$line" ]; then
  uid="$(echo "$line" | cut -d: -f3)"
  home="$(echo "$line" | cut -d: -f6)"
  echo "user=$user"
  echo "uid=$uid"
  echo "home=$home"
else
  echo "user="
  uid="" home=""
fi
n="$(echo "$display" | sed -n 's/^:\([0-9][0-9]*\)\(\.[0-9]*\)\{0,1\}$/\1/p')"
echo "display_number=$n"
if [ -n "$xvfb" ]; then
  echo "xvfb=$(command -v Xvfb || true)"
else
  echo "display_socket=$([ -n "$n" ] && [ -S "/tmp/.X11-unix/X$n" ] && echo "/tmp/.X11-unix/X$n" || true)"
  if [ -z "$xauthority" ] && [ -n "$uid" ]; then
    # The session's own XAUTHORITY: display managers put it in the session's environment.
    for d in /proc/[0-9]*; do
      [ "$(stat -c %u "$d" 2>/dev/null)" = "$uid" ] || continue
      e="$(tr '\0' '\n' <"$d/environ" 2>/dev/null)" || continue
      echo "$e" | grep -qx "DISPLAY=$display" || echo "$e" | grep -qx "DISPLAY=:$n" || continue
      a="$(echo "$e" | sed -n 's/^XAUTHORITY=//p' | head -n 1)"
      if [ -n "$a" ] && [ -r "$a" ]; then xauthority="$a"; echo "xauthority_from=process $(basename "$d")"; break; fi
    done
    if [ -z "$xauthority" ] && [ -r "$home/.Xauthority" ]; then xauthority="$home/.Xauthority"; echo "xauthority_from=home"; fi
  fi
  echo "xauthority=$xauthority"
  # The file's bytes, for the controller to find the display's cookie (od: coreutils).
  if [ -n "$xauthority" ] && [ -r "$xauthority" ]; then echo "xauthority_hex=$(od -An -v -tx1 "$xauthority" | tr -d ' \n')"; fi
fi
missing=""
for l in $libs; do
  ldconfig -p 2>/dev/null | grep -q "^[[:space:]]*$l " || missing="$missing $l"
done
echo "libs_missing=${missing# }"
if [ -f "$prefix/bundle.json" ]; then
  echo "installed=$(tr -d '\n' <"$prefix/bundle.json")"
elif [ -e "$prefix" ]; then
  echo "installed=other"
fi
echo "end=1"
