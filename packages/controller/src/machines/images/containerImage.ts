import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { FailedPreconditionError, InvalidArgumentError } from "@pincer/shared";
import type { DockerEngine } from "../dockerEngine.js";
import { GUEST_PORT } from "../guestContract.js";

/**
 * What a container made from an image's root filesystem runs, as Dockerfile instructions given with
 * the import (`changes`): the entrypoint as user `user` in its home, on display :0, with the
 * daemon's port. Docker and Podman's API service (4.3) both honour them.
 */
export const CONTAINER_IMAGE_CHANGES: readonly string[] = [
  "USER user",
  "WORKDIR /home/user",
  'ENTRYPOINT ["/usr/local/bin/pincer-entrypoint"]',
  "ENV DISPLAY=:0",
  `EXPOSE ${GUEST_PORT}/tcp`,
];

/** What a container does not need of the root filesystem: the VM's kernel, initrd and modules. */
const EXCLUDED = ["./boot", "./lib/modules", "./usr/lib/modules"];

/** Options of {@link importContainerImage}. */
export interface ContainerImportOptions {
  /** The image's root filesystem (a folder). */
  rootfs: string;
  /** The name to give the image, e.g. `localhost/pincer-minimal:0123456789abcdef`. */
  tag: string;
}

/** The repository and tag of a reference such as `localhost/pincer-minimal:key` (tag `latest` when none). */
function splitTag(tag: string): { repo: string; tag: string } {
  const m = /^(.+?)(?::([\w][\w.-]{0,127}))?$/.exec(tag);
  if (!m || m[1]!.includes("@") || /[A-Z\s]/.test(m[1]!))
    throw new InvalidArgumentError(`container image name ${JSON.stringify(tag)}: write repository:tag, e.g. localhost/pincer-minimal:1`);
  return { repo: m[1]!, tag: m[2] ?? "latest" };
}

/** Removes an image by id, ignoring failures: it is cleanup after another error. */
async function removeQuietly(engine: DockerEngine, id: string | undefined): Promise<void> {
  if (!id) return;
  await engine.docker
    .getImage(id)
    .remove({ force: true })
    .catch(() => undefined);
}

/**
 * Streams the image's root filesystem (`tar --numeric-owner`, without /boot and the kernel modules)
 * into the engine's image import with {@link CONTAINER_IMAGE_CHANGES}, and names the image `tag`
 * only once the import is whole: a failed tar or import leaves no image behind. Resolves to the
 * image's id.
 */
export async function importContainerImage(engine: DockerEngine, opts: ContainerImportOptions): Promise<string> {
  const { repo, tag } = splitTag(opts.tag);
  if (!existsSync(opts.rootfs)) throw new FailedPreconditionError(`cannot import ${opts.rootfs}: no such folder; build the image first (pincer image build)`);
  const tar = spawn("tar", ["-C", opts.rootfs, "--numeric-owner", "-c", ...EXCLUDED.map((e) => `--exclude=${e}`), "."], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let tarErr = "";
  tar.stderr!.on("data", (d: Buffer) => (tarErr = (tarErr + d.toString()).slice(-2000)));
  const tarDone = new Promise<number | string>((resolve) => {
    tar.once("error", (err) => resolve(err.message));
    tar.once("close", (code, signal) => resolve(code ?? signal ?? "unknown"));
  });
  let id: string | undefined;
  try {
    // No repository at import: the image is only named once tar has exited cleanly.
    const stream = await engine.docker.importImage(tar.stdout!, { changes: [...CONTAINER_IMAGE_CHANGES] });
    const events = await new Promise<Array<Record<string, unknown>>>((resolve, reject) =>
      engine.docker.modem.followProgress(stream, (err: Error | null, out: Array<Record<string, unknown>>) => (err ? reject(err) : resolve(out))),
    );
    id = events.map((e) => (typeof e.status === "string" && /^sha256:[0-9a-f]{64}$/.test(e.status) ? e.status : undefined)).findLast(Boolean);
    const failed = events.find((e) => e.error);
    if (failed) throw new Error(String(failed.error));
    const code = await tarDone;
    if (code !== 0) throw new Error(`tar -C ${opts.rootfs} exited with ${code}: ${tarErr.trim()}`);
    if (!id) throw new Error(`the engine answered without an image id: ${JSON.stringify(events).slice(0, 500)}`);
    await engine.docker.getImage(id).tag({ repo, tag });
    return id;
  } catch (err) {
    tar.kill("SIGKILL");
    await removeQuietly(engine, id);
    throw new FailedPreconditionError(`cannot import ${opts.rootfs} into ${engine.description} as ${opts.tag}: ${(err as Error).message}`);
  }
}

/** Whether the engine has an image named `tag`. */
export async function containerImageExists(engine: DockerEngine, tag: string): Promise<boolean> {
  try {
    await engine.docker.getImage(tag).inspect();
    return true;
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return false;
    throw err;
  }
}
