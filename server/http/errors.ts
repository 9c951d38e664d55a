import type { ErrorRequestHandler, Response } from 'express';
import type { components } from '../../generated/openapi-types.js';
import type { Logger } from '../logger.js';
import { passedItsBound } from '../database/index.js';
import { validationFailureOf, type ValidationFailure } from 'contract-first/runtime';

export type ErrorType = components['schemas']['ErrorType'];
export type ErrorBody = components['schemas']['Error'];

/**
 * The error registry: every failure the HTTP layer raises, with the status and type that
 * the document's ErrorType table gives it. One place to read how the service responds when
 * something is wrong.
 */
export const ERRORS = {
  invalidRequest: { status: 400, type: 'InvalidRequest' },
  missingIdempotencyKey: { status: 400, type: 'MissingIdempotencyKey' },
  unauthorized: { status: 401, type: 'Unauthorized' },
  missingSignature: { status: 401, type: 'MissingSignature' },
  invalidSignature: { status: 401, type: 'InvalidSignature' },
  insufficientScope: { status: 403, type: 'Unauthorized' },
  /** The dashboard's error responses of a live session: another origin, no CSRF token, a viewer's write. */
  forbidden: { status: 403, type: 'Unauthorized' },
  notFound: { status: 404, type: 'NotFound' },
  methodNotAllowed: { status: 405, type: 'InvalidRequest' },
  idempotencyKeyInFlight: { status: 409, type: 'DuplicateIdempotencyKey' },
  payloadTooLarge: { status: 413, type: 'InvalidRequest' },
  unsupportedMediaType: { status: 415, type: 'InvalidRequest' },
  idempotencyKeyReused: { status: 422, type: 'DuplicateIdempotencyKey' },
  internal: { status: 500, type: 'InternalError' },
  /** A database call passed its bound (server/database/bounds.ts): the request did nothing; retry. */
  serviceUnavailable: { status: 503, type: 'InternalError' },
} as const satisfies Record<string, { status: number; type: ErrorType }>;

export type ErrorCode = keyof typeof ERRORS;

/** A failure the service responds with on purpose; anything else thrown is a bug and becomes a 500. */
export class ApiError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly details: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, options: { details?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = ERRORS[code].status;
    this.type = ERRORS[code].type;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    return this.details === undefined
      ? { message: this.message, type: this.type }
      : { message: this.message, type: this.type, details: this.details };
  }
}

/** A schema failure of the request (400): where (e.g. `body.amountCents`) and which keyword failed. */
export class RequestValidationError extends ApiError {
  constructor(
    readonly field: string | undefined,
    readonly keyword: string | undefined,
    message: string,
  ) {
    super('invalidRequest', `Invalid request: ${field === undefined ? '' : `${field} `}${message}`, {
      details: 'The operation in the API reference lists what each parameter and body field accepts.',
    });
  }
}

/** A 500: nothing of the cause (no stack, SQL or secret reaches a caller), only the request id to quote. */
export function internalError(res: Response): ApiError {
  return new ApiError('internal', 'The service failed to complete the request.', {
    details: `Quote request id ${String(res.getHeader('X-Request-Id') ?? '')} when reporting this.`,
  });
}

/** How long a client waits before retrying a request that passed its time bound. */
const RETRY_AFTER_SECONDS = 1;

/** A 503: a database call passed its bound; its transaction rolled back and nothing was stored. */
export function serviceUnavailable(): ApiError {
  return new ApiError(
    'serviceUnavailable',
    'The service could not complete the request in time; nothing was changed.',
    {
      details: 'Retry after the number of seconds in Retry-After.',
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    },
  );
}

/**
 * A path the document does not have (404), whoever finds it out. `referenceUrl`, where the server
 * serves the API reference (server/main.ts), is named in the message; without one the message
 * only says that the reference lists the paths.
 */
export function noSuchPath(referenceUrl?: string): ApiError {
  return referenceUrl === undefined
    ? new ApiError('notFound', 'No such resource path.', { details: 'Paths are listed in the API reference.' })
    : new ApiError('notFound', `No such path. The API reference is at ${referenceUrl}`);
}

const payloadTooLarge = (): ApiError => new ApiError('payloadTooLarge', 'The request body is larger than 64 KiB.');

