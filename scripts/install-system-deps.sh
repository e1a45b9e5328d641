#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Pincer's tests, demo and benchmarks use: an X server (Xvfb);
# small X programs the example tasks run and the tests use as independent witnesses (xterm, xedit
# and xclock from x11-apps, xdotool, xclip); Python with grpcio and protoc for the test that calls
# the daemon from a client that is not Pincer's (python3 also serves the notebook example);
# ImageMagick for the screenshot-desktop capture fallback and the image example; gcc for the
# daemon's native spawner and the sandbox helper (built by npm ci); bubblewrap for the sandbox
# each local machine of `pincer run` runs in, and slirp4netns for its network link (`--network`); chromium (Debian's) for the test that opens a run's
# report.html in a real headless browser; dbus (dbus-daemon, dbus-send) and at-spi2-core
# (at-spi-bus-launcher, at-spi2-registryd) for the accessibility tree, and zenity, a small GTK 3
# program whose dialog the accessibility test reads; ffmpeg, with which a machine records its screen
# (`pincer run --record`); for machines from an image (`pincer image build`, the container and qemu
# providers): mmdebstrap and e2fsprogs (the root filesystem and its ext4 disk), Podman with runc,
# catatonit (its --init), netavark/aardvark-dns and conmon, and QEMU (qemu-system-x86, qemu-utils);
# for `pincer image build --deb/--apt-source`: dpkg (dpkg-deb reads a .deb), gnupg (mmdebstrap's
# signed-by check) and dpkg-dev (dpkg-scanpackages, with which the tests make a local repository);
# redis-server, the queue of runs over several hosts (`pincer run --queue`, `pincer worker`).
# Installs only what is missing; needs root (or sudo).
set -euo pipefail
packages=(
  xvfb xauth x11-xserver-utils x11-utils x11-apps xterm xdotool xclip
  python3 python3-grpcio protobuf-compiler protobuf-compiler-grpc imagemagick openssl systemd
  gcc libc6-dev bubblewrap util-linux slirp4netns chromium dbus at-spi2-core zenity ffmpeg
  mmdebstrap e2fsprogs podman runc catatonit conmon netavark aardvark-dns iptables qemu-system-x86 qemu-utils
  dpkg gnupg dpkg-dev redis-server
)
# `install-system-deps.sh bench` adds what npm run bench compares against (sshd for ssh/scp).
[ "${1:-}" = "bench" ] && packages+=(openssh-server openssh-client)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages: all present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "system packages: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
