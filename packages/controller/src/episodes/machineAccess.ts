import { createHash, randomBytes } from "node:crypto";
import * as grpc from "@grpc/grpc-js";
import { bearerToken, methodKind, type RuntimeMethod, serviceDefinition, serviceNames } from "@pincer/shared";
import type { Env } from "../env/index.js";
import { openDaemonClient } from "../env/remoteEnv.js";

/**
 * Machine access (`pincer serve --grant-machines`): each episode gets, per environment, a random
 * token that the server takes on the daemon's own services (Input, Screen, Files, Process, System,
 * Accessibility), registered on the episode server itself. A call carrying such a token is
 * forwarded, as raw bytes, to that machine's daemon with the machine's own credentials; the token
 * never reaches the daemon. A machine's daemon is often out of the client's reach (the local
 * provider's listens on a unix socket in a private folder) and its token lives as long as the
 * machine: a grant lives as long as its episode, and closing the episode cancels its calls.
 */

/** One environment's grant, as StartEpisodeResponse carries it. */
export interface MachineGrant {
  environment: string;
  address: string;
  token: string;
}

/** A forwarded call under way: `cancel(why)` cancels it at the daemon and ends it for the caller. */
type Cancel = (why: string) => void;

interface Grant {
  episodeId: string;
  environment: string;
  /** Lease renewal of the episode: a forwarded call counts as use of it. */
  touch(): void;
  client: grpc.Client;
  /** Uploads' own connection, made at the first (as RemoteEnv does: see its constructor). */
  uploads(): grpc.Client;
  calls: Set<Cancel>;
  close(): void;
}

const raw = (b: Buffer) => b;

/** What a forwarder needs of the caller's call, of any kind. */
interface CallerCall {
  getDeadline(): grpc.Deadline;
  once(event: "cancelled", listener: () => void): unknown;
  off(event: "cancelled", listener: () => void): unknown;
}
const digest = (token: string) => createHash("sha256").update(token).digest("hex");

/** The status a failed forwarded call ends with for its caller: the daemon's, trailers included. */
function statusOf(err: Partial<grpc.StatusObject>): Partial<grpc.StatusObject> {
  return { code: err.code ?? grpc.status.UNKNOWN, details: err.details ?? "", ...(err.metadata ? { metadata: err.metadata } : {}) };
}

/** The grants of a served run's episodes, and the daemon's services as forwarders to their machines. */
export class MachineAccess {
  /** The server's address, as grants name it; set once it listens. */
  address = "";
  /** Grants by the sha256 of their token: a lookup's timing says nothing of a token. */
  readonly #grants = new Map<string, Grant>();
  readonly #log: ((line: string) => void) | undefined;

  constructor(opts: { log?(line: string): void } = {}) {
    this.#log = opts.log;
  }

