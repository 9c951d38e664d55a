import express, { type Request, type RequestHandler } from 'express';

/** Decisions §1: JSON bodies over 64 KiB are refused with 413. */
export const BODY_LIMIT = '64kb';

/** The exact bytes of the body, kept for the idempotency fingerprint (decisions §3). */
export const RAW_BODY = Symbol('rawBody');
export type RawBodyRequest = Request & { [RAW_BODY]?: Buffer };

const keepRaw = (req: unknown, _res: unknown, buffer: Buffer): void => {
  (req as RawBodyRequest)[RAW_BODY] = buffer;
};

/**
 * JSON and JSON merge-patch (the limits operations) share one parser; without the merge-patch type
 * the body would stay undefined and slip past validation (stack.md pitfall 1). Form bodies are for
 * the token endpoint only.
 */
export function bodyParsers(): RequestHandler[] {
  return [
    express.json({ type: ['application/json', 'application/merge-patch+json'], limit: BODY_LIMIT, verify: keepRaw }),
    express.urlencoded({ type: 'application/x-www-form-urlencoded', extended: false, limit: BODY_LIMIT, parameterLimit: 20, verify: keepRaw }),
  ];
}
