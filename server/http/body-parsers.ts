import express, { type Request, type RequestHandler } from 'express';

/** Bodies over 64 KiB are rejected with 413 (the PayloadTooLarge response in openapi/). */
export const BODY_LIMIT = '64kb';

/**
 * The bytes of the body as read, its Content-Encoding undone (body-parser inflates before `verify`):
 * the idempotency fingerprint hashes them (method, path and body SHA-256).
 */
export const RAW_BODY = Symbol('rawBody');
export type RawBodyRequest = Request & { [RAW_BODY]?: Buffer };

const keepRaw = (req: unknown, _res: unknown, buffer: Buffer): void => {
  (req as RawBodyRequest)[RAW_BODY] = buffer;
};

/**
 * JSON and JSON merge-patch (the limits operations) share one parser; without the merge-patch
 * type express.json would leave the body undefined, and the validator would let it through
 * unchecked. Form bodies are for the token endpoint only.
 */
export function bodyParsers(): RequestHandler[] {
  return [
    express.json({ type: ['application/json', 'application/merge-patch+json'], limit: BODY_LIMIT, verify: keepRaw }),
    express.urlencoded({
      type: 'application/x-www-form-urlencoded',
      extended: false,
      limit: BODY_LIMIT,
      parameterLimit: 20,
      verify: keepRaw,
    }),
  ];
}
