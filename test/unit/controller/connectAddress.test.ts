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

test("a token file that cannot be read is the caller's error, naming the file and what to give", () => {
  const err = (() => {
    try {
      connect("127.0.0.1:1", { tokenFile: "/nonexistent/pincer.token" });
    } catch (e) {
      return e;
    }
  })();
  expect(err).toBeInstanceOf(InvalidArgumentError);
  expect((err as Error).message).toBe(
    "connect: tokenFile: cannot read /nonexistent/pincer.token (ENOENT): " +
      "give the file that holds the daemon's token (pincer-daemon --token-file), or the token itself as token",
  );
});

test("a negative screenshot size is refused before anything is sent, in the caller's words (not 4294967291)", async () => {
  const env = connect("127.0.0.1:1");
  try {
    await expect(env.screen.screenshot({ maxWidth: -5 })).rejects.toThrow(
      new InvalidArgumentError("Screen/Screenshot: maxWidth must be a whole number ≥ 0, not -5 (0: no limit)"),
    );
    await expect(env.screen.screenshot({ quality: 1.5 })).rejects.toBeInstanceOf(InvalidArgumentError);
  } finally {
    env.close();
  }
});
