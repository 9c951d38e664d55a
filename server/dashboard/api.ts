import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import cookieParser from 'cookie-parser';
import express, { type RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import { mountOperations } from '../../generated/dashboard/server.js';
import type { CursorCodec } from '../domain/cursor.js';
import { bodyParsers } from '../http/body-parsers.js';
import { errorHandler, noSuchPath } from '../http/errors.js';
import { rejectNulText } from '../http/nul-text.js';
import type { Logger } from '../logger.js';
import type { Clock, IdGenerator } from '../clock-and-ids.js';
import type { DB } from '../database/index.js';
import { getOrCreateSecret } from '../store/secrets.js';
import { createOpenApiValidation } from 'contract-first/runtime';
import { createDashboardInvoke, type DashboardServices } from './context.js';
import { dashboardHandlers } from './handlers/index.js';
import { sessionChecks } from './session.js';

/** The dashboard's bundled document (openapi/dashboard/dashboard.yaml, generated into generated/dashboard/). */
const DASHBOARD_SPEC_PATH = fileURLToPath(new URL('../../generated/dashboard/openapi.json', import.meta.url));

/** Every path of the dashboard's API: what the dashboard responds with, 404 and 405 included. */
export const DASHBOARD_API_PATHS = /^\/dashboard\/api(?:\/|$)/;

export interface DashboardApiDeps {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  readonly cursors: CursorCodec;
  readonly paymentNetworkDelayMs: number;
  /** As for the partner API: on in development and in every test. */
  readonly validateResponses: boolean;
  readonly secureCookies: boolean;
  /** Where the dashboard's API reference is served, named by the 404 of an unknown path under /dashboard/api. */
  readonly referenceUrl?: string | undefined;
}

/**
 * The dashboard's API under /dashboard/api, a middleware for the app to mount before the partner
 * API: requests under that prefix are the dashboard's alone (its own 404 and 405, its own
 * validation against its own document, its own error handlers); every other request passes by.
 * Each operation's chain: the Origin, session, CSRF and role checks (session.ts, in the order of
 * the document's "Order of the checks"), the body parsers, schema validation, then the handler.
 */
export async function createDashboardApi(deps: DashboardApiDeps): Promise<RequestHandler> {
  // The CSRF tokens' secret, shared by every instance on the database like the others (README, "Design").
  const csrfKey = await getOrCreateSecret(
    deps.db,
    'dashboard-csrf-key',
    () => randomBytes(32).toString('base64url'),
    deps.clock.now(),
  );
  const services: DashboardServices = {
    db: deps.db,
    clock: deps.clock,
    ids: deps.ids,
    logger: deps.logger,
    cursors: deps.cursors,
    csrfKey: Buffer.from(csrfKey, 'base64url'),
    secureCookies: deps.secureCookies,
    paymentNetworkDelayMs: deps.paymentNetworkDelayMs,
  };

  const router = express.Router({ caseSensitive: true });
  const validation = createOpenApiValidation({
    apiSpec: DASHBOARD_SPEC_PATH,
    validateResponses: deps.validateResponses,
  });
  // The session cookie, read by cookie-parser (unsigned: the value is a random token that only
  // names a session in the database).
  router.use(cookieParser());
  router.use(...validation.routing);
  mountOperations(router, dashboardHandlers, createDashboardInvoke(services), (route) => [
    ...sessionChecks(route, { db: deps.db, clock: deps.clock, csrfKey: services.csrfKey }),
    ...(route.requestContentTypes.length > 0 ? bodyParsers() : []),
    ...validation.operation,
    rejectNulText,
  ]);
  router.use(() => {
    throw noSuchPath(deps.referenceUrl);
  });
  const errors = errorHandler({ logger: deps.logger, referenceUrl: deps.referenceUrl });
  // Twice, as for the partner API: an error response off the contract becomes a 500 in the second.
  router.use(errors, errors);

  return (req, res, next) => {
    if (DASHBOARD_API_PATHS.test(req.path)) router(req, res, next);
    else next();
  };
}
