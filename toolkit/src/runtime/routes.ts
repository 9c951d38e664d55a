import type { IRouter, Request, RequestHandler, Response } from 'express';
import type { AnyOperationResult } from './handler-types.js';

/**
 * What a generated server.ts says of each operation (its route table), and how its operations are
 * mounted on Express, for any document.
 */

/** One way to satisfy an operation's security: every scheme named, each with the scopes listed. `{}`: none needed. */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

export interface SecurityScheme {
  /** apiKey, http, mutualTLS, oauth2 or openIdConnect. */
  readonly type: string;
  /** For http: basic, bearer, … */
  readonly scheme?: string;
  /** For apiKey: where the key travels (query, header, cookie) and its name. */
  readonly in?: string;
  readonly name?: string;
  readonly bearerFormat?: string;
  readonly openIdConnectUrl?: string;
  /** For oauth2: the flows the document declares. */
  readonly flows?: readonly string[];
}

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

export interface RouteDefinition<Id extends string = string> {
  readonly operationId: Id;
  readonly method: HttpMethod;
  /** The path as the document writes it. */
  readonly path: string;
  /** Where Express serves the operation: the path as written, or under each base path of the document's servers. */
  readonly expressPaths: readonly string[];
  readonly tags: readonly string[];
  /**
   * The alternatives the HTTP layer enforces, any one of which must hold (`[]`: no security; an
   * alternative `{}`: security is optional). An alternative that names a scheme the document does
   * not define can never be met: the generator keeps one only when it is the operation's last.
   */
  readonly security: readonly SecurityRequirement[];
  /** The names of the operation's parameters, path-level ones included, by location. */
  readonly parameters: {
    readonly path: readonly string[];
    readonly query: readonly string[];
    readonly header: readonly string[];
    readonly cookie: readonly string[];
  };
  readonly requestContentTypes: readonly string[];
  readonly requestBodyRequired: boolean;
  /** The operation's `x-` fields, for the HTTP layer to read its own conventions from. */
  readonly extensions: Readonly<Record<string, unknown>>;
}

/**
 * Runs one operation for a request: builds the handler's context, calls `run`, and sends the result.
 * The HTTP layer supplies it, so transactions, idempotency and response writing live in one place.
 */
export type Invoke<Ctx, Route extends RouteDefinition = RouteDefinition> = (
  route: Route,
  req: Request,
  res: Response,
  run: (ctx: Ctx) => Promise<AnyOperationResult>,
) => Promise<void>;

/** A handler as the mounting code calls it: the generated `Handlers` type is what checks each one. */
type AnyHandler<Ctx> = (input: never, ctx: Ctx) => Promise<unknown>;

/** The request's cookies, as a cookie parser mounted before the operations left them. */
const cookiesOf = (req: Request): unknown => (req as { cookies?: unknown }).cookies ?? {};

const EMPTY: Readonly<Record<string, never>> = Object.freeze({});

/**
 * Mounts every route of `routeList` on `router` (an Express app or router), in its order, each
 * behind the middleware `before` gives for it (authentication, validation: the HTTP layer
 * decides); the handler of its operationId runs last, with the request's validated parts.
 */
export function mountOperations<Ctx, Route extends RouteDefinition>(
  router: IRouter,
  routeList: readonly Route[],
  handlers: { readonly [K in Route['operationId']]: AnyHandler<Ctx> },
  invoke: Invoke<Ctx, Route>,
  before: (route: Route) => readonly RequestHandler[] = () => [],
): void {
  for (const route of routeList) {
    const handler = handlers[route.operationId as Route['operationId']] as unknown as (
      input: unknown,
      ctx: Ctx,
    ) => Promise<AnyOperationResult>;
    const { path: pathNames, query, header, cookie } = route.parameters;
    // Header names as declared, each read under its lower-case name, as Node keeps them.
    const headers = header.map((name) => [name, name.toLowerCase()] as const);
    const takesBody = route.requestContentTypes.length > 0;
    const paths = route.expressPaths.length === 1 ? (route.expressPaths[0] ?? '') : [...route.expressPaths];
    router[route.method](paths, ...before(route), (req: Request, res: Response, next: (error?: unknown) => void) => {
      const input = {
        path: pathNames.length > 0 ? req.params : EMPTY,
        query: query.length > 0 ? req.query : EMPTY,
        headers:
          headers.length > 0 ? Object.fromEntries(headers.map(([name, lower]) => [name, req.headers[lower]])) : EMPTY,
        cookies: cookie.length > 0 ? cookiesOf(req) : EMPTY,
        body: takesBody ? (req.body as unknown) : undefined,
      };
      invoke(route, req, res, (ctx) => handler(input, ctx)).catch(next);
    });
  }
}