/** A request the validator rejected, responded with the status and type the ErrorType table of the document gives. */
function fromValidationFailure(failure: ValidationFailure, referenceUrl: string | undefined): ApiError {
  switch (failure.status) {
    case 404:
      return noSuchPath(referenceUrl);
    case 405: {
      const allow = failure.headers['Allow'] ?? '';
      return new ApiError('methodNotAllowed', 'This method is not allowed on this path.', {
        details: `Allowed: ${allow}`,
        headers: { Allow: allow },
      });
    }
    case 413:
      return payloadTooLarge();
    case 415:
      return new ApiError('unsupportedMediaType', 'Unsupported Content-Type for this operation.', {
        details: `The validator says: ${failure.message}. The operation in the API reference lists the media types it takes.`,
      });
    default:
      return new RequestValidationError(failure.field, failure.keyword, failure.message);
  }
}

/** The shape of errors raised by Express and its body parsers (`status` and a `type` code). */
interface HttpLikeError {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
}

/**
 * Maps a framework error (a body parser's, or Express's for a path it cannot decode) to the
 * registry, or undefined if it is not one a client caused.
 */
function fromFrameworkError(error: unknown): ApiError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as HttpLikeError;
  const status = typeof e.status === 'number' ? e.status : typeof e.statusCode === 'number' ? e.statusCode : undefined;
  if (status === undefined || status < 400 || status >= 500) return undefined;
  if (e.type === 'entity.parse.failed') {
    return new ApiError('invalidRequest', 'The request body is not valid JSON.', {
      details: 'Send a JSON document matching the operation schema.',
    });
  }
  if (e.type === 'entity.too.large' || status === 413) return payloadTooLarge();
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported' || status === 415) {
    return new ApiError('unsupportedMediaType', 'The request body must be UTF-8 encoded JSON.');
  }
  return new ApiError('invalidRequest', 'The request is invalid.');
}

/**
 * The RFC 6749 §5.2 `error` code the token endpoint adds to a failure raised before its handler
 * ran (the createToken operation's error table): a grant type outside the enum is
 * `unsupported_grant_type`, anything else malformed `invalid_request`, a failed client
 * authentication `invalid_client`.
 */
export function oauthErrorCode(apiError: ApiError): string {
  if (apiError.status === 401) return 'invalid_client';
  const grantTypeNotAllowed =
    apiError instanceof RequestValidationError && apiError.field === 'body.grant_type' && apiError.keyword === 'enum';
  return grantTypeNotAllowed ? 'unsupported_grant_type' : 'invalid_request';
}

export interface ErrorHandlerOptions {
  readonly logger: Logger;
  /** The token endpoint's path: its errors also carry the OAuth `error` code. None for an API without one. */
  readonly tokenPath?: string;
  /** Where the API's reference is served, named by the 404 of an unknown path (noSuchPath); none when it is not served. */
  readonly referenceUrl?: string | undefined;
}

/**
 * The one error handler: our errors as they are, framework errors through the registry, anything
 * else a 500 with nothing of the cause in the body and a log line carrying the request id.
 */
export function errorHandler(options: ErrorHandlerOptions): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    // The validator's: a request it rejected, or a response off the contract (a 500, logged as such).
    const failure = error instanceof ApiError ? undefined : validationFailureOf(error);
    const offContract = failure?.of === 'response' ? failure : undefined;
    const known =
      error instanceof ApiError
        ? error
        : failure !== undefined
          ? offContract === undefined
            ? fromValidationFailure(failure, options.referenceUrl)
            : undefined
          : passedItsBound(error)
            ? serviceUnavailable()
            : fromFrameworkError(error);
    if (known?.status === 503) {
      options.logger.warn(
        { err: error, requestId: res.getHeader('X-Request-Id'), method: req.method, path: req.path },
        'a database call passed its bound',
      );
    }
    const apiError = known ?? internalError(res);
    if (known === undefined) {
      const where = { requestId: res.getHeader('X-Request-Id'), method: req.method, path: req.path };
      if (offContract === undefined) options.logger.error({ err: error, ...where }, 'unexpected error');
      else options.logger.error({ offContract, ...where }, 'response off the contract replaced by a 500');
    }
    res.set(apiError.headers);
    const body =
      options.tokenPath !== undefined && req.path === options.tokenPath && apiError.status < 500
        ? { ...apiError.toBody(), error: oauthErrorCode(apiError) }
        : apiError.toBody();
    res.status(apiError.status).json(body);
  };
}
