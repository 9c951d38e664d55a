import type { TLSSocket } from 'node:tls';
import cookieParser from 'cookie-parser';
import express, { type ErrorRequestHandler, type Express, type IRouter, type Request, type RequestHandler, type Response } from 'express';
import { createOpenApiValidation, validationFailureOf, type SecurityHandler } from './openapi-validation.js';
import { isJsonMediaType, sendResult } from './send-result.js';

/**
 * A server for any document, from what the generator writes for it (the route table and
 * `mountOperations` of its server.ts) and a handler for each operation: the same validation as the
 * service's (routing, security, parameters and body, and every answer in development), the body
 * parsers the operations' media types need, and answers written as the handlers return them.
 * `npm run serve` runs it on scaffolded stubs; it knows nothing of any one document.
 */

/** What this server reads of a generated route. */
export interface ContractRoute {
  readonly operationId: string;
  readonly security: ReadonlyArray<Readonly<Record<string, readonly string[]>>>;
  readonly parameters: { readonly cookie: readonly string[] };
  readonly requestContentTypes: readonly string[];
}

/** What this server reads of a generated security scheme. */
export interface ContractSecurityScheme {
  readonly type: string;
  readonly scheme?: string;
  readonly in?: string;
}

export interface ContractResult {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
}

type Invoke<R> = (route: R, req: Request, res: Response, run: (ctx: undefined) => Promise<ContractResult>) => Promise<void>;

export interface ContractServerOptions<R extends ContractRoute, H> {
  /** The bundled document (openapi.json of the generated folder). */
  readonly apiSpec: string;
  readonly routeList: readonly R[];
  readonly securitySchemes: Readonly<Record<string, ContractSecurityScheme>>;
  readonly mountOperations: (router: IRouter, handlers: H, invoke: Invoke<R>, before: (route: R) => readonly RequestHandler[]) => void;
  readonly handlers: H;
  /** Check every answer against the document (on for development and tests). */
  readonly validateResponses: boolean;
  /** Where failures that are not the client's go. */
  readonly log?: (line: string) => void;
}

/** Bodies a client may send at most. */
const BODY_LIMIT = '1mb';


/** The body parsers an operation's media types need (multipart is the validator's). */
function bodyParsers(mediaTypes: readonly string[]): RequestHandler[] {
  const types = mediaTypes.map((type) => type.split(';')[0]?.trim().toLowerCase() ?? '');
  const json = types.filter(isJsonMediaType);
  const form = types.filter((type) => type === 'application/x-www-form-urlencoded');
  const text = types.filter((type) => type.startsWith('text/'));
  const raw = types.filter((type) => !isJsonMediaType(type) && type !== 'application/x-www-form-urlencoded' && !type.startsWith('text/') && type !== 'multipart/form-data');
  return [
    // Any JSON value: a document may take a string or a number as a body, not only an object or array.
    ...(json.length > 0 ? [express.json({ type: json, limit: BODY_LIMIT, strict: false })] : []),
    ...(form.length > 0 ? [express.urlencoded({ type: form, extended: true, limit: BODY_LIMIT })] : []),
    ...(text.length > 0 ? [express.text({ type: text, limit: BODY_LIMIT })] : []),
    ...(raw.length > 0 ? [express.raw({ type: raw.map((type) => (type === '*/*' ? () => true : type)) as never, limit: BODY_LIMIT })] : []),
  ];
}

/**
 * The validator checks that an API key or an Authorization header of the scheme is there; these
 * say what else each kind of scheme needs here: a bearer token for OAuth 2.0 and OpenID Connect
 * (which the validator leaves to the server), a verified client certificate for mutual TLS.
 * Nothing is verified beyond that: this server knows no tokens.
 */
function securityHandlers(schemes: Readonly<Record<string, ContractSecurityScheme>>): Record<string, SecurityHandler> {
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
function challenges(route: ContractRoute | undefined, schemes: Readonly<Record<string, ContractSecurityScheme>>): string | undefined {
  const names = new Set((route?.security ?? []).flatMap((requirement) => Object.keys(requirement)));
  const values = new Set<string>();
  for (const name of names) {
    const scheme = schemes[name];
    if (scheme?.type === 'http' && scheme.scheme !== undefined) values.add(scheme.scheme.charAt(0).toUpperCase() + scheme.scheme.slice(1).toLowerCase());
    if (scheme?.type === 'oauth2' || scheme?.type === 'openIdConnect') values.add('Bearer');
  }
  return values.size === 0 ? undefined : [...values].join(', ');
}


interface StatusError {
  readonly status?: unknown;
  readonly operationId?: unknown;
  readonly message?: unknown;
}

export function createContractApp<R extends ContractRoute, H>(options: ContractServerOptions<R, H>): Express {
  const log = options.log ?? (() => undefined);
  const multipart = options.routeList.some((route) => route.requestContentTypes.some((type) => type.toLowerCase().startsWith('multipart/form-data')));
  const validation = createOpenApiValidation({
    apiSpec: options.apiSpec,
    validateResponses: options.validateResponses,
    securityHandlers: securityHandlers(options.securitySchemes),
    multipart,
  });
  const routeOf = new WeakMap<Request, R>();

  const app = express();
  app.set('case sensitive routing', true);
  app.set('query parser', 'simple');
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(...validation.routing);

  const invoke: Invoke<R> = async (_route, _req, res, run) => {
    sendResult(res, await run(undefined));
  };
  options.mountOperations(app, options.handlers, invoke, (route) => [
    (req, _res, next) => {
      routeOf.set(req, route);
      next();
    },
    ...(route.parameters.cookie.length > 0 || route.security.length > 0 ? [cookieParser()] : []),
    ...validation.security,
    ...bodyParsers(route.requestContentTypes),
    ...validation.operation,
  ]);

  // A refusal of this server's own (a request off the contract, a stub not written yet) is not one
  // of the document's answers: it is sent outside response validation, in a plain shape.
  const errors: ErrorRequestHandler = (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const failure = validationFailureOf(error);
    const e = (typeof error === 'object' && error !== null ? error : {}) as StatusError;
    let status: number;
    let body: Record<string, unknown>;
    if (failure !== undefined) {
      status = failure.status;
      body = { message: failure.of === 'response' ? `The answer is off the contract: ${failure.message}` : failure.message, ...(failure.field === undefined ? {} : { field: failure.field }) };
      res.set(failure.headers);
      if (failure.of === 'response') log(`answer off the contract replaced by a 500: ${req.method} ${req.path}: ${failure.message}`);
      if (status === 401) {
        const challenge = challenges(routeOf.get(req), options.securitySchemes);
        if (challenge !== undefined) res.set('WWW-Authenticate', challenge);
      }
    } else if (e.status === 501 && typeof e.operationId === 'string') {
      status = 501;
      body = { message: `${e.operationId} is not implemented yet: write its handler.` };
    } else if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      status = e.status;
      body = { message: typeof e.message === 'string' ? e.message : 'The request is invalid.' };
    } else {
      status = 500;
      body = { message: 'The handler failed.' };
      log(`unexpected error: ${req.method} ${req.path}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    }
    Object.assign(req, { openapi: undefined });
    res.status(status).json(body);
  };
  app.use(() => {
    // An operation the generator skipped (it says why when it runs): the document has it, no route serves it.
    throw Object.assign(new Error('No handler serves this request.'), { status: 404 });
  });
  app.use(errors);
  return app;
}
