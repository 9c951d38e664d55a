import { readFileSync } from 'node:fs';
import addFormatsModule, { type FormatName } from 'ajv-formats';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { namingIntendedBranch } from './branch-errors.js';
import { RESPONSE_VALIDATED } from './send-result.js';

/**
 * Request and response validation of an Express server against its OpenAPI document, by
 * express-openapi-validator: the one place it is configured, for any document. It knows nothing
 * of the service that mounts it.
 *
 * The validator's middleware comes in two parts, mounted at two places:
 * - `routing`, once on the app before any route: finds the request's operation (404 for a path the
 *   document does not have, 405 with `Allow` for a method it does not declare on the path) and,
 *   when responses are checked, watches every response to a documented operation, including the
 *   responses of middleware that runs before the operation's own checks (authentication);
 * - `operation`, on each operation's route after whatever must come first (authentication, body
 *   parsing): checks the path, query and header parameters and the body.
 */

export interface OpenApiValidationOptions {
  /** The bundled document, as a file path (the validator's 3.1 typings take no parsed object). */
  readonly apiSpec: string;
  /** Check every JSON response's status, body and declared headers (development and tests). */
  readonly validateResponses: boolean;
  /** Paths the server serves outside the document (health endpoints): neither 404 nor validated. */
  readonly ignorePaths?: RegExp;
  /**
   * Security checked by the validator, one handler per security scheme of the document (it checks
   * that an API key or an Authorization header of the scheme is there, then asks the handler). A
   * server that authenticates on its own leaves this out.
   */
  readonly securityHandlers?: Readonly<Record<string, SecurityHandler>>;
  /** Parse `multipart/form-data` bodies (the validator's upload parser): only for documents that take them. */
  readonly multipart?: boolean;
}

/** Whether a request satisfies one security scheme, given the scopes the operation asks of it. */
export type SecurityHandler = (
  req: Request,
  scopes: readonly string[],
  scheme: { readonly type: string },
) => boolean | Promise<boolean>;

export interface OpenApiValidation {
  readonly routing: readonly RequestHandler[];
  /** Empty unless `securityHandlers` were given. */
  readonly security: readonly RequestHandler[];
  readonly operation: readonly RequestHandler[];
}

/**
 * `format: int64` values must stay exact in JSON: JavaScript numbers hold integers exactly up to
 * 2^53 - 1, and a larger one has already been rounded by JSON.parse when it is validated. The
 * validator's own int64 accepts the whole signed 64-bit range, rounded values included.
 */
const INT64 = { type: 'number', validate: (value: number) => Number.isSafeInteger(value) } as const;

/** OpenAPI's formats the validator checks itself, besides ajv-formats' (its documentation lists them). */
const VALIDATOR_FORMATS = new Set(['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']);

const checkedFormat = (name: string): boolean => {
  if (VALIDATOR_FORMATS.has(name)) return true;
  try {
    addFormatsModule.default.get(name as FormatName);
    return true;
  } catch {
    return false;
  }
};

/**
 * The document's formats the validator does not check (`uint32`, `snowflake`), declared to it as
 * annotations: JSON Schema 2020-12 reads a format it does not know as an annotation every value
 * passes, and so does the validator's Ajv, but it also writes a warning to the console for each
 * schema with one, every time it compiles that schema. Examples are not read: their objects are
 * values, where a member named `format` is data.
 */
function annotationFormats(apiSpec: string): Record<string, true> {
  const found: Record<string, true> = {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'format' && typeof value === 'string' && !checkedFormat(value)) found[value] = true;
      else if (key !== 'example' && key !== 'examples' && key !== 'default' && key !== 'const' && key !== 'enum')
        visit(value);
    }
  };
  visit(JSON.parse(readFileSync(apiSpec, 'utf8')));
  return found;
}

/** The validator's middleware, by the names of its functions in the order it returns them. */
const ROUTING = new Set(['pathParamsMiddleware', 'metadataMiddleware', 'responseMiddleware']);
const SECURITY = new Set(['securityMiddleware']);
const OPERATION = new Set(['multipartMiddleware', 'requestMiddleware']);

