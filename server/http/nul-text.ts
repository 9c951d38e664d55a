import type { RequestHandler } from 'express';
import { ApiError } from './errors.js';

const NUL = '\u0000';

/** True when a string anywhere in the value (keys included) holds U+0000. Iterative: bodies may nest deeply. */
export function containsNul(root: unknown): boolean {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      if (value.includes(NUL)) return true;
    } else if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes(NUL)) return true;
        pending.push(item);
      }
    }
  }
  return false;
}

/**
 * PostgreSQL text cannot hold U+0000 (both drivers fail with "invalid byte sequence"), so a name,
 * memo or filter carrying one would reach the database only to fail there as a 500. It is a value
 * the client can fix: rejected with 400 InvalidRequest right after schema validation (the "Text"
 * convention of openapi/openapi.yaml), before anything is looked up or stored.
 */
export const rejectNulText: RequestHandler = (req, _res, next) => {
  const where = containsNul(req.query) ? 'a query parameter' : containsNul(req.body) ? 'the request body' : undefined;
  if (where === undefined) {
    next();
    return;
  }
  next(
    new ApiError('invalidRequest', `Invalid request: ${where} contains the NUL character (U+0000).`, {
      details: 'Text values may not contain U+0000; remove it and send the request again.',
    }),
  );
};
