/** Structured daemon log: one JSON object per line on stderr. */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function createLogger(opts: { quiet?: boolean; write?: (line: string) => void } = {}): Logger {
  const write = opts.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const emit = (level: string, msg: string, fields?: Record<string, unknown>) => {
    if (opts.quiet && level === "info") return;
    write(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  };
  return {
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
  };
}
