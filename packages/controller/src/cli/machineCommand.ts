import { resolve } from "node:path";
import { type Command, InvalidArgumentError as CliArgumentError } from "commander";
import { type HostInstallOptions, type HostMode, manageHost } from "../machines/hostInstall.js";

function portOf(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new CliArgumentError(`${JSON.stringify(v)}: give a port number (1-65535)`);
  return n;
}

function collect(v: string, previous: string[] = []): string[] {
  return [...previous, v];
}

type MachineInstallFlags = Pick<
  HostInstallOptions,
  "user" | "display" | "xauthority" | "xvfb" | "listen" | "port" | "address" | "tokenFile" | "machinesFile" | "bundle" | "prefix" | "identity"
> & { name: string; sshOption: string[]; upgrade: boolean; uninstall: boolean };

/** `pincer machine install ssh://user@host`: pincer-daemon onto a Linux host over SSH, as a service. */
export function registerMachineCommand(program: Command): void {
  const machine = program.command("machine").description("machines Pincer did not make: install pincer-daemon on a Linux host over SSH");
  machine
    .command("install")
    .description(
      "install pincer-daemon (a self-contained bundle) on a Linux host over SSH as a service of its desktop user, check it, print its machines-file line",
    )
    .argument("<target>", "ssh://USER@HOST[:PORT]: root, or a user with sudo without a password; keys or an agent (never a password)")
    .option("--user <user>", "the desktop user the daemon runs as (its session's display)")
    .option("--display <display>", "that user's X display (default :0)")
    .option("--xauthority <file>", "the session's Xauthority file (default: found from the session's processes, else ~USER/.Xauthority)")
    .option("--xvfb <WxHxD>", "no desktop session: the daemon starts its own Xvfb of this size")
    .option("--listen <host>", "the interface the daemon listens on (default 0.0.0.0; the token guards it)")
    .option("--port <port>", "the daemon's port (default 50051)", portOf)
    .option("--address <host:port>", "how controllers reach it (default: the SSH host and --port)")
    .option("--token-file <file>", "where the token is kept here, mode 0600 (default ~/.config/pincer/tokens/HOST-PORT.token)")
    .option("--machines-file <file>", "add the machine to this machines file (made if missing)")
    .option("--name <env>", "the environment name it is added under", "desktop")
    .option("--bundle <dir>", "the bundle to install (default: this checkout's, built into Pincer's cache; pincer image bundle)")
    .option("--prefix <dir>", "where the bundle goes on the host (default /opt/pincer)")
    .option("-i, --identity <file>", "the SSH private key (else the agent's keys and your ssh config)")
    .option("--ssh-option <option>", "an ssh -o option, e.g. StrictHostKeyChecking=accept-new (repeatable)", collect, [] as string[])
    .option("--upgrade", "replace an installed bundle with this one and restart the service, which keeps its settings and token", false)
    .option("--uninstall", "stop and remove the service, the bundle, the config and the token (here too, with --token-file)", false)
    .action(async (target: string, o: MachineInstallFlags) => {
      if (o.upgrade && o.uninstall) throw new CliArgumentError("--upgrade and --uninstall exclude each other");
      const mode: HostMode = o.uninstall ? "uninstall" : o.upgrade ? "upgrade" : "install";
      const r = await manageHost(mode, {
        target,
        name: o.name,
        options: o.sshOption,
        ...(o.user ? { user: o.user } : {}),
        ...(o.display ? { display: o.display } : {}),
        ...(o.xauthority ? { xauthority: o.xauthority } : {}),
        ...(o.xvfb ? { xvfb: o.xvfb } : {}),
        ...(o.listen ? { listen: o.listen } : {}),
        ...(o.port ? { port: o.port } : {}),
        ...(o.address ? { address: o.address } : {}),
        ...(o.tokenFile ? { tokenFile: resolve(o.tokenFile) } : {}),
        ...(o.machinesFile ? { machinesFile: resolve(o.machinesFile) } : {}),
        ...(o.bundle ? { bundle: o.bundle } : {}),
        ...(o.prefix ? { prefix: o.prefix } : {}),
        ...(o.identity ? { identity: o.identity } : {}),
        log: (l) => process.stderr.write(`${l}\n`),
      });
      if (r.mode === "uninstall") {
        process.stdout.write(`pincer-daemon removed from ${target}:\n${(r.removed ?? []).map((l) => `  ${l}`).join("\n")}\n`);
        return;
      }
      process.stdout.write(`pincer-daemon ${r.mode === "upgrade" ? "upgraded" : "installed"} on ${target}; it answers at ${r.address} (${r.answered})\n`);
      process.stdout.write(`token: ${r.tokenFile} (mode 0600)\n`);
      process.stdout.write(`machines file line:\n  ${r.machinesLine}\n`);
      if (o.machinesFile) process.stdout.write(`added to ${o.machinesFile} as ${JSON.stringify(o.name)}\n`);
    });
}
