import { z } from "zod";
import { editDistance } from "@pincer/shared";

const tlsFilesSchema = z.strictObject({
  ca: z.string().optional(),
  cert: z.string().optional(),
  key: z.string().optional(),
  serverName: z.string().optional(),
});
const machineSchema = z.strictObject({
  address: z.string().regex(/^\S+:\d+$/, "write host:port, e.g. 10.0.0.5:50051"),
  tokenFile: z.string().optional(),
  tls: z.union([z.literal(true), tlsFilesSchema]).optional(),
  reset: z.string().optional(),
});
const envNameSchema = z.string().regex(/^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/, "an environment name: letters, digits, - and _");

/** A machines file: per environment name, one machine or a list of them. */
export const machinesFileSchema = z.record(envNameSchema, z.union([machineSchema, z.array(machineSchema).min(1)]));

type Path = (string | number)[];
type Problem = { path: Path; message: string };

/**
 * What is wrong in a machines file that {@link machinesFileSchema} refused, entry by entry, in
 * words. Zod reports a union that fails as "Invalid input"; here the branch is chosen by the
 * entry's shape (a list or one machine; tls true or files), so each problem is named where it is,
 * with the key meant where a key is misspelt.
 */
export function machinesFileProblems(raw: unknown): string[] {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    return [`write an object: per environment name, a machine {"address": "host:port", …} or a list of them`];
  }
  return Object.entries(raw).flatMap(([name, value]) => {
    const badName = envNameSchema.safeParse(name);
    const problems = badName.success ? machineEntryProblems(value) : [{ path: [], message: badName.error.issues[0]!.message }];
    return problems.map((p) => `${[name, ...p.path].join(".")}: ${p.message}`);
  });
}

function machineEntryProblems(value: unknown): Problem[] {
  if (!Array.isArray(value) && (typeof value !== "object" || value === null)) {
    return [{ path: [], message: `write a machine {"address": "host:port", …} or a list of them` }];
  }
  const single = machineSchema.extend({ tls: z.unknown().optional() });
  const r = (Array.isArray(value) ? z.array(single).min(1, "give at least one machine") : single).safeParse(value);
  const problems = r.success ? [] : r.error.issues.map((i) => inWords(i, Object.keys(machineSchema.shape), "a machine has"));
  for (const [i, m] of (Array.isArray(value) ? value : [value]).entries()) {
    const tls = (m as { tls?: unknown } | null)?.tls;
    if (tls === undefined || tls === true) continue;
    const at: Path = Array.isArray(value) ? [i, "tls"] : ["tls"];
    if (typeof tls !== "object" || tls === null) {
      problems.push({ path: at, message: `write true (the system's CAs) or {"ca": …, "cert": …, "key": …, "serverName": …}` });
      continue;
    }
    const t = tlsFilesSchema.safeParse(tls);
    if (!t.success) problems.push(...t.error.issues.map((x) => inWords(x, Object.keys(tlsFilesSchema.shape), "tls has", at)));
  }
  return problems;
}

/** One zod issue in words: a misspelt key with the one meant, a missing key by name. */
function inWords(issue: z.core.$ZodIssue, keys: string[], what: string, under: Path = []): Problem {
  const path = [...under, ...(issue.path as Path)];
  if (issue.code === "unrecognized_keys") {
    const named = issue.keys.map((k) => {
      const near = keys.find((m) => editDistance(k.toLowerCase(), m.toLowerCase()) <= 2);
      return `unknown key ${JSON.stringify(k)}${near ? ` (did you mean "${near}"?)` : ""}`;
    });
    return { path, message: `${named.join(", ")}; ${what} ${keys.join(", ")}` };
  }
  if (issue.code === "invalid_type" && /received undefined$/.test(issue.message))
    return { path: path.slice(0, -1), message: `${String(path.at(-1))} is missing` };
  return { path, message: issue.message };
}