export function createOpenApiValidation(options: OpenApiValidationOptions): OpenApiValidation {
  const middleware = OpenApiValidator.middleware({
    apiSpec: options.apiSpec,
    // The document is linted before it is bundled; validating it again would only cost start-up.
    validateApiSpec: false,
    validateRequests: {
      allowUnknownQueryParameters: false,
      // Parameters arrive as text and are always read as their schema's type; a JSON body must
      // carry the document's types as they are (`"amountCents": "100"` is rejected).
      coerceTypes: false,
      // Every branch of a failed oneOf/anyOf reports all its errors, so that branch-errors.ts can
      // tell the branch with the fewest from the others. Ajv meets failures in the same order
      // either way: outside a oneOf/anyOf the error reported (the first) is the same.
      allErrors: true,
    },
    validateResponses: options.validateResponses ? { allErrors: false } : false,
    // Unless handlers are given, authentication is the server's: it knows its tokens.
    validateSecurity:
      options.securityHandlers === undefined ? false : { handlers: { ...options.securityHandlers } as never },
    validateFormats: true,
    formats: { ...annotationFormats(options.apiSpec), int64: INT64 },
    // Multipart bodies only where a document has them: no upload parser per request otherwise.
    fileUploader: options.multipart === true ? {} : false,
    ...(options.ignorePaths === undefined ? {} : { ignorePaths: options.ignorePaths }),
  }) as unknown as RequestHandler[];
  const named = (names: ReadonlySet<string>): RequestHandler[] =>
    middleware.filter((handler) => names.has(handler.name));
  const unknown = middleware.filter(
    (handler) => !ROUTING.has(handler.name) && !SECURITY.has(handler.name) && !OPERATION.has(handler.name),
  );
  if (unknown.length > 0) {
    throw new Error(
      `express-openapi-validator returned middleware this module does not place: ${unknown.map((h) => h.name).join(', ')}`,
    );
  }
  // A rejection over a oneOf/anyOf names the branch the request was meant for (branch-errors.ts).
  const operation = named(OPERATION).map((handler) =>
    handler.name === 'requestMiddleware' ? namingIntendedBranch(handler, options.apiSpec) : handler,
  );
  return {
    routing: named(ROUTING),
    // With validateSecurity off its security middleware only passes the request on: not mounted.
    security: options.securityHandlers === undefined ? [] : named(SECURITY),
    operation: options.validateResponses ? [...operation, markResponseValidated] : operation,
  };
}

/** Tells sendResult that this response is validated, so that it always goes through `res.json`. */
function markResponseValidated(_req: Request, res: Response, next: NextFunction): void {
  (res.locals as { [RESPONSE_VALIDATED]?: boolean })[RESPONSE_VALIDATED] = true;
  next();
}

/** Why a request or a response was rejected, in terms a server can turn into its own error shape. */
export interface ValidationFailure {
  /** 400, 401, 403, 404, 405, 413 or 415 for a request; 500 for a response off the contract. */
  readonly status: number;
  readonly of: 'request' | 'response';
  /** Where, as `query.limit`, `body.items.0.name`, `headers.x-count` or `path.id`; undefined when not one value. */
  readonly field: string | undefined;
  /** The JSON Schema keyword that failed (`enum`, `required`, `additionalProperties`…), when one did. */
  readonly keyword: string | undefined;
  /** What is wrong, without the field. */
  readonly message: string;
  /** Headers the error response carries (`Allow` with a 405). */
  readonly headers: Readonly<Record<string, string>>;
}

interface ValidatorError {
  readonly status: number;
  readonly message: string;
  readonly errors?: ReadonlyArray<{ readonly path?: string; readonly message?: string; readonly errorCode?: string }>;
  readonly headers?: Readonly<Record<string, string>>;
}

const VALIDATOR_ERRORS = Object.values(OpenApiValidator.error);

/** The failure a validator error stands for, or undefined for any other error. */
export function validationFailureOf(error: unknown): ValidationFailure | undefined {
  if (!VALIDATOR_ERRORS.some((type) => error instanceof type)) return undefined;
  const e = error as ValidatorError;
  const first = e.errors?.[0];
  const pointer = first?.path ?? '';
  // Ajv's instance paths (`/query/limit`); a few of the validator's own checks write `.query.name`.
  const field = /^[/.](?:query|body|headers|params|cookies|response)(?:[/.]|$)/.test(pointer)
    ? pointer
        .slice(1)
        .replace(/^params/, 'path')
        .replaceAll('/', '.')
    : undefined;
  const keyword = first?.errorCode?.replace(/\.openapi\.validation$/, '');
  const message = first?.message ?? e.message;
  return {
    status: e.status,
    of: e.status >= 500 ? 'response' : 'request',
    field,
    keyword: keyword === undefined || keyword === first?.errorCode ? undefined : keyword,
    message,
    headers: e.headers ?? {},
  };
}
