#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Pincer needs, for one job:
#   demo    (the default) `npm run demo` on local machines: an X server (Xvfb, xauth) and the small X
#           programs the example tasks run (xterm, xedit and xclock from x11-apps, xclip); python3 (the
#           notebook example); ImageMagick (the image example); gcc for the daemon's native spawner and
#           the sandbox helper (built by npm ci); bubblewrap and util-linux (the sandbox each local
#           machine runs in; setpriv, with which an Xvfb dies with its daemon).
#   images  `pincer image build` and the container and qemu providers: mmdebstrap and e2fsprogs (the
#           root filesystem and its ext4 disk), Podman with runc, catatonit (its --init),
#           netavark/aardvark-dns and conmon, QEMU (qemu-system-x86, qemu-utils); for --deb/--apt-source:
#           dpkg, gnupg (mmdebstrap's signed-by check) and dpkg-dev (dpkg-scanpackages).
#   test    `npm test`: demo and images, and what the tests use as independent witnesses or peers:
#           xdotool and x11-utils, Python with grpcio and protoc (a client that is not Pincer's),
#           openssl, systemd (systemd-analyze), slirp4netns (`--network`), chromium (the viewer in a
#           real browser), dbus, at-spi2-core and zenity (the accessibility tree), ffmpeg (--record, and
#           OSWorld's compare_videos), tesseract-ocr (OSWorld's compare_image_text), redis-server (the
#           queue of `pincer run --queue`).
#   bench   test, and what `npm run bench` compares against (sshd for ssh/scp, Flask and Pillow for the stand-in of OSWorld's server).
#   all     every package above.
# `--list` prints the packages of the job instead of installing them. Installs only what is missing;
# needs root (or sudo); waits for another apt or dpkg that holds the package lock (up to 10 minutes).
set -euo pipefail
list=0
job=demo
for arg in "$@"; do
  case "$arg" in
    --list) list=1 ;;
    demo | images | test | bench | all) job=$arg ;;
    *)
      echo "install-system-deps.sh: unknown job '$arg': give demo (the default), images, test, bench or all, and --list to print the packages" >&2
      exit 2
      ;;
  esac
done
demo=(xvfb xauth x11-xserver-utils x11-apps xterm xclip python3 imagemagick gcc libc6-dev bubblewrap util-linux)
images=(mmdebstrap e2fsprogs podman runc catatonit conmon netavark aardvark-dns iptables qemu-system-x86 qemu-utils dpkg gnupg dpkg-dev libguestfs-tools ovmf)
test=(x11-utils xdotool python3-grpcio python3-protobuf python3-pytest python3-venv python3-pip python3-setuptools protobuf-compiler protobuf-compiler-grpc openssl systemd slirp4netns chromium dbus at-spi2-core zenity ffmpeg
  tesseract-ocr redis-server vncsnapshot tigervnc-tools tigervnc-viewer openssh-client binutils)
bench=(openssh-server openssh-client python3-flask python3-pil)
case "$job" in
  demo) packages=("${demo[@]}") ;;
  images) packages=("${images[@]}") ;;
  test) packages=("${demo[@]}" "${images[@]}" "${test[@]}") ;;
  bench | all) packages=("${demo[@]}" "${images[@]}" "${test[@]}" "${bench[@]}") ;;
esac
if [ $list = 1 ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "system packages ($job): all present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "system packages ($job): installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Another apt or dpkg (an unattended upgrade, say) may hold the locks: wait for it, and say so.
# apt-get install waits by itself (DPkg::Lock::Timeout); apt-get update does not, so it is retried.
lock=(-o DPkg::Lock::Timeout=600)
said=""
updated=""
for _ in $(seq 1 120); do
  if out=$($SUDO apt-get "${lock[@]}" update -qq 2>&1); then
    updated=1
    break
  fi
  case "$out" in
    *"Could not get lock"* | *"Unable to lock"*)
      [ -n "$said" ] || echo "system packages: another apt or dpkg is running; waiting for it (up to 10 minutes)"
      said=1
      sleep 5
      ;;
    *)
      echo "$out" >&2
      exit 1
      ;;
  esac
done
if [ -z "$updated" ]; then
  echo "system packages: the package lists stayed locked for 10 minutes; stop the other apt (ps aux | grep -E 'apt|dpkg') and run this again" >&2
  exit 1
fi
$SUDO apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
