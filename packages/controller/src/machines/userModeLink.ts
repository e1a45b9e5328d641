import { spawn } from "node:child_process";
import { FailedPreconditionError } from "@pincer/shared";

/** A running slirp4netns attached to a sandbox's network namespace. */
export interface UserModeLink {
  stop(): void;
}

/**
 * Gives the network namespace of process `pid` a user-mode link: slirp4netns makes a tap device
 * `tap0` there (10.0.2.100/24, gateway 10.0.2.2, DNS 10.0.2.3) and carries its traffic through this
 * computer's sockets (NAT), refusing 10.0.2.2's way to this computer's loopback. It stops when
 * `stop` is called, or when this process dies (the pipe it watches closes).
 */
export async function startUserModeLink(pid: number): Promise<UserModeLink> {
  const args = ["--configure", "--mtu=65520", "--disable-host-loopback", "--ready-fd=3", "--exit-fd=4", String(pid), "tap0"];
  const slirp = spawn("slirp4netns", args, { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] });
  let stderr = "";
  slirp.stderr!.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  // Held open, never written: slirp4netns exits when it closes.
  (slirp.stdio[4] as NodeJS.WritableStream).on("error", () => undefined);
  await new Promise<void>((resolve, reject) => {
    slirp.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new FailedPreconditionError(
          err.code === "ENOENT" ? "a machine with a network needs slirp4netns (apt-get install slirp4netns)" : `slirp4netns: ${err.message}`,
        ),
      ),
    );
    slirp.once("exit", (code) => reject(new FailedPreconditionError(`slirp4netns exited with ${code} before the link was up: ${stderr.trim()}`)));
    slirp.stdio[3]!.once("data", () => resolve());
  });
  return {
    stop() {
      if (slirp.exitCode === null && slirp.signalCode === null) slirp.kill("SIGTERM");
    },
  };
}
