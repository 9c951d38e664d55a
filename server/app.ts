import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Express } from 'express';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { mountOperations, routeList, routes } from '../generated/server.js';
import { createCursorCodec } from './domain/cursor.js';
import { DEFAULT_PAYMENT_NETWORK_DELAY_MS } from './domain/transfer-state.js';
import { createTokenService } from './domain/tokens.js';
import { authenticate } from './http/authenticate.js';
import { bodyParsers } from './http/body-parsers.js';
import { createClientPolicyCache } from './http/client-policies.js';
import { ApiError, errorHandler } from './http/errors.js';
import { handlers, oneStatementWrites } from './http/handlers/index.js';
import { createInvoke, type Services } from './http/invoke.js';
import { createPublicKeyCache } from './http/public-keys.js';
import { refuseNulText } from './http/nul-text.js';
import { requestContext } from './http/request-context.js';
import { createValidators, type OpenApiDocument } from './http/validator.js';
import { verifyWriteRequest } from './http/write-request.js';
import type { Logger } from './logger.js';
import type { Clock, IdGenerator } from './runtime.js';
import type { DB } from './store/schema.js';
import { getOrCreateSecret } from './store/secrets.js';

/** The bundled document every request (and, in development, response) is validated against. */
const API_SPEC_PATH = fileURLToPath(new URL('../generated/openapi.json', import.meta.url));
const API_DOCUMENT = JSON.parse(readFileSync(API_SPEC_PATH, 'utf8')) as OpenApiDocument;

export interface AppConfig {
  /** On in development and in every test: an off-contract answer becomes a 500 and fails the test. */
  readonly validateResponses: boolean;
  readonly paymentNetworkDelayMs?: number;
}

export interface AppDeps {
  readonly config: AppConfig;
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
}

/** Secrets every instance sharing the database must agree on (decisions §1): created on first start. */
async function loadServiceKeys(db: Kysely<DB>, clock: Clock): Promise<{ tokenKey: Buffer; cursorKey: Buffer }> {
  const create = (): string => randomBytes(32).toString('base64url');
  const [tokenKey, cursorKey] = await Promise.all([
    getOrCreateSecret(db, 'token-signing-key', create, clock.now()),
    getOrCreateSecret(db, 'cursor-signing-key', create, clock.now()),
  ]);
  return { tokenKey: Buffer.from(tokenKey, 'base64url'), cursorKey: Buffer.from(cursorKey, 'base64url') };
}

/** The health endpoints of decisions §1, outside the document. */
const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

function pathPattern(expressPath: string): RegExp {
  const escaped = expressPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+');
  return new RegExp(`^${escaped}/?$`);
}

/**
 * Builds the service: request id and log line, health endpoints, 404 and 405 for what the
 * document does not have, then for each documented route authentication, the write-request
 * checks and the body parsers (decisions §3 order), schema validation and the handler through
 * the generated skeleton, then the one error handler.
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

  const patterns = routeList.map((route) => ({ pattern: pathPattern(route.expressPath), method: route.method }));
  const allowedMethods = (path: string): string[] => [
    ...new Set(patterns.filter((p) => p.pattern.test(path)).map((p) => p.method.toUpperCase())),
  ];

  // A path the document does not have is 404, and a method it does not declare on the path 405
  // with Allow, before anything else looks at the request (no authentication, no validation:
  // decisions §4). OPTIONS and HEAD are methods like any other: the document declares neither.
  app.use((req, _res, next) => {
    if (HEALTH_PATHS.has(req.path)) {
      next();
      return;
    }
    const allow = allowedMethods(req.path);
    if (allow.length === 0) {
      next(new ApiError('notFound', 'No such resource path.', { details: 'Paths are listed in the API reference.' }));
    } else if (!allow.includes(req.method)) {
      next(
        new ApiError('methodNotAllowed', 'This method is not allowed on this path.', {
          details: `Allowed: ${allow.join(', ')}`,
          headers: { Allow: allow.join(', ') },
        }),
      );
    } else {
      next();
    }
  });

  const validators = createValidators({
    document: API_DOCUMENT,
    validateResponses: config.validateResponses,
    onOffContract: (problem) => logger.error(problem, 'answer off the contract replaced by a 500'),
  });

  // Each operation's own chain, in the order of decisions §3: authentication, the write-request
  // checks, the body parsers, then schema validation (and text without U+0000); the generated
  // skeleton adds the handler.
  // Mounted on the app itself: a request walks one route table, once.
  mountOperations(app, handlers, createInvoke(services, oneStatementWrites), (route) => [
    ...(route.authenticated ? [authenticate(route, services.tokens, clientPolicies)] : []),
    ...(route.writeHeaders ? [verifyWriteRequest(clock, publicKeys)] : []),
    ...(route.requestContentTypes.length > 0 ? bodyParsers() : []),
    ...validators(route),
    refuseNulText,
  ]);

  // Outside the contract (decisions §1), after the operations, so that API requests never walk past them.
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

  app.use(() => {
    throw new ApiError('notFound', 'No such resource path.', { details: 'Paths are listed in the API reference.' });
  });
  app.use(errorHandler({ logger, tokenPath: routes.createToken.path }));
  return app;
}
