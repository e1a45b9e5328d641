import { expect, test } from "vitest";
import { connect, InvalidArgumentError } from "@pincer/controller";

test("connect refuses an address without a port, saying which port the daemon uses (gRPC would dial 443)", () => {
  for (const address of ["localhost", "10.0.0.5", "[::1]", "desktop.example:"]) {
    const err = (() => {
      try {
        connect(address);
      } catch (e) {
        return e;
      }
    })();
    expect(err, address).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toMatch(/is not host:port: give the daemon's port, e\.g\. ".*:50051"/);
  }
});

test("host:port, IPv6 in brackets and gRPC's target schemes are taken as they are", () => {
  for (const address of ["localhost:50051", "10.0.0.5:1", "[::1]:50051", "unix:/run/pincer.sock", "dns:///desktop:50051"]) {
    const env = connect(address);
    expect(env.address).toBe(address);
    env.close();
  }
});
