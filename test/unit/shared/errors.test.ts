import { status } from "@grpc/grpc-js";
import { describe, expect, test } from "vitest";
import {
  AlreadyExistsError,
  capText,
  decodeFieldViolations,
  echo,
  errorForStatus,
  fromServiceError,
  InternalError,
  InvalidArgumentError,
  MAX_ECHO_BYTES,
  MAX_STATUS_MESSAGE_BYTES,
  NotFoundError,
  PincerError,
  quoted,
  TimeoutError,
  toWireError,
  UnauthenticatedError,
  UnavailableError,
} from "@pincer/shared";

const ctx = { method: "Input/Move", address: "127.0.0.1:1" };

describe("error table", () => {
  test("typed errors keep their status and message on the wire", () => {
    const wire = toWireError(new NotFoundError("/tmp/x: no such file"), "abc");
    expect(wire).toEqual({ code: status.NOT_FOUND, details: "/tmp/x: no such file", isInternal: false });
  });

  test("anything else is INTERNAL with no detail or stack on the wire", () => {
    const err = new TypeError("Cannot read properties of undefined (reading 'x') at /srv/secret/path.js:10");
    const wire = toWireError(err, "inc123");
    expect(wire.code).toBe(status.INTERNAL);
    expect(wire.isInternal).toBe(true);
    expect(wire.details).toContain("inc123");
    expect(wire.details).not.toContain("secret");
    expect(wire.details).not.toContain("Cannot read");
  });

  test.each([
    [status.INVALID_ARGUMENT, InvalidArgumentError],
    [status.NOT_FOUND, NotFoundError],
    [status.ALREADY_EXISTS, AlreadyExistsError],
    [status.DEADLINE_EXCEEDED, TimeoutError],
    [status.UNAVAILABLE, UnavailableError],
    [status.UNAUTHENTICATED, UnauthenticatedError],
    [status.INTERNAL, InternalError],
  ])("status %i maps to its class, and back", (code, Cls) => {
    const err = errorForStatus(code, "m");
    expect(err).toBeInstanceOf(Cls);
    expect(err).toBeInstanceOf(PincerError);
    expect(err.code).toBe(code === status.UNKNOWN ? status.INTERNAL : code);
    expect(err.name).toBe(Cls.name);
  });

  test("client-side mapping names the method and gives advice", () => {
    const unavailable = fromServiceError({ code: status.UNAVAILABLE, details: "No connection established", message: "" }, ctx);
    expect(unavailable).toBeInstanceOf(UnavailableError);
    expect(unavailable.message).toMatch(/^Input\/Move: pincer-daemon at 127\.0\.0\.1:1 is unreachable/);
    const unauth = fromServiceError({ code: status.UNAUTHENTICATED, details: "bad token", message: "" }, ctx);
    expect(unauth.message).toMatch(/token/);
    const invalid = fromServiceError({ code: status.INVALID_ARGUMENT, details: "to.x: off screen", message: "" }, ctx);
    expect(invalid).toBeInstanceOf(InvalidArgumentError);
    expect(invalid.message).toBe("Input/Move: to.x: off screen");
  });
});

describe("field violations", () => {
  test("travel as a grpc-status-details-bin trailer and come back on the typed error", () => {
    const err = InvalidArgumentError.forField("max_width", "20000 is out of range");
    expect(err.message).toBe("max_width: 20000 is out of range");
    const wire = toWireError(err, "abc");
    expect(wire.metadata?.get("grpc-status-details-bin")).toHaveLength(1);
    const back = fromServiceError({ code: wire.code, details: wire.details, message: "", metadata: wire.metadata! }, ctx);
    expect(back).toBeInstanceOf(InvalidArgumentError);
    expect(back.message).toBe("Input/Move: max_width: 20000 is out of range");
    expect(back.fieldViolations).toEqual([{ field: "max_width", description: "20000 is out of range" }]);
  });

  test("a violation or a list of them, or none: then no trailer", () => {
    expect(new InvalidArgumentError("m", { field: "quality", description: "d" }).fieldViolations).toEqual([{ field: "quality", description: "d" }]);
    expect(InvalidArgumentError.forField(["dx", "dy"], "both are 0").fieldViolations.map((v) => v.field)).toEqual(["dx", "dy"]);
    const cause = new Error("x");
    const plain = new InvalidArgumentError("m", { cause });
    expect(plain.cause).toBe(cause);
    expect(plain.fieldViolations).toEqual([]);
    expect(toWireError(plain, "abc").metadata).toBeUndefined();
  });
});

describe("request text in messages is bounded", () => {
  test("echo keeps short text whole and cuts long text at a character, naming its size", () => {
    expect(echo("/tmp/x")).toBe("/tmp/x");
    expect(echo("a".repeat(MAX_ECHO_BYTES))).toBe("a".repeat(MAX_ECHO_BYTES));
    expect(echo("a".repeat(300_000))).toBe(`${"a".repeat(MAX_ECHO_BYTES)}… (300000 bytes)`);
    // "é" is 2 bytes: 255 bytes of "a" then an "é" that would straddle the cut is left out whole.
    const straddling = `${"a".repeat(MAX_ECHO_BYTES - 1)}é${"b".repeat(10)}`;
    expect(echo(straddling)).toBe(`${"a".repeat(MAX_ECHO_BYTES - 1)}… (${MAX_ECHO_BYTES + 1 + 10} bytes)`);
    // Control characters come out escaped, after the cut (128 "x\n" pairs are the 256 bytes kept).
    expect(quoted("x\n".repeat(200))).toBe(`"${"x\\n".repeat(128)}… (400 bytes)"`);
    expect(capText("😀".repeat(10), 9)).toBe("😀😀… (40 bytes)");
    // An enum value the contract does not know arrives as a number.
    expect(quoted(42)).toBe('"42"');
  });

  test("a status message and its field violations stay small whatever the error says", () => {
    const huge = "/x".repeat(150_000);
    const wire = toWireError(InvalidArgumentError.forField(["a", "b", "c", "d", "e", huge], huge), "abc");
    expect(Buffer.byteLength(wire.details)).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_BYTES + 32);
    expect(wire.details).toMatch(/… \(\d+ bytes\)$/);
    const trailer = wire.metadata!.get("grpc-status-details-bin")[0] as Buffer;
    expect(trailer.length).toBeLessThan(2 * MAX_STATUS_MESSAGE_BYTES);
    const violations = decodeFieldViolations(trailer);
    expect(violations.map((v) => v.field)).toEqual(["a", "b", "c", "d"]);
    expect(violations.every((v) => v.description.endsWith("bytes)"))).toBe(true);
  });
});
