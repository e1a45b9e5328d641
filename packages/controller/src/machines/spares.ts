/**
 * Machines started ahead, one per key (a slot and an environment name), so that a reset hands out
 * one that is already up instead of starting it; and the used machines being stopped behind the
 * reset instead of before it. The local and container providers keep theirs here.
 */
export class Spares<M> {
  readonly #spares = new Map<string, { made: Promise<M>; abort: AbortController }>();
  readonly #stopping = new Set<Promise<void>>();

  constructor(
    private readonly ops: {
      /** Starts a machine for `key`; `signal` aborts it while it starts. */
      start(key: string, signal: AbortSignal): Promise<M>;
      /** Whether a started spare still answers (it may have died while it waited). */
      answers(m: M): Promise<boolean>;
      /** Stops a machine and frees what it holds. */
      stop(m: M): Promise<void>;
    },
  ) {}

  /** Starts the spare of `key` unless there is one. */
  prepare(key: string): void {
    if (this.#spares.has(key)) return;
    const abort = new AbortController();
    const made = this.ops.start(key, abort.signal);
    made.catch(() => undefined);
    this.#spares.set(key, { made, abort });
  }

  /**
   * The spare of `key` (waiting for it if it is still starting), or undefined when there is none or
   * it failed or stopped answering (it is then stopped). Either way the key has no spare after.
   */
  async take(key: string): Promise<M | undefined> {
    const spare = this.#spares.get(key);
    if (!spare) return undefined;
    this.#spares.delete(key);
    const m = await spare.made.catch(() => undefined);
    if (m === undefined) return undefined;
    if (await this.ops.answers(m).catch(() => false)) return m;
    await this.ops.stop(m).catch(() => undefined);
    return undefined;
  }

  /** Makes `made` the spare of `key` (a machine being readied elsewhere); an earlier spare of the key is stopped. */
  offer(key: string, made: Promise<M>): void {
    const earlier = this.#spares.get(key);
    if (earlier)
      void earlier.made.then(
        (m) => this.retire(m),
        () => undefined,
      );
    made.catch(() => undefined);
    this.#spares.set(key, { made, abort: new AbortController() });
  }

  /** Stops `m` in the background; {@link drain} waits for it. Failures are the stop function's to report. */
  retire(m: M): void {
    const p = this.ops.stop(m).catch(() => undefined);
    this.#stopping.add(p);
    void p.finally(() => this.#stopping.delete(p));
  }

  /** Stops and forgets the spare of `key`, started or starting. */
  async drop(key: string): Promise<void> {
    const spare = this.#spares.get(key);
    if (!spare) return;
    this.#spares.delete(key);
    spare.abort.abort(new Error("the machine was released"));
    const m = await spare.made.catch(() => undefined);
    if (m !== undefined) await this.ops.stop(m);
  }

  /** Stops every spare and waits until every retired machine has stopped. */
  async drain(): Promise<void> {
    await Promise.all([...this.#spares.keys()].map((k) => this.drop(k).catch(() => undefined)));
    while (this.#stopping.size) await Promise.all([...this.#stopping]);
  }

  /** Keys that have a spare, started or starting. */
  keys(): string[] {
    return [...this.#spares.keys()];
  }
}
