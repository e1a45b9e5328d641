import type { RequestOutputOf, ResponseOf } from "@pincer/shared";

/** A method of the Episodes service. */
type Method = "ListTasks" | "StartEpisode" | "Step" | "Observe" | "Evaluate" | "CloseEpisode" | "RenewLease" | "StartGroup" | "StartRecording" | "EndRecording";

/** A request of the Episodes service, as the server receives it. */
export type Req<M extends Method> = RequestOutputOf<"Episodes", M>;
/** A response of the Episodes service. */
export type Res<M extends Method> = ResponseOf<"Episodes", M>;
