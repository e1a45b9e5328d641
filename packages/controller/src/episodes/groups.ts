import { CancelledError } from "@pincer/shared";
import type { MachineSlot } from "../machines/provider.js";
import type { SlotQueue } from "./slots.js";
import type { Res } from "./wire.js";

/** What a group needs of the episode service: the slots, a start on one of them, and a way to close an episode nobody will get. */
export interface GroupStarts {
  slots: SlotQueue;
  /** Starts an episode on `slot` (which goes back to the queue if the start fails). */
  startOn(slot: MachineSlot): Promise<Res<"StartEpisode">>;
  /** Closes an episode the client will not get. */
  discard(episode: Res<"StartEpisode">): Promise<void>;
}

/** How a group starts: `size` episodes, all at once (`together`, or `failFast`: RESOURCE_EXHAUSTED when the slots are not free) or as slots free up. */
export interface GroupShape {
  size: number;
  together: boolean;
  failFast: boolean;
}

/**
 * Starts a group's episodes and hands each to `send` as it starts (false from `send`: the client is
 * gone, and the episode is discarded). Without `together` each takes a slot as one frees up, in
 * order; with it, all take their slots at once. A start that fails ends the group: the starts that
 * wait are cancelled, the ones under way discarded, and the error thrown.
 */
export async function startGroup(starts: GroupStarts, shape: GroupShape, send: (res: Res<"StartGroup">) => boolean, signal?: AbortSignal): Promise<void> {
  const { size } = shape;
  const group = new AbortController();
  const cancel = () => group.abort();
  signal?.addEventListener("abort", cancel, { once: true });
  let remaining = size;
  const hand = async (index: number, episode: Res<"StartEpisode">) => {
    if (group.signal.aborted || !send({ index, episode, remaining: --remaining })) await starts.discard(episode);
  };
  try {
    if (shape.together) {
      const slots = await starts.slots.acquire(size, { failFast: shape.failFast, signal: group.signal });
      const started = await Promise.allSettled(slots.map((slot, i) => starts.startOn(slot).then((e) => ({ i, e }))));
      const failed = started.find((s): s is PromiseRejectedResult => s.status === "rejected");
      const ok = started.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
      if (failed || group.signal.aborted) {
        // All or none: the ones that started are discarded.
        await Promise.all(ok.map(({ e }) => starts.discard(e)));
        throw failed ? failed.reason : new CancelledError("the group's stream was cancelled");
      }
      for (const { i, e } of ok) await hand(i, e);
      return;
    }
    // One slot each, asked for now so that the group keeps its place before later starts.
    const members = Array.from({ length: size }, (_, i) =>
      starts.slots
        .acquire(1, { failFast: false, signal: group.signal })
        .then(([slot]) => starts.startOn(slot!))
        .then((episode) => hand(i, episode)),
    );
    const settled = await Promise.allSettled(
      members.map((m) =>
        m.catch((err: unknown) => {
          group.abort();
          throw err;
        }),
      ),
    );
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected" && !(s.reason instanceof CancelledError));
    if (failed) throw failed.reason;
    if (settled.some((s) => s.status === "rejected")) throw new CancelledError("the group's stream was cancelled");
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
}