  /** Grants for the episode's environments (those whose machine is a daemon); `touch` renews its lease. */
  grant(episodeId: string, envs: Readonly<Record<string, Env>>, touch: () => void): MachineGrant[] {
    const grants: MachineGrant[] = [];
    for (const [environment, env] of Object.entries(envs)) {
      const client = openDaemonClient(env);
      if (!client) {
        this.#log?.(`episode ${episodeId}: ${environment} is not a daemon's machine; no grant for it`);
        continue;
      }
      let uploads: grpc.Client | undefined;
      const token = randomBytes(32).toString("hex");
      this.#grants.set(digest(token), {
        episodeId,
        environment,
        touch,
        client,
        uploads: () => (uploads ??= openDaemonClient(env) ?? client),
        calls: new Set(),
        close: () => {
          client.close();
          if (uploads !== client) uploads?.close();
        },
      });
      grants.push({ environment, address: this.address, token });
    }
    return grants;
  }

  /** Revokes the episode's grants: their tokens stop working and their calls under way are cancelled. */
  revoke(episodeId: string, why: string): void {
    for (const [key, g] of this.#grants) {
      if (g.episodeId !== episodeId) continue;
      this.#grants.delete(key);
      const message = `episode ${episodeId} closed (${why}): its grant of ${g.environment} was revoked`;
      for (const cancel of [...g.calls]) cancel(message);
      g.close();
    }
  }

  /** Revokes every grant (the server stops). */
  revokeAll(why: string): void {
    for (const id of new Set([...this.#grants.values()].map((g) => g.episodeId))) this.revoke(id, why);
  }

  /** Registers every service of the daemon on `server`, each method forwarding to the machine of the call's grant. */
  addTo(server: grpc.Server): void {
    for (const name of serviceNames()) {
      const definition: Record<string, grpc.MethodDefinition<Buffer, Buffer>> = {};
      const implementation: grpc.UntypedServiceImplementation = {};
      for (const [method, def] of Object.entries(serviceDefinition(name) as Record<string, RuntimeMethod>)) {
        definition[method] = {
          path: def.path,
          requestStream: def.requestStream,
          responseStream: def.responseStream,
          requestSerialize: raw,
          requestDeserialize: raw,
          responseSerialize: raw,
          responseDeserialize: raw,
        };
        const kind = methodKind(def);
        implementation[method] = kind === "unary" ? this.#unary(def) : kind === "serverStream" ? this.#serverStream(def) : this.#clientStream(def);
      }
      server.addService(definition, implementation);
    }
  }

  /** The grant a call's `authorization: Bearer <token>` names, or why there is none. */
  #grantOf(metadata: grpc.Metadata): Grant | Partial<grpc.StatusObject> {
    const token = bearerToken(metadata);
    const grant = token === undefined ? undefined : this.#grants.get(digest(token));
    if (grant) {
      grant.touch();
      return grant;
    }
    if (token !== undefined) {
      const details = "the machine grant's token is unknown or revoked (a grant ends when its episode closes): use the machines[].token of an open episode";
      return { code: grpc.status.UNAUTHENTICATED, details };
    }
    const details =
      "a machine's daemon on this server takes one 'authorization: Bearer <token>' of a grant (StartEpisodeResponse.machines; pincer serve --grant-machines)";
    return { code: grpc.status.UNAUTHENTICATED, details };
  }

  /**
   * Tracks a forwarded call: the caller's cancel (or deadline) cancels it at the daemon, and a
   * revocation cancels it with `why`; returns the function that stops tracking it.
   */
  #track(g: Grant, call: CallerCall, out: { cancel(): void }, onRevoke: (why: string) => void): () => void {
    const cancel: Cancel = (why) => {
      onRevoke(why);
      out.cancel();
    };
    const onCancelled = () => out.cancel();
    g.calls.add(cancel);
    call.once("cancelled", onCancelled);
    return () => {
      g.calls.delete(cancel);
      call.off("cancelled", onCancelled);
    };
  }

  /** The caller's deadline, carried to the daemon. */
  #options(call: CallerCall): grpc.CallOptions {
    return { deadline: call.getDeadline() };
  }

  #unary(def: RuntimeMethod): grpc.handleUnaryCall<Buffer, Buffer> {
    return (call, callback) => {
      const g = this.#grantOf(call.metadata);
      if (!("client" in g)) return callback(g);
      let revoked: string | undefined;
      const out = g.client.makeUnaryRequest(def.path, raw, raw, call.request, new grpc.Metadata(), this.#options(call), (err, res) => {
        stop();
        if (revoked) callback({ code: grpc.status.CANCELLED, details: revoked });
        else if (err) callback(statusOf(err));
        else callback(null, res);
      });
      const stop = this.#track(g, call, out, (why) => (revoked = why));
    };
  }

  #serverStream(def: RuntimeMethod): grpc.handleServerStreamingCall<Buffer, Buffer> {
    return (call) => {
      // grpc-js ends a server stream with the status of an 'error' event.
      const fail = (status: Partial<grpc.StatusObject>) => call.emit("error", Object.assign(new Error(status.details), status));
      const g = this.#grantOf(call.metadata);
      if (!("client" in g)) return fail(g);
      let revoked: string | undefined;
      const out = g.client.makeServerStreamRequest(def.path, raw, raw, call.request, new grpc.Metadata(), this.#options(call));
      const stop = this.#track(g, call, out, (why) => (revoked = why));
      out.on("data", (chunk: Buffer) => {
        if (call.write(chunk)) return;
        // Flow control: read the daemon no faster than the caller reads.
        out.pause();
        call.once("drain", () => out.resume());
      });
      out.on("error", () => undefined); // its status says it
      out.once("status", (status: grpc.StatusObject) => {
        stop();
        if (revoked) fail({ code: grpc.status.CANCELLED, details: revoked });
        else if (status.code !== grpc.status.OK) fail(statusOf(status));
        // Its messages still buffered go first.
        else if (out.readableEnded) call.end();
        else out.once("end", () => call.end());
      });
    };
  }

  #clientStream(def: RuntimeMethod): grpc.handleClientStreamingCall<Buffer, Buffer> {
    return (call, callback) => {
      const g = this.#grantOf(call.metadata);
      if (!("client" in g)) return callback(g);
      let revoked: string | undefined;
      const out = g.uploads().makeClientStreamRequest(def.path, raw, raw, new grpc.Metadata(), this.#options(call), (err, res) => {
        stop();
        if (revoked) callback({ code: grpc.status.CANCELLED, details: revoked });
        else if (err) callback(statusOf(err));
        else callback(null, res);
      });
      const stop = this.#track(g, call, out, (why) => (revoked = why));
      call.on("data", (chunk: Buffer) => {
        if (out.write(chunk)) return;
        call.pause();
        out.once("drain", () => call.resume());
      });
      call.once("end", () => out.end());
      call.on("error", () => out.cancel());
    };
  }
}
