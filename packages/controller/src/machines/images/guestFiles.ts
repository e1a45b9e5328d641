/**
 * The files Pincer writes into an image's root filesystem: the entrypoint that starts the X server,
 * the profile's session and the daemon; and for the virtual machine, the systemd unit that gives the
 * daemon the token QEMU passes in, and a fixed address on QEMU's user network.
 */

import { DAEMON_MALLOC_ENV, DAEMON_NODE_FLAGS } from "@pincer/shared";
import { FW_CFG_TOKEN, GUEST_PORT, GUEST_TOKEN_FILE } from "../guestContract.js";

/** Where the daemon and its own Node.js live inside an image. */
export const GUEST_PREFIX = "/opt/pincer";

/**
 * The shell line that replaces the shell with the daemon (`node` running `main`): its malloc settings
 * and Node flags, as every launcher of an image or bundle gives them.
 */
export function daemonExec(node: string, main: string): string {
  const env = Object.entries(DAEMON_MALLOC_ENV)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return `exec env ${env} ${node} ${DAEMON_NODE_FLAGS.join(" ")} ${main}`;
}

/** /usr/local/bin/pincer-entrypoint: X server, session, then the daemon, as user `user`. */
export function entrypoint(): string {
  return `#!/bin/sh
# pincer-entrypoint, written by \`pincer image build\`: starts Xvfb on :0, the profile's session
# (/etc/pincer/session, if any), then pincer-daemon on 0.0.0.0:${GUEST_PORT}, which requires the token in
# $PINCER_TOKEN_FILE. There is no token in the image: each machine is given its own when it starts.
set -eu
token="\${PINCER_TOKEN_FILE:-${GUEST_TOKEN_FILE}}"
if [ ! -s "$token" ] || [ ! -r "$token" ]; then
  echo "pincer-entrypoint: no readable token at $token: mount one (containers) or pass fw_cfg ${FW_CFG_TOKEN} (VMs)" >&2
  exit 78
fi
screen="\${PINCER_SCREEN:-1280x800x24}"
export DISPLAY=:0 HOME=/home/user USER=user LOGNAME=user
cd /home/user
Xvfb :0 -screen 0 "$screen" -nolisten tcp -noreset >/tmp/pincer-xvfb.log 2>&1 &
i=0
while [ ! -S /tmp/.X11-unix/X0 ]; do
  i=$((i + 1))
  if [ "$i" -gt 400 ]; then echo "pincer-entrypoint: Xvfb did not start:" >&2; cat /tmp/pincer-xvfb.log >&2; exit 1; fi
  sleep 0.025
done
# A D-Bus session bus where the image has one (the desktop profiles), with the accessibility bus
# (at-spi2-core) on it: the session, the daemon and the programs it starts find them through
# DBUS_SESSION_BUS_ADDRESS, and GTK 3 programs (LibreOffice, Thunderbird, Chromium) publish their widgets.
# The bus listens where a systemd login session's does, $XDG_RUNTIME_DIR/bus, when the image has
# /run/user/<uid> (containers; a VM's /run is a fresh tmpfs): programs and scripts that name that
# address, as OSWorld's tasks do, reach it.
if command -v dbus-launch >/dev/null 2>&1; then
  runtime="/run/user/$(id -u)"
  if [ -d "$runtime" ] && [ -w "$runtime" ]; then
    export XDG_RUNTIME_DIR="$runtime" DBUS_SESSION_BUS_ADDRESS="unix:path=$runtime/bus"
    rm -f "$runtime/bus"
    dbus-daemon --session --address="$DBUS_SESSION_BUS_ADDRESS" --fork --nopidfile >/dev/null
  else
    eval "$(dbus-launch --sh-syntax)"
  fi
  export QT_ACCESSIBILITY=1 QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1
  if [ -x /usr/libexec/at-spi-bus-launcher ]; then /usr/libexec/at-spi-bus-launcher --launch-immediately >/tmp/pincer-a11y.log 2>&1 & fi
fi
if [ -x /etc/pincer/session ]; then /etc/pincer/session >/tmp/pincer-session.log 2>&1 & fi
${daemonExec(`${GUEST_PREFIX}/bin/node`, `${GUEST_PREFIX}/node_modules/@pincer/daemon/dist/main.js`)} \\
  --host 0.0.0.0 --port ${GUEST_PORT} --display :0 --token-file "$token"
`;
}

/** /etc/pincer/session for a profile with a session line. */
export function session(line: string): string {
  return `#!/bin/sh\n# The profile's session, started on the display by pincer-entrypoint.\n${line}\n`;
}

