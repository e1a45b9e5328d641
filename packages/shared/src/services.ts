import type * as grpc from "@grpc/grpc-js";
import type { MethodDefinition } from "@grpc/proto-loader";
import { loadProtocol, type PincerProto } from "./protoLoader.js";

/**
 * The services of the wire contract as types, inferred from the generated code: which services
 * exist, their methods, each method's request and response types and whether it streams. Both the
 * controller's promise client and the daemon's handler helper are built on these, so a method
 * path, a request type or a streaming kind is never written by hand.
 */

type V1 = PincerProto["pincer"]["v1"];

/** The short names of the `pincer.v1` services: "Input", "Screen", "System", "Files", "Process", "Accessibility". */
export type ServiceName = { [K in keyof V1]: V1[K] extends { service: grpc.ServiceDefinition } ? K : never }[keyof V1] & string;

/** The generated client interface of a service. */
export type ServiceClient<S extends ServiceName> = V1[S] extends new (...args: never[]) => infer C ? C : never;

/** The generated definition of a service: method name → method definition. */
export type ServiceDefinitionOf<S extends ServiceName> = V1[S] extends { service: infer D } ? D : never;

/** The keys a type names, without those of an index signature (grpc.ServiceDefinition has one). */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : K]: T[K] };

/** The method names of a service, as in the .proto file ("Click", "Upload"). */
export type MethodName<S extends ServiceName> = KnownKeys<ServiceDefinitionOf<S>> & string;

type Def<S extends ServiceName, M extends MethodName<S>> = ServiceDefinitionOf<S>[M];
// `any` where a type parameter sits in both argument and return positions (serializers, stream
// writers): `unknown` there would make the conditional types below never match.
// biome-ignore lint/suspicious/noExplicitAny: see above
type Any = any;

/** What a caller may send (plain objects, optional fields). */
export type RequestOf<S extends ServiceName, M extends MethodName<S>> = Def<S, M> extends MethodDefinition<infer Req, Any, Any, Any> ? Req : never;
/** What a handler receives (every field present, defaults filled in). */
export type RequestOutputOf<S extends ServiceName, M extends MethodName<S>> = Def<S, M> extends MethodDefinition<Any, Any, infer ReqOut, Any> ? ReqOut : never;
/** What a handler may answer. */
export type ResponseOf<S extends ServiceName, M extends MethodName<S>> = Def<S, M> extends MethodDefinition<Any, infer Res, Any, Any> ? Res : never;
/** What a caller receives. */
export type ResponseOutputOf<S extends ServiceName, M extends MethodName<S>> = Def<S, M> extends MethodDefinition<Any, Any, Any, infer ResOut> ? ResOut : never;

/** How a method streams. Pincer has no bidirectional methods. */
export type MethodKind = "unary" | "serverStream" | "clientStream";

type LastReturn<F> = F extends (...args: never[]) => infer R ? R : never;

/**
 * A method's kind, read from what the generated client returns for it: a readable stream for
 * server streaming, a writable one for client streaming, a unary call otherwise.
 */
export type KindOf<S extends ServiceName, M extends MethodName<S>> =
  LastReturn<ServiceClient<S>[M & keyof ServiceClient<S>]> extends grpc.ClientReadableStream<Any>
    ? "serverStream"
    : LastReturn<ServiceClient<S>[M & keyof ServiceClient<S>]> extends grpc.ClientWritableStream<Any>
      ? "clientStream"
      : "unary";

/** A method's runtime definition, with its path ("/pincer.v1.Input/Click") and (de)serializers. */
export type RuntimeMethod = MethodDefinition<Any, Any, Any, Any>;

/** The runtime definition of a service (the same object grpc-js registers and calls through). */
export function serviceDefinition<S extends ServiceName>(name: S): ServiceDefinitionOf<S> & Record<string, RuntimeMethod> {
  const ctor = loadProtocol().grpcObject.pincer.v1[name] as unknown as { service: ServiceDefinitionOf<S> & Record<string, RuntimeMethod> };
  return ctor.service;
}

/** The services of the contract the controller serves (`pincer serve`), not the daemon. */
const CONTROLLER_SERVICES: readonly string[] = ["Episodes"];

/**
 * Every service of the contract the daemon serves, by short name, in the order the proto files
 * list them: all but Episodes, which the controller serves (`pincer serve`).
 */
export function serviceNames(): ServiceName[] {
  const v1 = loadProtocol().grpcObject.pincer.v1 as unknown as Record<string, unknown>;
  const names = Object.keys(v1).filter((k) => typeof v1[k] === "function" && "service" in (v1[k] as object));
  return names.filter((n) => !CONTROLLER_SERVICES.includes(n)) as ServiceName[];
}

/** The fully qualified name of a service ("pincer.v1.Input"), as health checks and reflection use it. */
export function fullServiceName(name: ServiceName): string {
  return `pincer.v1.${name}`;
}

/** The kind of a method at run time, from its definition. */
export function methodKind(def: RuntimeMethod): MethodKind {
  if (def.requestStream && def.responseStream) throw new Error(`${def.path}: bidirectional methods are not supported`);
  return def.requestStream ? "clientStream" : def.responseStream ? "serverStream" : "unary";
}

/** "Input/Click" from "/pincer.v1.Input/Click": how logs and error messages name a method. */
export function methodLabel(def: RuntimeMethod): string {
  return def.path.replace(/^\/pincer\.v1\./, "");
}
