import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createMemoryEnv, createSystemActions, PermissionDeniedError, systemActions, UnimplementedError } from "@pincer/controller";

describe("system actions (processes and files)", () => {
  test("run_command's schema as a model sees it", () => {
    expect(systemActions.run_command.toolSchema("openai")).toMatchInlineSnapshot(`
      {
        "function": {
          "description": "Run a shell command line on the machine and wait for it to finish. A non-zero exit code is reported in the result, not as an error.",
          "name": "run_command",
          "parameters": {
            "properties": {
              "command": {
                "description": "The command line, run by /bin/sh -c",
                "minLength": 1,
                "type": "string",
              },
              "cwd": {
                "description": "Working directory on the machine",
                "minLength": 1,
                "type": "string",
              },
              "timeout_seconds": {
                "default": 60,
                "description": "Kill the command (and its children) after this many seconds",
                "maximum": 3600,
                "minimum": 1,
                "type": "number",
              },
            },
            "required": [
              "command",
            ],
            "type": "object",
          },
        },
        "type": "function",
      }
    `);
  });

  test("remote paths must be absolute, checked before anything runs", async () => {
    const r = await systemActions.download_file.safeCall({ remote_path: "notes.txt", local_path: "/tmp/x" }, { env: createMemoryEnv() });
    expect(r.ok === false && r.stage).toBe("arguments");
    expect(r.ok === false && r.error.message).toMatch(/must be an absolute path/);
  });

  test("with localRoot, local paths may not leave it", async () => {
    const root = mkdtempSync(join(tmpdir(), "pincer-local-root-"));
    try {
      mkdirSync(join(root, "t1"));
      writeFileSync(join(root, "t1", "data.csv"), "a,b\n");
      const actions = createSystemActions({ localRoot: root });
      const env = createMemoryEnv();
      const escaping = await actions.upload_file.safeCall({ local_path: "../../etc/shadow", remote_path: "/tmp/s" }, { env });
      expect(escaping.ok === false && escaping.error).toBeInstanceOf(PermissionDeniedError);
      // Inside the root the call reaches the env (which, in memory, does not model files).
      const inside = await actions.upload_file.safeCall({ local_path: "t1/data.csv", remote_path: "/tmp/d.csv" }, { env });
      expect(inside.ok === false && inside.error).toBeInstanceOf(UnimplementedError);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