/** The VM's systemd unit: token from fw_cfg to /run/pincer/token, then the entrypoint as `user`. */
export function daemonUnit(): string {
  return `[Unit]
Description=pincer-daemon (X server, session and daemon of a Pincer image)
After=systemd-networkd.service systemd-tmpfiles-setup.service
Wants=systemd-networkd.service

[Service]
Type=simple
User=user
Group=user
RuntimeDirectory=pincer
RuntimeDirectoryMode=0755
ExecStartPre=+/bin/sh -c 'modprobe qemu_fw_cfg 2>/dev/null; f=/sys/firmware/qemu_fw_cfg/by_name/${FW_CFG_TOKEN}/raw; \\
  i=0; while [ ! -r "$f" ] && [ $i -lt 50 ]; do i=$((i+1)); sleep 0.1; done; \\
  install -o user -g user -m 0400 "$f" ${GUEST_TOKEN_FILE}'
ExecStart=/usr/local/bin/pincer-entrypoint
Restart=on-failure
RestartSec=1

[Install]
WantedBy=multi-user.target
`;
}

/** systemd-networkd: eth0 at QEMU's user-network guest address, no DHCP wait. */
export function networkUnit(): string {
  return `[Match]
Name=eth0

[Network]
Address=10.0.2.15/24
Gateway=10.0.2.2
DNS=10.0.2.3
`;
}

/**
 * The shell run by mmdebstrap's customize hook (`$1` is the root filesystem): the user, the daemon
 * copied from `bundle`, the entrypoint and session, and the VM's units. `sudo` works for `user` with
 * the password `password`, and the home has Desktop, Documents, Downloads, Music, Pictures and Videos,
 * as on OSWorld's machines, for tasks whose setup needs root or writes there.
 */
export function customizeScript(bundle: string, filesDir: string): string {
  return `set -eu
root="$1"
chroot "$root" useradd --create-home --uid 1000 --user-group --shell /bin/bash --groups sudo,audio,video user
echo 'user:password' | chroot "$root" chpasswd
# A D-Bus machine id (libdbus refuses to connect without one; /etc/machine-id is left to systemd).
if [ -x "$root/usr/bin/dbus-uuidgen" ]; then chroot "$root" dbus-uuidgen --ensure=/var/lib/dbus/machine-id; fi
# The user's runtime folder, as systemd-logind makes it for a login session (the session bus is there).
install -d -o 1000 -g 1000 -m 0700 "$root/run/user/1000"
# The user's folders, as on OSWorld's machines (its tasks write to ~/Desktop and ~/Documents).
chroot "$root" runuser -u user -- mkdir -p /home/user/Desktop /home/user/Documents /home/user/Downloads /home/user/Music /home/user/Pictures /home/user/Videos
# The profile's files in the user's home (application settings).
if [ -d '${filesDir}/home' ]; then cp -a '${filesDir}/home/.' "$root/home/user/"; chroot "$root" chown -R user:user /home/user; fi
mkdir -p "$root${GUEST_PREFIX}" "$root/etc/pincer" "$root/etc/systemd/network" "$root/etc/modules-load.d"
cp -a '${bundle}/.' "$root${GUEST_PREFIX}/"
chmod -R a+rX "$root${GUEST_PREFIX}"
install -m 0755 '${filesDir}/pincer-entrypoint' "$root/usr/local/bin/pincer-entrypoint"
if [ -f '${filesDir}/session' ]; then install -m 0755 '${filesDir}/session' "$root/etc/pincer/session"; fi
install -m 0644 '${filesDir}/image.json' "$root/etc/pincer/image.json"
install -d -m 1777 "$root/tmp/.X11-unix"
install -m 0644 '${filesDir}/pincer-daemon.service' "$root/etc/systemd/system/pincer-daemon.service"
install -m 0644 '${filesDir}/10-eth0.network' "$root/etc/systemd/network/10-eth0.network"
echo qemu_fw_cfg > "$root/etc/modules-load.d/pincer.conf"
mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
ln -sf /etc/systemd/system/pincer-daemon.service "$root/etc/systemd/system/multi-user.target.wants/pincer-daemon.service"
ln -sf /lib/systemd/system/systemd-networkd.service "$root/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
ln -sf /dev/null "$root/etc/systemd/system/systemd-networkd-wait-online.service"
ln -sf /dev/null "$root/etc/systemd/system/getty@tty1.service"
echo '/dev/vda / ext4 rw,relatime 0 1' > "$root/etc/fstab"
echo pincer > "$root/etc/hostname"
printf '127.0.0.1 localhost\\n127.0.1.1 pincer\\n' > "$root/etc/hosts"
: > "$root/etc/machine-id"
`;
}
