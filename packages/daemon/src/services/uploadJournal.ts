import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { processAlive } from "@pincer/shared";

/** The name of an upload's temporary file: `.<name>.pincer-<12 hex>.part`, beside its destination. */
export const PART_FILE = /^\..+\.pincer-[0-9a-f]{12}\.part$/;

/** Where the journal lives: $XDG_STATE_HOME/pincer-daemon/uploads, else ~/.local/state/…, else the temp dir. */
export function defaultJournalDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = homedir();
  const state = env.XDG_STATE_HOME || (home && home !== "/" ? join(home, ".local", "state") : join(tmpdir(), `pincer-daemon-${process.getuid?.() ?? "user"}`));
  return join(state, "pincer-daemon", "uploads");
}

/**
 * Remembers the temporary files of the uploads in progress, one small entry per upload named by
 * the daemon's pid, so that a daemon killed mid-upload (SIGKILL, power loss) does not leave them
 * behind for good: the next daemon to start removes those of daemons no longer running. Several
 * daemons of one user share the directory; each leaves the others' entries alone while they run.
 */
export class UploadJournal {
  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  /** Records a temporary file; the returned function forgets it (call once the file is gone or committed). */
  begin(tempPath: string): () => void {
    const entry = join(this.dir, `${process.pid}-${randomBytes(6).toString("hex")}`);
    try {
      writeFileSync(entry, tempPath, { mode: 0o600 });
    } catch {
      // A journal that cannot be written only costs the cleanup after a crash.
      return () => undefined;
    }
    return () => {
      try {
        unlinkSync(entry);
      } catch {
        // already gone
      }
    };
  }

  /**
   * Removes the temporary files left by daemons that are no longer running (this one counts as
   * not running: it has just started, so an entry with its pid is an older daemon's). Returns the
   * paths removed. Only files named like an upload's temporary file are touched.
   */
  sweep(): string[] {
    const removed: string[] = [];
    let entries: string[] = [];
    try {
      entries = readdirSync(this.dir);
    } catch {
      return removed;
    }
    for (const name of entries) {
      const pid = Number(name.split("-")[0]);
      if (!Number.isInteger(pid) || (pid !== process.pid && processAlive(pid))) continue;
      const entry = join(this.dir, name);
      try {
        const temp = readFileSync(entry, "utf8");
        if (PART_FILE.test(basename(temp))) {
          unlinkSync(temp);
          removed.push(temp);
        }
      } catch {
        // the temporary file is gone already, or the entry is unreadable
      }
      try {
        unlinkSync(entry);
      } catch {
        // another daemon swept it at the same time
      }
    }
    return removed;
  }
}
