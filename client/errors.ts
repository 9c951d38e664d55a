import type { components } from '../generated/openapi-types.js';

/** The error body of every failure (the document's Error schema). */
export type ApiErrorBody = components['schemas']['Error'];
export type ErrorType = components['schemas']['ErrorType'];

/** True for a value shaped like the service's error body (`message` and `type` strings). */
export function isApiError(value: unknown): value is ApiErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.message === 'string' && typeof record.type === 'string';
}

/**
 * Narrows an openapi-fetch `error` on its `type`:
 * `if (isErrorType(error, 'InsufficientFunds')) { ...error.message }`.
 */
export function isErrorType<E, T extends ErrorType>(
  error: E,
  type: T,
): error is Extract<E, ApiErrorBody> & { type: T } {
  return isApiError(error) && error.type === type;
}

/** The `type` of an error body, or undefined when the body is not one (a proxy's HTML page, say). */
export function errorTypeOf(error: unknown): ErrorType | undefined {
  return isApiError(error) ? (error.type as ErrorType) : undefined;
}

/**
 * Thrown only where the SDK cannot hand back `{ error, response }`: by `paginate` (an iterator
 * yields items, not results) and by `accessToken()`. Carries the status and the body, so callers
 * branch on `error.type` exactly as they would on an openapi-fetch result.
 */
export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';
  readonly status: number;
  /** The parsed error body (the service's Error shape, or text when it was not JSON). */
  readonly body: unknown;
  readonly type: ErrorType | undefined;
  /** `X-Request-Id` of the failed response: quote it to support. */
  readonly requestId: string | undefined;

  constructor(status: number, body: unknown, requestId?: string | null) {
    const type = errorTypeOf(body);
    const detail = isApiError(body)
      ? `${body.type}: ${body.message}${body.details !== undefined ? ` ${body.details}` : ''}`
      : `HTTP ${status}`;
    super(`${detail}${requestId ? ` (request id ${requestId})` : ''}`);
    this.status = status;
    this.body = body;
    this.type = type;
    this.requestId = requestId ?? undefined;
  }
}
