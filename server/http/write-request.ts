import type { KeyObject } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import {
  REQUEST_TIMESTAMP_WINDOW_SECONDS,
  createSignatureVerifier,
  signatureMessage,
  timestampWithinWindow,
} from '../domain/signature.js';
import type { Clock } from '../clock-and-ids.js';
import { ApiError } from './errors.js';
import type { RouteDefinition } from '../../generated/server.js';
import { bearerChallenge, PRINCIPAL, type AuthenticatedLocals } from './authenticate.js';

/** An Idempotency-Key is 12 to 36 characters (the Idempotency-Key parameter in openapi/components/parameters/). */
const IDEMPOTENCY_KEY_LENGTH = { min: 12, max: 36 } as const;
/** Up to 15 digits: any Unix-seconds value for the next thirty million years, and a safe integer. */
const TIMESTAMP = /^[0-9]{1,15}$/;

/** Loads the client's active public keys (at most two at once, for rotation). */
export type PublicKeysOf = (clientId: string, options: { fresh: boolean }) => Promise<readonly KeyObject[]>;

/** A header sent more than once is ambiguous; Node would join the values with ", ". */
function single(req: Request, name: string): string | undefined | ApiError {
  const values = req.headersDistinct[name];
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) {
    return new ApiError('invalidRequest', `The ${name} header was sent more than once.`, {
      details: 'Send each write-request header exactly once.',
    });
  }
  return values[0];
}

/**
 * Checks the write-request headers in the order the document's "Signed write requests" section
 * gives (openapi/openapi.yaml, steps 2 to 5): idempotency key, signature presence, timestamp
 * window, then the RSA signature itself.
 * Runs after authentication and before schema validation; the signed message is the method,
 * the request path without its query string, and the timestamp header's text.
 */
export function verifyWriteRequest(route: RouteDefinition, clock: Clock, publicKeysOf: PublicKeysOf): RequestHandler {
  // Every 401 carries the challenge the document requires of it.
  const challenge = { 'WWW-Authenticate': bearerChallenge(route) };
  const verifySignature = createSignatureVerifier();
  return (req, res, next) => {
    const fail = (error: ApiError): void => next(error);

    const key = single(req, 'idempotency-key');
    if (key instanceof ApiError) return fail(key);
    // An empty header is treated as absent, as for the signature below.
    if (key === undefined || key === '') {
      return fail(
        new ApiError('missingIdempotencyKey', 'The Idempotency-Key header is required on write requests.', {
          details:
            'Send a unique key of 12 to 36 characters (a UUID fits) and reuse it only to retry the same request.',
        }),
      );
    }
    if (key.length < IDEMPOTENCY_KEY_LENGTH.min || key.length > IDEMPOTENCY_KEY_LENGTH.max) {
      return fail(
        new ApiError('invalidRequest', 'The Idempotency-Key header must be 12 to 36 characters long.', {
          details: `It has ${key.length} characters.`,
        }),
      );
    }

    const signature = single(req, 'x-partner-signature');
    if (signature instanceof ApiError) return fail(signature);
    if (signature === undefined || signature === '') {
      return fail(
        new ApiError('missingSignature', 'The X-Partner-Signature header is required on write requests.', {
          details: 'Sign METHOD + path + timestamp with your RSA private key (SHA-256) and send it in standard Base64.',
          headers: challenge,
        }),
      );
    }

    const timestamp = single(req, 'x-partner-request-timestamp');
    if (timestamp instanceof ApiError) return fail(timestamp);
    if (timestamp === undefined || !TIMESTAMP.test(timestamp)) {
      return fail(
        new ApiError('invalidRequest', 'The X-Partner-Request-Timestamp header must be an integer of Unix seconds.', {
          details: timestamp === undefined ? 'The header is missing.' : 'The value is not a whole number of seconds.',
        }),
      );
    }
    // Whole seconds on both sides: the header counts seconds, so a timestamp exactly 300 s old
    // by the server's second is accepted whatever the milliseconds, and 301 s never is.
    const nowWholeSecond = Math.floor(clock.now() / 1000) * 1000;
    if (!timestampWithinWindow(Number(timestamp), nowWholeSecond, REQUEST_TIMESTAMP_WINDOW_SECONDS)) {
      return fail(
        new ApiError('invalidSignature', 'The request timestamp is outside the allowed window.', {
          details: `It must be within ${REQUEST_TIMESTAMP_WINDOW_SECONDS} seconds of the server's clock; sign each attempt with the current time.`,
          headers: challenge,
        }),
      );
    }

    const principal = (res.locals as AuthenticatedLocals)[PRINCIPAL];
    if (principal === undefined)
      return fail(new ApiError('unauthorized', 'A bearer access token is required.', { headers: challenge }));
    const path = req.originalUrl.split('?')[0] ?? req.path;
    const message = signatureMessage(req.method, path, timestamp);
    const invalid = (): ApiError =>
      new ApiError('invalidSignature', 'The request signature does not verify.', {
        details:
          'Sign exactly METHOD + path (no query string) + the timestamp header text, RSASSA-PKCS1-v1_5 with SHA-256, standard Base64.',
        headers: challenge,
      });

    publicKeysOf(principal.clientId, { fresh: false })
      .then(async (keys) => {
        if (verifySignature(keys, message, signature)) return true;
        // A key added moments ago on another instance: look once more at the database.
        const fresh = await publicKeysOf(principal.clientId, { fresh: true });
        return fresh !== keys && verifySignature(fresh, message, signature);
      })
      .then((ok) => (ok ? next() : fail(invalid())), next);
  };
}
