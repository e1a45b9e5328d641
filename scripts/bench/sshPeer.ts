import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface SshPeer {
  /** ssh arguments that reach this server: -p PORT -i KEY ... user@127.0.0.1 */
  sshArgs: string[];
  scpArgs: string[];
  target: string;
  /** Same, reusing one master connection (ControlMaster). */
  sshMuxArgs: string[];
  close(): Promise<void>;
}

/** A port free on 127.0.0.1 right now, for a peer server to listen on. */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/**
 * A private sshd on 127.0.0.1 with key authentication, for comparing against ssh/scp in the
 * same run. Returns undefined (and says why) when sshd is not installed.
 */
export async function startSshPeer(): Promise<SshPeer | undefined> {
  if (!existsSync("/usr/sbin/sshd")) {
    console.log("ssh/scp comparison skipped: sshd is not installed (bash scripts/install-system-deps.sh bench)");
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), "pincer-sshd-"));
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "host")]);
  await run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", join(dir, "client")]);
  const authorized = join(dir, "authorized_keys");
  await run("cp", [join(dir, "client.pub"), authorized]);
  mkdirSync("/run/sshd", { recursive: true });
  const port = await freePort();
  const user = userInfo().username;
  writeFileSync(
    join(dir, "sshd_config"),
    `${[
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${join(dir, "host")}`,
      `AuthorizedKeysFile ${authorized}`,
      "PasswordAuthentication no",
      "PermitRootLogin prohibit-password",
      "StrictModes no",
      "UsePAM no",
      `PidFile ${join(dir, "sshd.pid")}`,
      "Subsystem sftp internal-sftp",
    ].join("\n")}\n`,
  );
  const sshd: ChildProcess = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", join(dir, "sshd_config")], { stdio: "ignore" });
  const common = [
    "-i",
    join(dir, "client"),
    "-o",
    "StrictHostKeyChecking=no",
    "-o",
    `UserKnownHostsFile=${join(dir, "known")}`,
    "-o",
    "LogLevel=ERROR",
    "-o",
    "BatchMode=yes",
  ];
  const target = `${user}@127.0.0.1`;
  const sshArgs = ["-p", String(port), ...common];
  const mux = ["-o", "ControlMaster=auto", "-o", `ControlPath=${join(dir, "mux-%r@%h:%p")}`, "-o", "ControlPersist=60"];
  const close = async () => {
    await run("ssh", [...sshArgs, ...mux, "-O", "exit", target]).catch(() => undefined);
    sshd.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  };
  const refused = await firstLogin(sshArgs, target);
  if (refused) {
    console.log(`ssh/scp comparison skipped: ${refused}`);
    await close();
    return undefined;
  }
  return {
    sshArgs,
    scpArgs: ["-P", String(port), ...common],
    target,
    sshMuxArgs: [...sshArgs, ...mux],
    close,
  };
}

const LOGIN_TIMEOUT_MS = 5_000;

/**
 * Waits until the private sshd lets `target` in; undefined then, else why not. A login that does not
 * finish in time (a login shell whose startup files are slow or wait on a lock) is not waited for
 * again: every ssh measurement would take as long, and the bench would seem to hang.
 */
async function firstLogin(sshArgs: string[], target: string): Promise<string | undefined> {
  let last = "";
  for (let i = 0; i < 50; i++) {
    try {
      await run("ssh", [...sshArgs, target, "true"], { timeout: LOGIN_TIMEOUT_MS });
      return undefined;
    } catch (err) {
      const e = err as { killed?: boolean; stderr?: string; message: string };
      if (e.killed) {
        return (
          `a login to the private sshd (ssh ${[...sshArgs, target].join(" ")} true) did not finish within ${LOGIN_TIMEOUT_MS / 1000} s: ` +
          `${target.split("@")[0]}'s login shell may be slow to start (its ~/.bashrc, or a lock it waits on)`
        );
      }
      last = (e.stderr || e.message).trim();
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return `the private sshd did not let a login in within 50 tries: ${last}`;
}
