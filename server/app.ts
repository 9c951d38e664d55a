import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { mountOperations, routes } from '../generated/server.js';
import { createDashboardApi } from './dashboard/api.js';
import { dashboardPages } from './dashboard/pages.js';
import { createCursorCodec } from './domain/cursor.js';
import { DEFAULT_PAYMENT_NETWORK_DELAY_MS } from './domain/transfer-state.js';
import { createTokenService } from './domain/tokens.js';
import { authenticate } from './http/authenticate.js';
import { bodyParsers } from './http/body-parsers.js';
import { createClientPolicyCache } from './http/token-policy-cache.js';
import { errorHandler, noSuchPath } from './http/errors.js';
import { handlers } from './http/handlers/index.js';
import type { Services } from './http/handler-kinds.js';
import { createInvoke } from './http/unit-of-work.js';
import { createPublicKeyCache } from './http/public-keys.js';
import { rejectNulText } from './http/nul-text.js';
import { requestContext } from './http/request-context.js';
import { isSignedWrite, requiredScopes } from './http/route-policy.js';
import { verifyWriteRequest } from './http/write-request.js';
import type { Logger } from './logger.js';
import type { Clock, IdGenerator } from './clock-and-ids.js';
import { createRowsTogether, type DB } from './database/index.js';
import { createCardReads } from './store/card-reads.js';
import { getOrCreateSecret } from './store/secrets.js';
import { createOpenApiValidation } from 'contract-first/runtime';

/** The bundled document every request (and, in development, response) is validated against. */
const API_SPEC_PATH = fileURLToPath(new URL('../generated/openapi.json', import.meta.url));

export interface AppConfig {
  /** On in development and in every test: an off-contract response becomes a 500 and fails the test. */
  readonly validateResponses: boolean;
  /** The dashboard's session cookie is `Secure` (production). */
  readonly secureCookies?: boolean;
  readonly paymentNetworkDelayMs?: number;
  /** Card reads batched, one statement for those of a turn of the event loop (store/card-reads.ts); on unless false. */
  readonly batchCardReads?: boolean;
  /** A write's statement over rows run with those of the writes of the same moment (store/rows-together.ts); on unless false (server/main.ts: PostgreSQL only). */
  readonly batchWrites?: boolean;
  /** The built dashboard pages (`.build/dashboard/`, `npm run build`) served at /dashboard; none when absent. */
  readonly dashboardPagesDir?: string;
  /**
   * Where the API references are served (server/main.ts has the HTTP server serve them): the
   * 404 of an unknown path names the partner API's, and under /dashboard/api the dashboard's.
   * Without them the 404 only says that the reference lists the paths.
   */
  readonly referenceUrls?: { readonly partner?: string | undefined; readonly dashboard?: string | undefined };
}

export interface AppDeps {
  readonly config: AppConfig;
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
}

/** Secrets every instance sharing the database must agree on: created on first start (README, "Design"). */
async function loadServiceKeys(db: Kysely<DB>, clock: Clock): Promise<{ tokenKey: Buffer; cursorKey: Buffer }> {
  const create = (): string => randomBytes(32).toString('base64url');
  const [tokenKey, cursorKey] = await Promise.all([
    getOrCreateSecret(db, 'token-signing-key', create, clock.now()),
    getOrCreateSecret(db, 'cursor-signing-key', create, clock.now()),
  ]);
  return { tokenKey: Buffer.from(tokenKey, 'base64url'), cursorKey: Buffer.from(cursorKey, 'base64url') };
}

/** The health endpoints, outside the document: /healthz (process alive), /readyz (database reachable). */
const HEALTH_PATHS = /^\/(?:healthz|readyz)\/?$/;

/**
 * Builds the service: request id and log line, health endpoints, 404 and 405 for what the
 * document does not have, then for each documented route authentication, the write-request
 * checks and the body parsers (the order of the document's "Signed write requests"), schema
 * validation and the handler through the generated skeleton, then the one error handler.
 */
