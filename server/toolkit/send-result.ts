import type { Response } from 'express';

/** What a handler answers, as the generated skeletons type it (`AnyOperationResult`). */
export interface OperationResultToSend {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A JSON media type: `application/json` or any `application/…+json`, parameters aside. */
export const isJsonMediaType = (mediaType: string): boolean => /^application\/(?:[\w.+-]+\+)?json$/i.test(mediaType.split(';')[0]?.trim() ?? '');

/**
 * Sends a handler's answer: its headers, its status, and its body as JSON, or as its other media
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
  if (result.contentType === undefined) {
    res.json(result.body);
    return;
  }
  if (isJsonMediaType(result.contentType)) {
    res.type(result.contentType).json(result.body);
  } else {
    res.type(result.contentType).send(typeof result.body === 'string' || Buffer.isBuffer(result.body) ? result.body : String(result.body));
  }
}
