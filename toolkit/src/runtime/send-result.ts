import type { Response } from 'express';

/** What a handler responds with, as the generated skeletons type it (`AnyOperationResult`). */
export interface OperationResultToSend {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Set on `res.locals` by the toolkit's validation (openapi-validation.ts) when it validates this
 * response: sendResult then always hands the body to `res.json`, which the validator checks.
 */
export const RESPONSE_VALIDATED: unique symbol = Symbol('response validated');

/** Bodies whose JSON text is known already (serializedAs): sent as these bytes while the response is not validated. */
const serializedBodies = new WeakMap<object, Buffer>();

/**
 * Records the JSON text a body was serialized to already (`JSON.stringify(body)`, as a stored
 * response is): the body is then sent as that text's bytes instead of being serialized again. For
 * an object body, which must not change afterwards; anything else is sent as usual.
 */
export function serializedAs(body: unknown, text: string): void {
  if (typeof body === 'object' && body !== null) serializedBodies.set(body, Buffer.from(text));
}

/**
 * A JSON body given as its text (made by `jsonText`): sent as those bytes, never parsed, where
 * responses are not validated; parsed and handed to `res.json`, which the validator checks, where
 * they are. JSON.stringify gives the body it stands for.
 */
export class JsonText {
  constructor(readonly text: string) {}
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * `text`, the JSON of a `T`, as a handler's response body, for JSON the server holds as text already
 * (a ledger record as the database stores it). It is typed as the body it claims to be, so the
 * compiler checks the claim against the operation's responses and response validation checks the
 * text; it holds none of the body's fields: return it as it is.
 */
export function jsonText<T>(text: string): T {
  return new JsonText(text) as unknown as T;
}

/** A JSON media type: `application/json` or any `application/…+json`, parameters aside. */
export const isJsonMediaType = (mediaType: string): boolean =>
  /^application\/(?:[\w.+-]+\+)?json$/i.test(mediaType.split(';')[0]?.trim() ?? '');

/**
 * Sends a handler's response: its headers, its status, and its body as JSON, or as its other media
 * type when the operation declares one (text as is, anything else as bytes or text). One sender
 * for every server the toolkit builds, the service's two APIs and `npm run serve`.
 */
export function sendResult(res: Response, result: OperationResultToSend): void {
  if (result.headers !== undefined) res.set(result.headers);
  res.status(result.status);
  if (result.body === undefined) {
    res.end();
    return;
  }
  const validated = (res.locals as { [RESPONSE_VALIDATED]?: boolean })[RESPONSE_VALIDATED] === true;
  if (result.body instanceof JsonText) {
    const type = result.contentType ?? 'application/json';
    if (validated) res.type(type).json(JSON.parse(result.body.text));
    else sendJsonText(res, result.body.text, type);
    return;
  }
  if (result.contentType === undefined || isJsonMediaType(result.contentType)) {
    if (validated) {
      if (result.contentType !== undefined) res.type(result.contentType);
      res.json(result.body);
      return;
    }
    const bytes =
      typeof result.body === 'object' && result.body !== null ? serializedBodies.get(result.body) : undefined;
    const type = result.contentType ?? res.get('Content-Type') ?? 'application/json';
    sendJsonText(res, bytes ?? JSON.stringify(result.body), type);
    return;
  }
  res
    .type(result.contentType)
    .send(typeof result.body === 'string' || Buffer.isBuffer(result.body) ? result.body : String(result.body));
}

/**
 * A JSON body written as it is, with the headers `res.json` gives it (its media type with
 * `charset=utf-8`, its length), where no response validation reads it through `res.json`.
 */
function sendJsonText(res: Response, text: string | Buffer, mediaType: string): void {
  const charset = /;\s*charset=[^;]*/i;
  res.setHeader(
    'Content-Type',
    charset.test(mediaType) ? mediaType.replace(charset, '; charset=utf-8') : `${mediaType}; charset=utf-8`,
  );
  res.end(text);
}
