import { createSign, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Kysely } from 'kysely';
import { createApp } from '../../server/app.js';
import { respondToHttpParserErrors } from '../../server/http/http-parser-errors.js';
import { createHttpServer } from 'contract-first/runtime';
import { CLIENT_POLICY_CACHE_MS } from '../../server/http/token-policy-cache.js';
import { silentLogger, type Logger } from '../../server/logger.js';
import { onboardOrganization, type OnboardingRequest, type OnboardingResult } from '../../server/onboarding.js';
import { randomIds, type Clock } from '../../server/clock-and-ids.js';
import { openDatabase, type DatabaseKind } from '../../server/database/open.js';
import type { DatabaseBounds } from '../../server/database/bounds.js';
import { revokeClientTokens } from '../../server/store/organizations.js';
import type { DB } from '../../server/database/schema.js';
import { WRITES_TOGETHER } from '../../server/database/rows-together.js';
import { createTestDatabase, createTestDatabaseOf } from './database.js';

/** A clock tests can pin and move; it starts at the real time so tokens and timestamps look normal. */
export interface TestClock extends Clock {
  set(ms: number): void;
  advance(ms: number): void;
}

export function testClock(start: number = Date.now()): TestClock {
  let current = start;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export interface RequestOptions {
  readonly body?: unknown;
  /** Raw body text or bytes, sent as is (for malformed-JSON, byte-exact and compressed-body tests). */
  readonly rawBody?: string | Uint8Array;
  readonly headers?: Record<string, string>;
  /** Sign as a write request (Idempotency-Key, timestamp, signature); on by default for writes. */
  readonly signed?: boolean;
  readonly idempotencyKey?: string;
  /** Override the timestamp header (Unix seconds) to test the window. */
  readonly timestamp?: number;
  /** Bearer token to send; `null` sends none. Defaults to a token with every scope. */
  readonly token?: string | null;
  readonly contentType?: string;
  /** Header names to leave out of what would otherwise be sent (e.g. `X-Partner-Signature`). */
  readonly omitHeaders?: readonly string[];
}

export interface Partner extends OnboardingResult {
  /** A fresh access token (optionally for a subset of scopes). */
  token(scope?: string): Promise<string>;
  /** The base64 RSA-SHA256 signature of method + path + timestamp, as the document's write protocol defines it. */
  sign(method: string, path: string, timestamp: number | string): string;
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
}

export interface TestApp {
  readonly baseUrl: string;
  readonly db: Kysely<DB>;
  readonly clock: TestClock;
  /** The database under the app: PostgreSQL when DATABASE_URL is set, PGlite otherwise. */
  readonly kind: DatabaseKind;
  /** The PostgreSQL URL of the app's database (for another connection to it); undefined on PGlite. */
  readonly databaseUrl: string | undefined;
  onboard(request?: Partial<OnboardingRequest>): Promise<Partner>;
  /**
   * Another instance of the service on the same database and clock, as a second server process
   * would be: on PostgreSQL with its own connection pool (so its transactions really interleave
   * with the first instance's), on PGlite over the same embedded database (one process owns it).
   */
  startInstance(): Promise<TestInstance>;
  /**
   * Revokes the client's tokens issued so far, then moves the clock past the service's client
   * cache, as any instance would see the revocation after that long.
   */
  revokeTokens(clientId: string): Promise<void>;
  close(): Promise<void>;
}

export interface TestInstance {
  readonly baseUrl: string;
  readonly db: Kysely<DB>;
  /** The same partner, talking to this instance (its tokens work on every instance). */
  as(partner: Partner): Partner;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clock?: TestClock;
  paymentNetworkDelayMs?: number;
  /** Where the app logs (silent by default); tests that check log lines pass a recording one. */
  logger?: Logger;
  /** The built dashboard pages to serve at /dashboard (scripts/build/dashboard.ts); none by default. */
  dashboardPagesDir?: string;
  /** The bounds of the database's calls (server/database/bounds.ts); none by default. */
  bounds?: DatabaseBounds;
  /** The database the app runs on; by default PostgreSQL when DATABASE_URL is set, PGlite otherwise. */
  database?: DatabaseKind;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

interface Served {
  readonly baseUrl: string;
  close(): Promise<void>;
}

async function serve(db: Kysely<DB>, kind: DatabaseKind, clock: TestClock, options: TestAppOptions): Promise<Served> {
  const app = await createApp({
    config: {
      validateResponses: true,
      paymentNetworkDelayMs: options.paymentNetworkDelayMs ?? 2000,
      // As server/main.ts runs it.
      batchWrites: WRITES_TOGETHER[kind],
      ...(options.dashboardPagesDir !== undefined ? { dashboardPagesDir: options.dashboardPagesDir } : {}),
    },
    db,
    clock,
    ids: randomIds,
    logger: options.logger ?? silentLogger,
  });
  const server = createHttpServer(app).listen(0, '127.0.0.1');
  respondToHttpParserErrors(server, randomIds);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Starts the real app on a fresh database and an ephemeral port, with response validation on. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const databaseOptions = options.bounds === undefined ? {} : { bounds: options.bounds };
  const database = await (options.database === undefined
    ? createTestDatabase(databaseOptions)
    : createTestDatabaseOf(options.database, databaseOptions));
  const clock = options.clock ?? testClock();
  const served = await serve(database.db, database.kind, clock, options);
  const { baseUrl } = served;
  const instances = new Set<TestInstance>();

  return {
    baseUrl,
    db: database.db,
    clock,
    kind: database.kind,
    databaseUrl: database.url,
    async onboard(request = {}) {
      const result = await onboardOrganization(
        database.db,
        { ids: randomIds, clock },
        {
          name: request.name ?? 'Test Partner',
          balanceCents: request.balanceCents ?? 1_000_000_00,
          ...(request.publicKeyPem !== undefined ? { publicKeyPem: request.publicKeyPem } : {}),
          ...(request.scopes !== undefined ? { scopes: request.scopes } : {}),
        },
      );
      return partnerOf(baseUrl, clock, result);
    },
    async startInstance() {
      const second =
        database.kind === 'postgres' && database.url !== undefined
          ? await openDatabase({ url: database.url, maxConnections: 20 })
          : undefined;
      const db = second?.db ?? database.db;
      const other = await serve(db, database.kind, clock, options);
      const instance: TestInstance = {
        baseUrl: other.baseUrl,
        db,
        as: (partner) => partnerOf(other.baseUrl, clock, partner),
        async close() {
          instances.delete(instance);
          await other.close();
          await second?.close();
        },
      };
      instances.add(instance);
      return instance;
    },
    async revokeTokens(clientId) {
      if (!(await revokeClientTokens(database.db, clientId, clock.now()))) throw new Error(`no client ${clientId}`);
      clock.advance(CLIENT_POLICY_CACHE_MS);
    },
    async close() {
      for (const instance of [...instances]) await instance.close();
      await served.close();
      await database.close();
    },
  };
}

/** The default token is renewed after 50 minutes of the partner's clock, ahead of its one-hour expiry. */
const TOKEN_REUSE_MS = 50 * 60 * 1000;

export function partnerOf(baseUrl: string, clock: Clock, credentials: OnboardingResult): Partner {
  let cached: { token: string; at: number } | undefined;
  const partner: Partner = {
    ...credentials,
    async token(scope) {
      const body = new URLSearchParams({ grant_type: 'client_credentials', ...(scope !== undefined ? { scope } : {}) });
      const response = await fetch(`${baseUrl}/v1/oauth/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
        },
        body,
      });
      if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
      const json = (await response.json()) as { access_token: string };
      return json.access_token;
    },
    sign(method, path, timestamp) {
      if (credentials.privateKeyPem === undefined) throw new Error('this partner brought its own key');
      return createSign('RSA-SHA256')
        .update(`${method.toUpperCase()}${path}${timestamp}`)
        .sign(credentials.privateKeyPem, 'base64');
    },
    async request(method, path, options = {}) {
      const headers: Record<string, string> = {};
      if (
        options.token === undefined &&
        (cached === undefined || clock.now() - cached.at >= TOKEN_REUSE_MS || clock.now() < cached.at)
      ) {
        cached = { token: await partner.token(), at: clock.now() };
      }
      const token = options.token === undefined ? (cached?.token ?? null) : options.token;
      if (token !== null) headers.Authorization = `Bearer ${token}`;
      if (options.signed ?? WRITE_METHODS.has(method.toUpperCase())) {
        const timestamp = options.timestamp ?? Math.floor(clock.now() / 1000);
        headers['Idempotency-Key'] = options.idempotencyKey ?? randomUUID();
        headers['X-Partner-Request-Timestamp'] = String(timestamp);
        headers['X-Partner-Signature'] = partner.sign(method, path.split('?')[0] ?? path, timestamp);
      }
      let body: string | Uint8Array | undefined;
      if (options.rawBody !== undefined) body = options.rawBody;
      else if (options.body !== undefined) body = JSON.stringify(options.body);
      if (body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
      const omitted = new Set((options.omitHeaders ?? []).map((name) => name.toLowerCase()));
      const sent = Object.fromEntries(
        Object.entries({ ...headers, ...options.headers }).filter(([name]) => !omitted.has(name.toLowerCase())),
      );
      return fetch(`${baseUrl}${path}`, { method, headers: sent, ...(body !== undefined ? { body } : {}) });
    },
  };
  return partner;
}
