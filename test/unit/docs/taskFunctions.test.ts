import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { describe, expect, test } from "vitest";
import { createRegistries, defineEvaluationFunction } from "@pincer/controller/datasets";
import { functionReference } from "../../../packages/controller/src/datasets/functionReference.js";
import { ROOT } from "./markdown.js";

describe("docs/task-functions.md: every function's arguments, from its schema", () => {
  test("the committed page is what the schemas say (npm run gen:functions rewrites it)", () => {
    expect(readFileSync(join(ROOT, "docs/task-functions.md"), "utf8")).toBe(functionReference(createRegistries()));
  });

  test("every built-in function has a section with each argument its schema accepts", () => {
    const page = functionReference(createRegistries());
    const { configs, evaluations } = createRegistries();
    for (const f of [...configs.list(), ...evaluations.list()]) expect(page).toContain(`### \`${f.name}\``);
    expect(page).toMatch(/### `check_file_exists`[^#]*\| `vm_file` \| string \| required \|/);
    expect(page).toMatch(/### `upload_file_to_vm`[^#]*\| `local_path` \| string \| required \|/);
  });

  test("a change to a schema changes the page: a new argument, its default and its description show", () => {
    const extra = defineEvaluationFunction({
      name: "check_port_open",
      description: "A TCP port listens on the machine.",
      args: z.object({ port: z.number().int().min(1).max(65535).describe("the port"), host: z.string().default("127.0.0.1") }),
      run: async () => ({ score: 1, reason: "" }),
    });
    const page = functionReference(createRegistries({ evaluations: [extra] }));
    expect(page).toContain("### `check_port_open`\n\nA TCP port listens on the machine.");
    expect(page).toContain("| `port` | integer ≥ 1, ≤ 65535 | required | the port |");
    expect(page).toContain('| `host` | string | default `"127.0.0.1"` |  |');
  });
});
