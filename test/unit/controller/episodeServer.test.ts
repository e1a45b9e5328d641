import * as grpc from "@grpc/grpc-js";
import { loadProtocol, NotFoundError } from "@pincer/shared";
import { describe, expect, test } from "vitest";
import { isLoopback, startEpisodeServer } from "../../../packages/controller/src/episodes/server.js";
import type { EpisodeService } from "../../../packages/controller/src/episodes/service.js";
import { SlotQueue } from "../../../packages/controller/src/episodes/slots.js";
import type { MachineSlot } from "../../../packages/controller/src/machines/provider.js";
import { makeTestCerts } from "../../fixtures/certs.js";

const slot = (index: number) => ({ index, envs: {}, addresses: {} }) as MachineSlot;

describe("the episode server's slots", () => {
  test("starts take free slots, then wait in order; a group takes its slots at once", async () => {
    const q = new SlotQueue([slot(0), slot(1)]);
    const [a] = await q.acquire(1, { failFast: false });
    const order: string[] = [];
    const group = q.acquire(2, { failFast: false }).then((s) => order.push(`group:${s.map((x) => x.index).join(",")}`));
    const single = q.acquire(1, { failFast: false }).then((s) => order.push(`single:${s[0]!.index}`));
    // A slot is free, but the group asked first and needs two: the single start waits behind it.
    await expect(q.acquire(1, { failFast: true })).rejects.toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED });
    q.release(a!);
    await group;
    expect(order).toEqual(["group:1,0"]);
    q.release(slot(5));
    await single;
    expect(order).toEqual(["group:1,0", "single:5"]);
  });

  test("more slots than there are is INVALID_ARGUMENT; a cancelled wait leaves the queue; close refuses the rest", async () => {
    const q = new SlotQueue([slot(0)]);
    await expect(q.acquire(2, { failFast: false })).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
    const [held] = await q.acquire(1, { failFast: false });
    const ctl = new AbortController();
    const waiting = q.acquire(1, { failFast: false, signal: ctl.signal });
    ctl.abort();
    await expect(waiting).rejects.toMatchObject({ code: grpc.status.CANCELLED });
    const later = q.acquire(1, { failFast: false });
    q.release(held!);
    expect((await later)[0]!.index).toBe(0);
    const last = q.acquire(1, { failFast: false });
    q.close();
    await expect(last).rejects.toMatchObject({ code: grpc.status.CANCELLED });
  });
});

describe("the episode server's listen address and token", () => {
  test("loopback needs no token; any other address does", async () => {
    expect(["127.0.0.1:0", "localhost:5000", "[::1]:80"].map(isLoopback)).toEqual([true, true, true]);
    expect(["0.0.0.0:0", "10.0.0.2:1", "[::]:0", "example.com:1"].map(isLoopback)).toEqual([false, false, false, false]);
    await expect(startEpisodeServer({} as EpisodeService, { listen: "0.0.0.0:0" })).rejects.toThrow(/--token-file/);
  });

  test("with a token, a call without it is UNAUTHENTICATED, with it served; service errors keep their status", async () => {
    const token = "0123456789abcdef0123";
    const service = {
      listTasks: () => ({ tasks: [{ id: "t", instruction: "do it", tags: [], environments: ["desktop"], actionSpaces: ["tool_call"], maxSteps: 5 }] }),
      step: () => Promise.reject(new NotFoundError("episode_id: no episode")),
    } as unknown as EpisodeService;
    const server = await startEpisodeServer(service, { listen: "127.0.0.1:0", token });
    const Episodes = loadProtocol().grpcObject.pincer.v1.Episodes as unknown as new (
      a: string,
      c: grpc.ChannelCredentials,
    ) => grpc.Client & Record<string, (req: unknown, md: grpc.Metadata, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void>;
    const client = new Episodes(server.address, grpc.credentials.createInsecure());
    const call = (method: string, md: grpc.Metadata) =>
      new Promise<{ code: number; res?: unknown }>((res) => client[method]!({}, md, (err, r) => res(err ? { code: err.code } : { code: 0, res: r })));
    const withToken = (t: string) => {
      const md = new grpc.Metadata();
      md.set("authorization", `Bearer ${t}`);
      return md;
    };
    try {
      expect((await call("ListTasks", new grpc.Metadata())).code).toBe(grpc.status.UNAUTHENTICATED);
      expect((await call("ListTasks", withToken("wrong-token-wrong-token"))).code).toBe(grpc.status.UNAUTHENTICATED);
      const ok = await call("ListTasks", withToken(token));
      expect(ok.code).toBe(grpc.status.OK);
      expect((ok.res as { tasks: Array<{ id: string; maxSteps: number }> }).tasks[0]).toMatchObject({ id: "t", maxSteps: 5 });
      expect((await call("Step", withToken(token))).code).toBe(grpc.status.NOT_FOUND);
    } finally {
      client.close();
      await server.close();
    }
  });

  test("mutual TLS stands in for the token beyond loopback: a client with a certificate of the CA is served, others are refused", async () => {
    const certs = makeTestCerts();
    const service = { listTasks: () => ({ tasks: [] }) } as unknown as EpisodeService;
    const tls = { cert: certs.read(certs.serverCert), key: certs.read(certs.serverKey) };
    // TLS alone proves nothing about the client: beyond loopback it still needs a token.
    await expect(startEpisodeServer(service, { listen: "0.0.0.0:0", tls })).rejects.toThrow(/--token-file.*--tls-client-ca/);
    const server = await startEpisodeServer(service, { listen: "0.0.0.0:0", tls: { ...tls, clientCa: certs.read(certs.caCert) } });
    const port = server.address.split(":").at(-1);
    const Episodes = loadProtocol().grpcObject.pincer.v1.Episodes as unknown as new (
      a: string,
      c: grpc.ChannelCredentials,
    ) => grpc.Client & Record<string, (req: unknown, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null) => void) => void>;
    const listWith = async (creds: grpc.ChannelCredentials) => {
      const client = new Episodes(`localhost:${port}`, creds);
      try {
        return await new Promise<number>((res) => client.ListTasks!({}, { deadline: Date.now() + 5_000 }, (err) => res(err ? err.code : 0)));
      } finally {
        client.close();
      }
    };
    try {
      const ca = certs.read(certs.caCert);
      expect(await listWith(grpc.credentials.createSsl(ca, certs.read(certs.clientKey), certs.read(certs.clientCert)))).toBe(grpc.status.OK);
      expect(await listWith(grpc.credentials.createSsl(ca))).not.toBe(grpc.status.OK);
      expect(await listWith(grpc.credentials.createSsl(ca, certs.read(certs.otherClientKey), certs.read(certs.otherClientCert)))).not.toBe(grpc.status.OK);
      expect(await listWith(grpc.credentials.createInsecure())).not.toBe(grpc.status.OK);
    } finally {
      await server.close();
      certs.remove();
    }
  });
});