export async function createApp(deps: AppDeps): Promise<Express> {
  const { db, clock, ids, logger, config } = deps;
  const keys = await loadServiceKeys(db, clock);
  const services: Services = {
    db,
    clock,
    ids,
    logger,
    tokens: createTokenService(keys.tokenKey, clock),
    tokensDatedAt: (ms) => createTokenService(keys.tokenKey, { now: () => ms }),
    cursors: createCursorCodec(keys.cursorKey),
    paymentNetworkDelayMs: config.paymentNetworkDelayMs ?? DEFAULT_PAYMENT_NETWORK_DELAY_MS,
    readCard: createCardReads(db, { batched: config.batchCardReads ?? true }),
    runOverRows: createRowsTogether(db, { together: config.batchWrites ?? true }),
  };
  const publicKeys = createPublicKeyCache(db, clock);
  const clientPolicies = createClientPolicyCache(db, clock);

  const app = express();
  // Paths are case-sensitive, as the document writes them: /V1/TRANSFER is not an alias of /v1/transfer.
  app.set('case sensitive routing', true);
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(requestContext(ids, logger, clock));

  // The dashboard's API (openapi/dashboard/dashboard.yaml) responds to every path under
  // /dashboard/api, its own 404 and 405 included, before the partner API's routing sees them;
  // every other request passes it by.
  app.use(
    await createDashboardApi({
      db,
      clock,
      ids,
      logger,
      cursors: services.cursors,
      paymentNetworkDelayMs: services.paymentNetworkDelayMs,
      validateResponses: config.validateResponses,
      secureCookies: config.secureCookies ?? false,
      referenceUrl: config.referenceUrls?.dashboard,
    }),
  );

  // The dashboard's pages at /dashboard and /dashboard/assets/, outside both documents.
  if (config.dashboardPagesDir !== undefined) app.use(await dashboardPages(config.dashboardPagesDir));

  const validation = createOpenApiValidation({
    apiSpec: API_SPEC_PATH,
    validateResponses: config.validateResponses,
    ignorePaths: HEALTH_PATHS,
  });
  // A path the document does not have is 404, and a method it does not declare on the path 405
  // with Allow, before anything else looks at the request (no authentication, no validation), as
  // the ErrorType table says. OPTIONS and HEAD are methods like any other: the document declares neither.
  // In development and tests every response to an operation is checked from here on.
  app.use(...validation.routing);

  // Each operation's own chain, in the order of the document's "Signed write requests":
  // authentication, the write-request checks, the body parsers, then schema validation (and text
  // without U+0000); the generated skeleton adds the handler.
  // Mounted on the app itself: a request walks one route table, once.
  mountOperations(app, handlers, createInvoke(services), (route) => [
    ...(requiredScopes(route) === undefined ? [] : [authenticate(route, services.tokens, clientPolicies)]),
    ...(isSignedWrite(route) ? [verifyWriteRequest(route, clock, publicKeys)] : []),
    ...(route.requestContentTypes.length > 0 ? bodyParsers() : []),
    ...validation.operation,
    rejectNulText,
  ]);

  // Outside the contract, after the operations, so that API requests never walk past them.
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res, next) => {
    sql`select 1`.execute(db).then(
      () => res.json({ status: 'ready' }),
      (error: unknown) => {
        logger.warn({ err: error }, 'readiness check failed');
        res.status(503).json({ status: 'unavailable' });
      },
    );
    void next;
  });

  const referenceUrl = config.referenceUrls?.partner;
  app.use(() => {
    throw noSuchPath(referenceUrl);
  });
  const errors = errorHandler({ logger, tokenPath: routes.createToken.path, referenceUrl });
  // Twice: when response validation rejects the first one's response (an error response off the
  // contract), the error response goes on to the next error handler, which responds with 500 InternalError.
  app.use(errors, errors);
  return app;
}
