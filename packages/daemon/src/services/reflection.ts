import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { echo } from "@pincer/shared";

/**
 * gRPC server reflection (grpc.reflection.v1 and v1alpha) served from the FileDescriptorSet protoc
 * built from proto/ at generation time. Each file goes out as the exact FileDescriptorProto bytes
 * protoc wrote, so clients see the .proto files as written: one descriptor per file, snake_case
 * field names with their json_name, map entries as protoc makes them, and the comments.
 */

/** A protobuf message as field number → values, in wire order (varints as numbers, the rest as bytes). */
type Fields = Map<number, (number | Buffer)[]>;

/** Decodes one level of a protobuf message: enough to walk descriptors without their schema. */
function decode(buf: Buffer): Fields {
  const out: Fields = new Map();
  let pos = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= buf.length) throw new Error("truncated descriptor");
      const b = buf[pos++]!;
      value += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return value;
    }
  };
  while (pos < buf.length) {
    const tag = varint();
    const [field, wire] = [Math.floor(tag / 8), tag & 7];
    let value: number | Buffer;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const len = varint();
      value = buf.subarray(pos, pos + len);
      pos += len;
    } else if (wire === 1 || wire === 5) {
      pos += wire === 1 ? 8 : 4;
      continue;
    } else throw new Error(`unexpected wire type ${wire} in descriptor`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const messages = (m: Fields, field: number) => (m.get(field) ?? []).filter((v): v is Buffer => Buffer.isBuffer(v));
const text = (m: Fields, field: number) => messages(m, field)[0]?.toString("utf8") ?? "";
const name = (buf: Buffer) => text(decode(buf), 1);

/** What a FileDescriptorSet defines, by name, pointing back at the serialized files. */
export class DescriptorIndex {
  /** File name → its FileDescriptorProto bytes as protoc wrote them, and its imports. */
  readonly files = new Map<string, { bytes: Buffer; dependencies: string[] }>();
  /** Fully qualified symbol (no leading dot) → the file defining it. */
  readonly symbols = new Map<string, string>();
  /** Fully qualified services, in file order. */
  readonly services: string[] = [];
  /** Message types, each with its extensions by field number → the file declaring the extension. */
  readonly messageTypes = new Map<string, Map<number, string>>();
  private readonly extensions: { extendee: string; number: number; file: string }[] = [];

  constructor(descriptorSet: Buffer) {
    for (const bytes of messages(decode(descriptorSet), 1)) {
      const file = decode(bytes);
      const fileName = text(file, 1);
      const pkg = text(file, 2);
      this.files.set(fileName, { bytes, dependencies: messages(file, 3).map((d) => d.toString("utf8")) });
      for (const m of messages(file, 4)) this.addMessage(pkg, m, fileName);
      for (const e of messages(file, 5)) this.addEnum(pkg, e, fileName);
      for (const x of messages(file, 7)) this.addExtension(pkg, x, fileName);
      for (const s of messages(file, 6)) {
        const service = this.add(pkg, name(s), fileName);
        this.services.push(service);
        for (const method of messages(decode(s), 2)) this.add(service, name(method), fileName);
      }
    }
    for (const x of this.extensions) this.messageTypes.get(x.extendee)?.set(x.number, x.file);
  }

  /** The file and everything it imports, transitively, the file first. */
  withDependencies(fileName: string): Buffer[] {
    const seen = new Set<string>();
    const visit = (f: string) => {
      if (seen.has(f) || !this.files.has(f)) return;
      seen.add(f);
      for (const d of this.files.get(f)!.dependencies) visit(d);
    };
    visit(fileName);
    return [...seen].map((f) => this.files.get(f)!.bytes);
  }

  private add(scope: string, local: string, file: string): string {
    const full = scope ? `${scope}.${local}` : local;
    this.symbols.set(full, file);
    return full;
  }

  private addMessage(scope: string, buf: Buffer, file: string): void {
    const m = decode(buf);
    const full = this.add(scope, text(m, 1), file);
    this.messageTypes.set(full, new Map());
    for (const part of [...messages(m, 2), ...messages(m, 8)]) this.add(full, name(part), file); // fields, oneofs
    for (const nested of messages(m, 3)) this.addMessage(full, nested, file);
    for (const e of messages(m, 4)) this.addEnum(full, e, file);
    for (const x of messages(m, 6)) this.addExtension(full, x, file);
  }

  /** Enum values are scoped beside their enum, as in C++. */
  private addEnum(scope: string, buf: Buffer, file: string): void {
    const e = decode(buf);
    this.add(scope, text(e, 1), file);
    for (const v of messages(e, 2)) this.add(scope, name(v), file);
  }

  private addExtension(scope: string, buf: Buffer, file: string): void {
    const x = decode(buf);
    this.add(scope, text(x, 1), file);
    this.extensions.push({ extendee: text(x, 2).replace(/^\./, ""), number: Number(x.get(3)?.[0] ?? 0), file });
  }
}

/** ServerReflectionRequest as proto-loader decodes it (keepCase, oneofs). */
interface ReflectionRequest {
  host?: string;
  message_request?: "file_by_filename" | "file_containing_symbol" | "file_containing_extension" | "all_extension_numbers_of_type" | "list_services";
  file_by_filename?: string;
  file_containing_symbol?: string;
  file_containing_extension?: { containing_type?: string; extension_number?: number };
  all_extension_numbers_of_type?: string;
  list_services?: string;
}

/** The reply to one request, without valid_host and original_request. */
export function answer(index: DescriptorIndex, req: ReflectionRequest): Record<string, unknown> {
  const notFound = (what: string) => ({ error_response: { error_code: grpc.status.NOT_FOUND, error_message: `${echo(what)} not found` } });
  const files = (file: string | undefined, what: string) =>
    file && index.files.has(file) ? { file_descriptor_response: { file_descriptor_proto: index.withDependencies(file) } } : notFound(what);
  switch (req.message_request) {
    case "list_services":
      return { list_services_response: { service: index.services.map((s) => ({ name: s })) } };
    case "file_by_filename":
      return files(req.file_by_filename, `file ${req.file_by_filename}`);
    case "file_containing_symbol": {
      const symbol = (req.file_containing_symbol ?? "").replace(/^\./, "");
      return files(index.symbols.get(symbol), `symbol ${symbol}`);
    }
    case "file_containing_extension": {
      const { containing_type = "", extension_number = 0 } = req.file_containing_extension ?? {};
      const type = containing_type.replace(/^\./, "");
      return files(index.messageTypes.get(type)?.get(extension_number), `extension ${extension_number} of ${type}`);
    }
    case "all_extension_numbers_of_type": {
      const type = (req.all_extension_numbers_of_type ?? "").replace(/^\./, "");
      const numbers = index.messageTypes.get(type);
      if (!numbers) return notFound(`message type ${type}`);
      return { all_extension_numbers_response: { base_type_name: type, extension_number: [...numbers.keys()].sort((a, b) => a - b) } };
    }
    default:
      return { error_response: { error_code: grpc.status.INVALID_ARGUMENT, error_message: "no request in ServerReflectionRequest" } };
  }
}

/** A request message that did not decode. */
class Undecodable {
  constructor(readonly reason: string) {}
}

/** Adds grpc.reflection.v1 and v1alpha ServerReflection, describing every file of `descriptorSet`. */
export function addReflection(server: grpc.Server, descriptorSet: Buffer): void {
  const index = new DescriptorIndex(descriptorSet);
  // The reflection messages' own encoding comes from their descriptors in the same set.
  const definition = protoLoader.loadFileDescriptorSetFromBuffer(descriptorSet, { keepCase: true, longs: Number, oneofs: true });
  for (const version of ["v1", "v1alpha"]) {
    const service = definition[`grpc.reflection.${version}.ServerReflection`] as grpc.ServiceDefinition | undefined;
    if (!service) throw new Error(`the descriptor set has no grpc.reflection.${version}.ServerReflection`);
    const method = service.ServerReflectionInfo!;
    const decode = method.requestDeserialize;
    // grpc-js answers a decoder that throws with INTERNAL; a request that does not decode is the client's error.
    const tolerant = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        try {
          return decode(bytes);
        } catch (err) {
          return new Undecodable(err instanceof Error ? err.message : String(err));
        }
      },
    };
    server.addService(
      { ServerReflectionInfo: tolerant },
      {
        ServerReflectionInfo: (call: grpc.ServerDuplexStream<ReflectionRequest | Undecodable, unknown>) => {
          call.on("data", (req: ReflectionRequest | Undecodable) => {
            if (req instanceof Undecodable) {
              const details = `the request is not a valid grpc.reflection.${version}.ServerReflectionRequest (${echo(req.reason)})`;
              call.emit("error", Object.assign(new Error(details), { code: grpc.status.INVALID_ARGUMENT, details }));
              return;
            }
            let reply: Record<string, unknown>;
            try {
              reply = answer(index, req);
            } catch (err) {
              reply = { error_response: { error_code: grpc.status.INTERNAL, error_message: String(err) } };
            }
            call.write({ valid_host: req.host ?? "", original_request: req, ...reply });
          });
          call.on("end", () => call.end());
          call.on("error", () => {});
        },
      },
    );
  }
}
