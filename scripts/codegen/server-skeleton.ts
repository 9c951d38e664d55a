import {
  HTTP_METHODS,
  resolveLocal,
  type HttpMethod,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
  type SecurityRequirement,
} from './bundle.js';

/** The three headers of a write request (spec §5): an operation has all of them or none. */
export const WRITE_HEADERS = ['Idempotency-Key', 'X-Partner-Request-Timestamp', 'X-Partner-Signature'] as const;

/** The facts about one operation that the route table carries. */
export interface OperationInfo {
  readonly operationId: string;
  readonly method: HttpMethod;
  readonly path: string;
  readonly expressPath: string;
  readonly tag: string;
  readonly authenticated: boolean;
  readonly scopes: readonly string[];
  readonly writeHeaders: boolean;
  readonly headerNames: readonly string[];
  readonly hasPathParameters: boolean;
  readonly hasQueryParameters: boolean;
  readonly requestContentTypes: readonly string[];
}

/** Reads every operation of the document, in document order, and checks what the skeleton relies on. */
export function collectOperations(document: OpenApiDocument): OperationInfo[] {
  const operations: OperationInfo[] = [];
  const seen = new Set<string>();
  for (const [path, pathItem] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (operation === undefined) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const operationId = operation.operationId;
      if (operationId === undefined || !/^[a-z][A-Za-z0-9]*$/.test(operationId)) {
        throw new Error(`${where}: every operation needs a camelCase operationId (got ${String(operationId)})`);
      }
      if (seen.has(operationId)) throw new Error(`${where}: operationId ${operationId} is used twice`);
      seen.add(operationId);
      const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) =>
        resolveLocal<ParameterObject>(document, parameter),
      );
      const headerNames = parameters.filter((p) => p.in === 'header').map((p) => p.name);
      const writeCount = WRITE_HEADERS.filter((name) => headerNames.includes(name)).length;
      if (writeCount !== 0 && writeCount !== WRITE_HEADERS.length) {
        throw new Error(`${where}: a write operation declares all of ${WRITE_HEADERS.join(', ')}, not some`);
      }
      const { authenticated, scopes } = securityOf(where, operation.security ?? document.security ?? []);
      const requestBody = operation.requestBody === undefined ? undefined : resolveLocal(document, operation.requestBody);
      operations.push({
        operationId,
        method,
        path,
        expressPath: path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1'),
        tag: operation.tags?.[0] ?? '',
        authenticated,
        scopes,
        writeHeaders: writeCount === WRITE_HEADERS.length,
        headerNames,
        hasPathParameters: parameters.some((p) => p.in === 'path'),
        hasQueryParameters: parameters.some((p) => p.in === 'query'),
        requestContentTypes: Object.keys(requestBody?.content ?? {}),
      });
    }
  }
  return operations;
}

function securityOf(
  where: string,
  security: readonly SecurityRequirement[],
): { authenticated: boolean; scopes: readonly string[] } {
  if (security.length === 0) return { authenticated: false, scopes: [] };
  if (security.length > 1) {
    throw new Error(`${where}: alternative security requirements are not supported by the route table`);
  }
  const requirement = security[0] ?? {};
  const schemes = Object.keys(requirement);
  if (schemes.length === 0) return { authenticated: false, scopes: [] };
  if (schemes.length > 1) throw new Error(`${where}: one security scheme per operation is supported`);
  return { authenticated: true, scopes: [...(requirement[schemes[0] ?? ''] ?? [])] };
}

const q = (value: string): string => JSON.stringify(value);

