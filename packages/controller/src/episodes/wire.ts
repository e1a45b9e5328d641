import type { RequestOutputOf, ResponseOf } from "@pincer/shared";

/** A request of the Episodes service, as the server receives it. */
export type Req<M extends "ListTasks" | "StartEpisode" | "Step" | "Observe" | "Evaluate" | "CloseEpisode" | "RenewLease" | "StartGroup"> = RequestOutputOf<
  "Episodes",
  M
>;
/** A response of the Episodes service. */
export type Res<M extends "ListTasks" | "StartEpisode" | "Step" | "Observe" | "Evaluate" | "CloseEpisode" | "RenewLease" | "StartGroup"> = ResponseOf<
  "Episodes",
  M
>;
