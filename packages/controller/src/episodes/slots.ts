import { CancelledError, InvalidArgumentError, ResourceExhaustedError } from "@pincer/shared";
import type { MachineSlot } from "../machines/provider.js";

interface Waiter {
  count: number;
  resolve(slots: MachineSlot[]): void;
  reject(err: Error): void;
}

/**
 * The pool's slots shared by episodes: a start takes free slots, in the order starts asked
 * (a group takes all of its slots at once), or waits until enough are released.
 */
export class SlotQueue {
  readonly #free: MachineSlot[];
  readonly #waiters: Waiter[] = [];
  readonly #total: number;
  #closed = false;

  constructor(slots: readonly MachineSlot[]) {
    this.#free = [...slots];
    this.#total = slots.length;
  }

  /** Free slots now. */
  get free(): number {
    return this.#free.length;
  }

  /**
   * `count` slots: at once when free and no earlier start waits; else after those earlier ones, or
   * RESOURCE_EXHAUSTED at once with `failFast`. `signal` gives up waiting (CANCELLED).
   */
  acquire(count: number, opts: { failFast: boolean; signal?: AbortSignal }): Promise<MachineSlot[]> {
    if (this.#closed) return Promise.reject(new CancelledError("the server is shutting down"));
    if (count > this.#total) {
      return Promise.reject(
        new InvalidArgumentError(`${count} episodes at once need ${count} machine slots; this server has ${this.#total} (pincer serve --concurrency)`),
      );
    }
    if (this.#waiters.length === 0 && this.#free.length >= count) return Promise.resolve(this.#free.splice(0, count));
    if (opts.failFast) {
      return Promise.reject(
        new ResourceExhaustedError(
          `no free machines: ${this.#total - this.#free.length} of ${this.#total} slot(s) in use, ${this.#waiters.length} start(s) waiting`,
        ),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { count, resolve, reject };
      this.#waiters.push(waiter);
      opts.signal?.addEventListener(
        "abort",
        () => {
          const i = this.#waiters.indexOf(waiter);
          if (i < 0) return;
          this.#waiters.splice(i, 1);
          reject(new CancelledError("the start was cancelled while it waited for machines"));
          this.#serve();
        },
        { once: true },
      );
    });
  }

  /** Gives a slot back; the first waiting starts take it. */
  release(slot: MachineSlot): void {
    this.#free.push(slot);
    this.#serve();
  }

  /** Refuses every waiting and later start. */
  close(): void {
    this.#closed = true;
    for (const w of this.#waiters.splice(0)) w.reject(new CancelledError("the server is shutting down"));
  }

  #serve(): void {
    while (this.#waiters.length > 0 && this.#free.length >= this.#waiters[0]!.count) {
      const w = this.#waiters.shift()!;
      w.resolve(this.#free.splice(0, w.count));
    }
  }
}
