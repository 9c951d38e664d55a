import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';
import type { Clock, IdGenerator } from '../clock-and-ids.js';

/** A caller's X-Request-Id of at most 64 safe characters is echoed, otherwise one is made (the XRequestId header's description in openapi/). */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Sets `X-Request-Id` on every response and, when the log level is info or finer, writes one log
 * line per request: id, method, path (never the query string or a header value), status and
 * duration.
 */
export function requestContext(ids: IdGenerator, logger: Logger, clock: Clock): RequestHandler {
  return (req, res, next) => {
    const started = clock.now();
    const given = req.get('x-request-id');
    const requestId = given !== undefined && SAFE_REQUEST_ID.test(given) ? given : ids.next('req');
    res.set('X-Request-Id', requestId);
    if (!logger.isLevelEnabled('info')) {
      next();
      return;
    }
    res.on('finish', () => {
      logger.info(
        { requestId, method: req.method, path: req.path, status: res.statusCode, durationMs: clock.now() - started },
        'request',
      );
    });
    next();
  };
}
