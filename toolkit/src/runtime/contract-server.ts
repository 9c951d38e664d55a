import type { TLSSocket } from 'node:tls';
import cookieParser from 'cookie-parser';
import { compose } from 'compose-middleware';
import express, {
  type ErrorRequestHandler,
  type Express,
  type IRouter,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import { servedElsewhere, type Mounts } from './misdirected.js';
import { createOpenApiValidation, validationFailureOf, type SecurityHandler } from './openapi-validation.js';
import { schemesWithoutVerifier, verifyingSecurityHandlers, type AnyVerifier } from './security.js';
import { errorResponsePlans } from './error-responses.js';
import { isJsonMediaType, sendResult } from './send-result.js';

/**
 * A server for any document, from what the generator writes for it (the route table and
 * `mountOperations` of its server.ts) and a handler for each operation: the same validation as the
 * service's (routing, security, parameters and body, and every response in development), the body
 * parsers the operations' media types need, and responses written as the handlers return them.
 * A project made by `npm run new-api` runs it with its handlers and its verifiers of the document's
 * security schemes; `npm run serve` runs it on scaffolded stubs, checking only that credentials
 * are there. It knows nothing of any one document.
 */

/** What this server reads of a generated route. */
export interface ContractRoute {
  readonly operationId: string;
  readonly method: string;
  /** The path as the document writes it. */
  readonly path: string;
  /** Alternatives; one that names a scheme `securitySchemes` lacks can never be met. */
  readonly security: ReadonlyArray<Readonly<Record<string, readonly string[]>>>;
  readonly parameters: { readonly cookie: readonly string[] };
  readonly requestContentTypes: readonly string[];
}

/** What this server reads of a generated security scheme. */
export interface ContractSecurityScheme {
  readonly type: string;
  readonly scheme?: string;
  readonly in?: string;
  readonly name?: string;
}

export interface ContractResult {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One of this server's own error responses: to a request off the contract, credentials missing or
 * rejected, a path or method it does not serve, a response off the contract, a handler that failed.
 */
export interface ErrorResponse {
  readonly status: number;
  /** What is wrong, in words for the client. */
  readonly message: string;
  /** The value rejected (`query.limit`, `body.items.0.name`), when it is one. */
  readonly field?: string;
  /** The operation asked for, when the request reached one. */
  readonly operationId?: string;
}

type Invoke<R, Ctx> = (
  route: R,
  req: Request,
  res: Response,
  run: (ctx: Ctx) => Promise<ContractResult>,
) => Promise<void>;

export interface ContractServerOptions<R extends ContractRoute, H, Ctx = undefined> {
  /** The bundled document (openapi.json of the generated folder). */
  readonly apiSpec: string;
  readonly routeList: readonly R[];
  readonly securitySchemes: Readonly<Record<string, ContractSecurityScheme>>;
  readonly mountOperations: (
    router: IRouter,
    handlers: H,
    invoke: Invoke<R, Ctx>,
    before: (route: R) => readonly RequestHandler[],
  ) => void;
  readonly handlers: H;
  /** What each handler receives besides its input, built for its request; `undefined` without. */
  readonly context?: (req: Request) => Ctx;
  /**
   * One verifier per security scheme (runtime/security.ts): a scheme without one, or whose
   * verifier is `notConfigured`, rejects every request that needs it. Without this option the
   * server checks only that credentials are there, as `npm run serve` does.
   */
  readonly verifiers?: Readonly<Record<string, AnyVerifier>>;
  /** Check every response against the document (on for development and tests). */
  readonly validateResponses: boolean;
  /** Where failures that are not the client's go. */
  readonly log?: (line: string) => void;
  /**
   * Where the operations are mounted and the base paths of the document's servers: a documented
   * path asked for under another base gets a 404 response that says where it is served.
   */
  readonly mounts?: Mounts;
  /**
   * The base paths of the document's servers, under which the operations are mounted (the route
   * table's): without `mounts`, a documented path asked for without its base gets a 404
   * response that says where it is served.
   */
  readonly serverBases?: readonly string[];
  /**
   * The JSON body of this server's error responses, for a project that writes its own instead of
   * the one drawn from the document (runtime/error-responses.ts: the declared schema and its
   * examples, the reason in the property meant for it). A stub not written yet still says so in words.
   */
  readonly errorResponseBody?: (errorResponse: ErrorResponse) => unknown;
}

/** Bodies a client may send at most. */
const BODY_LIMIT = '1mb';

/** The body parsers an operation's media types need (multipart is the validator's). */
function bodyParsers(mediaTypes: readonly string[]): RequestHandler[] {
  const types = mediaTypes.map((type) => type.split(';')[0]?.trim().toLowerCase() ?? '');
  const json = types.filter(isJsonMediaType);
  const form = types.filter((type) => type === 'application/x-www-form-urlencoded');
  const text = types.filter((type) => type.startsWith('text/'));
  const raw = types.filter(
    (type) =>
      !isJsonMediaType(type) &&
      type !== 'application/x-www-form-urlencoded' &&
      !type.startsWith('text/') &&
      type !== 'multipart/form-data',
  );
  return [
    // Any JSON value: a document may take a string or a number as a body, not only an object or array.
    ...(json.length > 0 ? [express.json({ type: json, limit: BODY_LIMIT, strict: false })] : []),
    ...(form.length > 0 ? [express.urlencoded({ type: form, extended: true, limit: BODY_LIMIT })] : []),
    ...(text.length > 0 ? [express.text({ type: text, limit: BODY_LIMIT })] : []),
    ...(raw.length > 0
      ? [express.raw({ type: raw.map((type) => (type === '*/*' ? () => true : type)) as never, limit: BODY_LIMIT })]
      : []),
  ];
}

/**
 * Without verifiers: the validator checks that an API key or an Authorization header of the scheme
 * is there; these say what else each kind of scheme needs here: a bearer token for OAuth 2.0 and
 * OpenID Connect (which the validator leaves to the server), a verified client certificate for
 * mutual TLS. Nothing is verified beyond that: this server knows no tokens.
 */
function presenceHandlers(schemes: Readonly<Record<string, ContractSecurityScheme>>): Record<string, SecurityHandler> {
  const bearer = (req: Request): boolean => /^Bearer \S/i.test(req.get('authorization') ?? '');
  return Object.fromEntries(
    Object.entries(schemes).map(([name, scheme]): [string, SecurityHandler] => {
      switch (scheme.type) {
        case 'oauth2':
        case 'openIdConnect':
          return [name, (req) => bearer(req)];
        case 'mutualTLS':
          return [name, (req) => (req.socket as Partial<TLSSocket>).authorized === true];
        default:
          return [name, () => true];
      }
    }),
  );
}

/** The challenge of a 401, from the schemes the operation accepts. */
function challenges(
  route: ContractRoute | undefined,
  schemes: Readonly<Record<string, ContractSecurityScheme>>,
): string | undefined {
  const names = new Set((route?.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  const values = new Set<string>();
  for (const name of names) {
    const scheme = schemes[name];
    if (scheme?.type === 'http' && scheme.scheme !== undefined)
      values.add(scheme.scheme.charAt(0).toUpperCase() + scheme.scheme.slice(1).toLowerCase());
    if (scheme?.type === 'oauth2' || scheme?.type === 'openIdConnect') values.add('Bearer');
  }
  return values.size === 0 ? undefined : [...values].join(', ');
}

/**
 * The schemes of the operation's security the document does not define, when every alternative
 * names one: no request can meet it (the generator keeps such an alternative only when the
 * operation has no other, so that it is rejected rather than open).
 */
function unmeetable(
  route: ContractRoute,
  schemes: Readonly<Record<string, ContractSecurityScheme>>,
): string[] | undefined {
  const missing = route.security.map((requirement) =>
    Object.keys(requirement).filter((name) => !Object.hasOwn(schemes, name)),
  );
  if (route.security.length === 0 || missing.some((names) => names.length === 0)) return undefined;
  return [...new Set(missing.flat())];
}

/**
 * Middleware run in turn as one Express layer: each calls the next directly, an error (passed or
 * thrown) goes to the app's error handlers. compose-middleware's types are Connect's; these are Express's.
 */
const oneLayer = (handlers: readonly RequestHandler[]): RequestHandler =>
  compose(handlers as never) as unknown as RequestHandler;

/** Whether the operation reads cookies: a cookie parameter, or an API key its security takes from a cookie. */
function readsCookies(route: ContractRoute, schemes: Readonly<Record<string, ContractSecurityScheme>>): boolean {
  return (
    route.parameters.cookie.length > 0 ||
    route.security.some((requirement) =>
      Object.keys(requirement).some((name) => schemes[name]?.type === 'apiKey' && schemes[name]?.in === 'cookie'),
    )
  );
}

interface StatusError {
  readonly status?: unknown;
  readonly operationId?: unknown;
  readonly message?: unknown;
}

export function createContractApp<R extends ContractRoute, H, Ctx>(options: ContractServerOptions<R, H, Ctx>): Express {
  const log = options.log ?? (() => undefined);
  const multipart = options.routeList.some((route) =>
    route.requestContentTypes.some((type) => type.toLowerCase().startsWith('multipart/form-data')),
  );
  const { verifiers } = options;
  if (verifiers !== undefined) {
    for (const name of schemesWithoutVerifier(options.securitySchemes, verifiers)) {
      log(
        `security scheme ${name} has no verifier (server/security.ts): every request that needs it is rejected with 401`,
      );
    }
  }
  const validation = createOpenApiValidation({
    apiSpec: options.apiSpec,
    validateResponses: options.validateResponses,
    securityHandlers:
      verifiers === undefined
        ? presenceHandlers(options.securitySchemes)
        : verifyingSecurityHandlers(options.securitySchemes, verifiers),
    multipart,
  });
  const routeOf = new WeakMap<Request, R>();
  const errorResponsePlan = errorResponsePlans(options.apiSpec, log);

  const app = express();
  app.set('case sensitive routing', true);
  app.set('query parser', 'simple');
  app.disable('x-powered-by');
  app.set('etag', false);
  // Each group of middleware is one Express layer: Express matches and enters a layer once, and the
  // group's middleware call one another directly.
  app.use(oneLayer(validation.routing));

  const contextOf = options.context ?? ((): Ctx => undefined as Ctx);
  const mounts: Mounts | undefined =
    options.mounts ??
    (options.serverBases === undefined
      ? undefined
      : {
          mountedUnder: options.serverBases,
          serverBases: options.serverBases,
          note: "this server mounts the paths under the path of the document's servers",
        });
  const invoke: Invoke<R, Ctx> = async (_route, req, res, run) => {
    sendResult(res, await run(contextOf(req)));
  };
  options.mountOperations(app, options.handlers, invoke, (route) => {
    const missing = unmeetable(route, options.securitySchemes);
    // Rejected before the validator's security, which would fail on the undefined scheme with a 500.
    const reject: RequestHandler[] =
      missing === undefined
        ? []
        : [
            () => {
              const names = missing.map((name) => JSON.stringify(name)).join(' and ');
              throw Object.assign(
                new Error(
                  `${route.method.toUpperCase()} ${route.path} rejects every request: its security names ${names}, which the document does not define`,
                ),
                { status: 403 },
              );
            },
          ];
    return [
      oneLayer([
        (req, _res, next) => {
          routeOf.set(req, route);
          next();
        },
        ...reject,
        ...(readsCookies(route, options.securitySchemes) ? [cookieParser()] : []),
        ...validation.security,
        ...bodyParsers(route.requestContentTypes),
        ...validation.operation,
      ]),
    ];
  });

  // An error response of this server's own (to a request off the contract, a stub not written yet) is
  // sent outside response validation, as the document declares it (runtime/error-responses.ts).
  const errors: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const failure = validationFailureOf(error);
    const e = (typeof error === 'object' && error !== null ? error : {}) as StatusError;
    let status: number;
    let message: string;
    let field: string | undefined;
    if (failure !== undefined) {
      status = failure.status;
      message = failure.of === 'response' ? `The response is off the contract: ${failure.message}` : failure.message;
      field = failure.field;
      res.set(failure.headers);
      if (failure.of === 'response')
        log(`response off the contract replaced by a 500: ${req.method} ${req.path}: ${failure.message}`);
      if (status === 401) {
        const challenge = challenges(routeOf.get(req), options.securitySchemes);
        if (challenge !== undefined) res.set('WWW-Authenticate', challenge);
      }
    } else if (e.status === 501 && typeof e.operationId === 'string') {
      status = 501;
      message = `${e.operationId} is not implemented yet: write its handler.`;
    } else if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      status = e.status;
      message = typeof e.message === 'string' ? e.message : 'The request is invalid.';
    } else {
      status = 500;
      message = 'The handler failed.';
      log(
        `unexpected error: ${req.method} ${req.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
    if (status === 404 && mounts !== undefined) {
      const elsewhere = servedElsewhere(options.routeList, mounts, req.method, req.path);
      if (elsewhere !== undefined) [message, field] = [elsewhere, undefined];
    }
    const route = routeOf.get(req);
    Object.assign(req, { openapi: undefined });
    // A stub not written yet says so in JSON whatever the document declares: it is not one of the
    // document's responses, and the developer needs the words.
    const stub = status === 501 && failure === undefined;
    res.status(status);
    if (stub) {
      res.type('application/json').send(JSON.stringify({ message }));
      return;
    }
    const plan = errorResponsePlan(route, status);
    for (const [name, value] of Object.entries(plan.headers)) if (res.get(name) === undefined) res.set(name, value);
    const reason = { status, message, ...(field === undefined ? {} : { field }) };
    if (plan.form.kind === 'empty') res.end();
    else if (plan.form.kind === 'text') res.type(plan.form.mediaType).send(message);
    else {
      const operation = route === undefined ? {} : { operationId: route.operationId };
      const body =
        options.errorResponseBody === undefined
          ? plan.body(reason)
          : projectBody({ ...reason, ...operation }, () => plan.body(reason));
      res.type(plan.form.mediaType).send(JSON.stringify(body));
    }
  };
  const projectBody = (errorResponse: ErrorResponse, drawn: () => unknown): unknown => {
    try {
      return options.errorResponseBody?.(errorResponse) ?? drawn();
    } catch (error) {
      // The error response still goes out, drawn from the document, and the failure is the server's to fix.
      log(`errorResponseBody failed: ${error instanceof Error ? error.message : String(error)}`);
      return drawn();
    }
  };
  app.use(() => {
    // An operation the generator skipped (it says why when it runs): the document has it, no route serves it.
    throw Object.assign(new Error('No handler serves this request.'), { status: 404 });
  });
  app.use(errors);
  return app;
}
