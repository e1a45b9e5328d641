import { randomBytes } from "node:crypto";
import { UnavailableError } from "@pincer/shared";
import type { Env } from "../env/index.js";
import type { LiveBoard } from "../runner/liveBoard.js";
import { startVncServer, type VncServer } from "./vnc.js";

/** One machine of a slot as a VNC viewer reaches it: where, and its password. */
export interface SlotVncEntry {
  slot: number;
  env: string;
  host: string;
  port: number;
  /** Eight random characters (VNC authentication uses at most eight). */
  password: string;
}

/** The VNC servers of a run's slots (see {@link startSlotVnc}). */
export interface SlotVnc {
  entries: readonly SlotVncEntry[];
  close(): Promise<void>;
}

/**
 * The machine of `env` on `slot` of the board, whichever attempt runs there now: each call goes to
 * the machine of the current attempt, and fails (unavailable) between attempts.
 */
function slotEnv(board: LiveBoard, slot: number, env: string): Env {
  const current = (): Env => {
    const e = board.envOf(slot, env);
    if (!e) throw new UnavailableError(`slot ${slot} runs no task with a machine ${env} now`);
    return e;
  };
  const api = (name: PropertyKey) =>
    new Proxy(
      {},
      {
        get:
          (_t, method) =>
          (...args: unknown[]) => {
            const part = (current() as unknown as Record<PropertyKey, Record<PropertyKey, (...a: unknown[]) => unknown>>)[name]!;
            return part[method]!.apply(part, args);
          },
      },
    );
  return new Proxy({}, { get: (_t, name) => api(name) }) as Env;
}

/**
 * A view-only VNC server for every machine of every slot (`--vnc`): the screens of the attempts that
 * run there, one after another, on a port that stays the same for the run, each with a password of
 * its own. Viewers only watch: a person drives a machine through the live page's takeover, where
 * what they do is recorded.
 */
export async function startSlotVnc(board: LiveBoard, environments: readonly string[], host: string): Promise<SlotVnc> {
  const servers: VncServer[] = [];
  const entries: SlotVncEntry[] = [];
  try {
    for (const view of board.views()) {
      for (const env of environments) {
        const password = randomBytes(6).toString("base64url");
        const server = await startVncServer({ env: slotEnv(board, view.slot, env), password, host, viewOnly: true, name: `Pincer slot ${view.slot} ${env}` });
        servers.push(server);
        entries.push({ slot: view.slot, env, host: server.host, port: server.port, password });
      }
    }
  } catch (err) {
    await Promise.all(servers.map((s) => s.close()));
    throw err;
  }
  return { entries, close: async () => void (await Promise.all(servers.map((s) => s.close()))) };
}
