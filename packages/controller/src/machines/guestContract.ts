/**
 * What a machine made from a Pincer image and the providers that start it agree on: where the
 * daemon listens, where its token is found, and how a VM's kernel is booted. The image recipe
 * (images/guestFiles.ts) writes the guest side; the container and qemu providers use the host side.
 */

/** The daemon's port inside every machine made from an image. */
export const GUEST_PORT = 50051;
/** Where a machine's token is found at start (mounted into a container, copied from fw_cfg in a VM). */
export const GUEST_TOKEN_FILE = "/run/pincer/token";
/** The fw_cfg entry a VM's token is passed in (`-fw_cfg name=opt/pincer/token,file=…`). */
export const FW_CFG_TOKEN = "opt/pincer/token";
/** The kernel command line a VM made from an image boots with (net.ifnames=0 keeps eth0, which the image configures). */
export const VM_APPEND = "root=/dev/vda rw console=ttyS0 net.ifnames=0 quiet";
