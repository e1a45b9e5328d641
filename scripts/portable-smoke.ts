/**
 * `npm run smoke:portable`: starts the built daemon with `--drivers portable` on this desktop and
 * checks each job once from a client: GetInfo names the portable drivers, a screenshot has the
 * screen's size, the pointer goes where it is sent, a command runs with its output, the clipboard
 * keeps text, the window list answers. Exits 1 naming what failed. For desktops the suite's X
 * witnesses cannot watch (Windows, macOS: .github/workflows/portable.yml); on Linux it needs DISPLAY.
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { connect } from "@pincer/controller";

const ROOT = resolve(import.meta.dirname, "..");
const args = [resolve(ROOT, "packages/daemon/dist/main.js"), "--port", "0", "--drivers", "portable"];
if (process.env.DISPLAY) args.push("--display", process.env.DISPLAY);
const daemon = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
const address = await new Promise<string>((res, rej) => {
  let out = "";
  daemon.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    const m = /listening on (\S+)/.exec(out);
    if (m) res(m[1]!);
  });
  daemon.once("exit", (code) => rej(new Error(`pincer-daemon exited with ${code} before listening`)));
});

const env = connect(address);
const failures: string[] = [];
async function check(name: string, body: () => Promise<string>): Promise<void> {
  try {
    console.log(`ok   ${name}: ${await body()}`);
  } catch (err) {
    failures.push(name);
    console.log(`FAIL ${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
}
const expectThat = (ok: boolean, what: string) => {
  if (!ok) throw new Error(what);
};

try {
  await env.waitUntilReady({ timeoutMs: 60_000 });
  await check("GetInfo names the portable drivers", async () => {
    const info = await env.system.info();
    expectThat(info.drivers?.set === "portable", `drivers: ${JSON.stringify(info.drivers)}`);
    return `${info.os} ${info.osRelease}, ${JSON.stringify(info.drivers)}, screen ${JSON.stringify(info.screen)}`;
  });
  await check("screenshot", async () => {
    const size = await env.screen.size();
    const shot = await env.screen.screenshot({ format: "png" });
    expectThat(shot.width === size.width && shot.height === size.height, `${shot.width}x${shot.height} for a ${size.width}x${size.height} screen`);
    return `${shot.width}x${shot.height}, ${shot.data.length} bytes`;
  });
  await check("the pointer goes where it is sent", async () => {
    await env.mouse.move({ x: 40, y: 50 });
    const at = await env.mouse.position();
    expectThat(at.x === 40 && at.y === 50, `at ${JSON.stringify(at)}`);
    return JSON.stringify(at);
  });
  await check("a command runs", async () => {
    const r = await env.process.run([process.execPath, "-e", "console.log(6 * 7)"]);
    expectThat(r.exitCode === 0 && r.stdout.trim() === "42", JSON.stringify(r));
    return `exit ${r.exitCode}, stdout ${r.stdout.trim()}`;
  });
  await check("the clipboard keeps text", async () => {
    await env.clipboard.set("pincer portable");
    const text = await env.clipboard.get();
    expectThat(text === "pincer portable", `read back ${JSON.stringify(text)}`);
    return text;
  });
  await check("the window list answers", async () => `${(await env.windows.list()).length} windows`);
} finally {
  env.close();
  daemon.kill("SIGTERM");
}
console.log(failures.length ? `${failures.length} failed: ${failures.join(", ")}` : "all passed");
process.exit(failures.length ? 1 : 0);