/** The typed server skeleton: handler types, the route table and the function that mounts them. */
export function renderServerSkeleton(operations: readonly OperationInfo[], header: string): string {
  const routeEntries = operations.map(
    (op) => `  ${op.operationId}: {
    operationId: ${q(op.operationId)},
    method: ${q(op.method)},
    path: ${q(op.path)},
    expressPath: ${q(op.expressPath)},
    tag: ${q(op.tag)},
    authenticated: ${op.authenticated},
    scopes: [${op.scopes.map(q).join(', ')}],
    writeHeaders: ${op.writeHeaders},
    requestContentTypes: [${op.requestContentTypes.map(q).join(', ')}],
  },`,
  );
  const mounts = operations.map((op) => {
    const id = op.operationId;
    const input = `OperationInput<${q(id)}>`;
    const headers =
      op.headerNames.length === 0
        ? '{}'
        : `{ ${op.headerNames.map((name) => `${q(name)}: req.headers[${q(name.toLowerCase())}]`).join(', ')} }`;
    const body = op.requestContentTypes.length === 0 ? 'undefined' : 'req.body';
    return `  router.${op.method}(${q(op.expressPath)}, ...before(routes.${id}), (req, res, next) => {
    const input = {
      path: ${op.hasPathParameters ? 'req.params' : '{}'},
      query: ${op.hasQueryParameters ? 'req.query' : '{}'},
      headers: ${headers},
      body: ${body},
    } as unknown as ${input};
    invoke(routes.${id}, req, res, (ctx) => handlers.${id}(input, ctx)).catch(next);
  });`;
  });

  return `${header}
import type { IRouter, Request, RequestHandler, Response } from 'express';
import type { operations } from './openapi-types.js';

/** The operationIds of the document. */
export type OperationId = keyof operations;

type Defined<T> = Exclude<T, undefined>;
type Empty = Record<string, never>;
type ParametersIn<K extends OperationId, In extends 'path' | 'query' | 'header'> = [
  Defined<operations[K]['parameters'][In]>,
] extends [never]
  ? Empty
  : Defined<operations[K]['parameters'][In]>;
type RequestBodyOf<K extends OperationId> = [Defined<operations[K]['requestBody']>] extends [never]
  ? undefined
  : Defined<operations[K]['requestBody']> extends { content: infer C }
    ? C[keyof C]
    : never;
type ResponsesOf<K extends OperationId> = operations[K]['responses'];
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : undefined;
type ResultFor<S, B> = [B] extends [undefined]
  ? { readonly status: S; readonly body?: undefined; readonly headers?: ResponseHeaders }
  : { readonly status: S; readonly body: B; readonly headers?: ResponseHeaders };

/** Response headers a handler sets besides those the HTTP layer adds (X-Request-Id, Idempotent-Replayed). */
export type ResponseHeaders = Readonly<Record<string, string>>;

/** What a handler receives: the validated path parameters, query, declared headers and body. */
export interface OperationInput<K extends OperationId> {
  readonly path: ParametersIn<K, 'path'>;
  readonly query: ParametersIn<K, 'query'>;
  readonly headers: ParametersIn<K, 'header'>;
  readonly body: RequestBodyOf<K>;
}

/** What a handler returns: exactly one of the responses the document declares for the operation. */
export type OperationResult<K extends OperationId> = {
  [S in keyof ResponsesOf<K>]: ResultFor<S, ContentOf<ResponsesOf<K>[S]>>;
}[keyof ResponsesOf<K>];

export type OperationHandler<K extends OperationId, Ctx> = (
  input: OperationInput<K>,
  ctx: Ctx,
) => Promise<OperationResult<K>>;

/** One handler per operation: a missing one, an undeclared status or a wrong body does not compile. */
export type Handlers<Ctx> = { readonly [K in OperationId]: OperationHandler<K, Ctx> };

export interface RouteDefinition {
  readonly operationId: OperationId;
  readonly method: 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
  /** The path as the document writes it. */
  readonly path: string;
  readonly expressPath: string;
  readonly tag: string;
  /** Whether a bearer token is required (false where the document says \`security: []\`). */
  readonly authenticated: boolean;
  /** The OAuth 2.0 scopes the operation requires. */
  readonly scopes: readonly string[];
  /** Whether the write-request headers apply: Idempotency-Key, X-Partner-Request-Timestamp, X-Partner-Signature. */
  readonly writeHeaders: boolean;
  readonly requestContentTypes: readonly string[];
}

/** The route table, in document order. */
export const routes: { readonly [K in OperationId]: RouteDefinition & { readonly operationId: K } } = {
${routeEntries.join('\n')}
};

export const routeList: readonly RouteDefinition[] = Object.values(routes);

export interface AnyOperationResult {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: ResponseHeaders;
}

/**
 * Runs one operation for a request: builds the handler's context, calls \`run\`, and sends the result.
 * The HTTP layer supplies it, so transactions, idempotency and response writing live in one place.
 */
export type Invoke<Ctx> = (
  route: RouteDefinition,
  req: Request,
  res: Response,
  run: (ctx: Ctx) => Promise<AnyOperationResult>,
) => Promise<void>;

/**
 * Mounts every operation of the document on \`router\` (an Express app or router), each behind the
 * middleware \`before\` gives for its route (authentication, validation: the HTTP layer decides);
 * the handler runs last.
 */
export function mountOperations<Ctx>(
  router: IRouter,
  handlers: Handlers<Ctx>,
  invoke: Invoke<Ctx>,
  before: (route: RouteDefinition) => readonly RequestHandler[] = () => [],
): void {
${mounts.join('\n')}
}
`;
}
