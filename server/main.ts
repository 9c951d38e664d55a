/**
 * `npm start`: the only reader of process.env and the only opener of sockets.
 *
 * PORT (3000), DATABASE_URL (postgres://… for PostgreSQL; unset for the embedded database under
 * ./.data/; memory:// for an in-memory one), LOG_LEVEL (info), PAYMENT_NETWORK_DELAY_MS (2000),
 * NODE_ENV (response validation is on unless it is `production`, where the dashboard's session cookie
 * is also `Secure`), WEB_CONCURRENCY (workers, PostgreSQL only), PUBLIC_URL (where clients reach this
 * server, for the addresses it prints and keeps; default http://localhost:PORT),
 * EMBEDDED_DATABASE (`accept-no-fsync`: lets NODE_ENV=production run on the embedded database,
 * accepting that a power cut or a kernel crash may lose writes it has acknowledged; see
 * embeddedDatabaseDurability below), DATABASE_LAST_STATEMENT, DATABASE_PIPELINE, PGLITE_PREPARED_STATEMENTS, PGLITE_THREAD
 * (Config.mechanisms), CARD_READ_BATCHING (Config.batchCardReads) and WRITE_BATCHING (Config.batchWrites): `off` turns a speed mechanism
 * off, for the benchmark's measurements.
 */
import cluster from 'node:cluster';
import { access, mkdir, writeFile } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import path from 'node:path';
import { createApp } from './app.js';
import { respondToHttpParserErrors } from './http/http-parser-errors.js';
import { createLogger, type Logger } from './logger.js';
import { createHttpServer } from 'contract-first/runtime';
import { randomIds, systemClock } from './clock-and-ids.js';
import { startSettlementWorker } from './settlement-worker.js';
import {
  type Database,
  DEFAULT_MAX_CONNECTIONS,
  migrateToLatest,
  openDatabase,
  SERVER_BOUNDS,
  WRITES_TOGETHER,
} from './database/index.js';
import { onboardDemoOrganization, type DemoOrganization } from './sandbox/first-run.js';

interface Config {
  readonly port: number;
  readonly databaseUrl: string | undefined;
  readonly logLevel: string;
  readonly paymentNetworkDelayMs: number;
  readonly validateResponses: boolean;
  /** The dashboard's session cookie is `Secure` in production only: the local sandbox is plain http. */
  readonly secureCookies: boolean;
  readonly workers: number;
  /** PostgreSQL connections each process opens at most. */
  readonly databasePoolSize: number;
  /** Where clients reach this server, when not at http://localhost:PORT (a proxy in front of it). */
  readonly publicUrl: string | undefined;
  /** What the database survives, said in one line at start; undefined on PostgreSQL, which needs no such line. */
  readonly embeddedDatabaseNotice: string | undefined;
  /**
   * The database mechanisms on or off (server/database/open.ts, OpenDatabaseOptions): all on unless
   * DATABASE_LAST_STATEMENT, DATABASE_PIPELINE, PGLITE_PREPARED_STATEMENTS or PGLITE_THREAD is `off`, which the
   * benchmark sets to measure what each buys (scripts/bench, `--without`).
   */
  readonly mechanisms: {
    readonly lastStatement: boolean;
    readonly pipeline: boolean;
    readonly preparedStatements: boolean;
    readonly ownThread: boolean;
  };
  /** Card reads batched (store/card-reads.ts) unless CARD_READ_BATCHING is `off`, as the mechanisms above. */
  readonly batchCardReads: boolean;
  /** Writes' statements over rows run together where WRITES_TOGETHER says (store/rows-together.ts), unless WRITE_BATCHING is `off`. */
  readonly batchWrites: boolean;
}

function integer(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(raw)})`);
  }
  return value;
}

/** The one value of EMBEDDED_DATABASE: it names what is accepted, PGlite writing without fsync. */
const ACCEPT_NO_FSYNC = 'accept-no-fsync';

/**
 * What the embedded database survives, and whether production may run on it. PGlite (0.5.16) never
 * flushes its files to disk: it starts PostgreSQL with fsync off, and its WebAssembly file layer
 * turns every fsync and fdatasync into nothing (README, "Proofs"). A commit is in the operating
 * system's files when it is acknowledged, so a killed process loses nothing; a power cut or a kernel
 * crash can lose acknowledged writes or leave files PostgreSQL cannot recover. Production therefore
 * runs on it only when EMBEDDED_DATABASE says that loss is accepted, and every start on it says so.
 */
function embeddedDatabaseDurability(databaseUrl: string | undefined, production: boolean): string | undefined {
  const accepted = process.env.EMBEDDED_DATABASE ?? '';
  if (accepted !== '' && accepted !== ACCEPT_NO_FSYNC) {
    throw new Error(`EMBEDDED_DATABASE must be ${ACCEPT_NO_FSYNC} or unset (got ${JSON.stringify(accepted)})`);
  }
  if (databaseUrl === 'memory://') {
    if (production) {
      throw new Error(
        'NODE_ENV=production with DATABASE_URL=memory://: refusing to start. The in-memory database keeps nothing ' +
          'once the process ends, so every acknowledged write would be lost at the next restart. Set DATABASE_URL=postgres://… ' +
          'to run on PostgreSQL.',
      );
    }
    return 'The in-memory database (DATABASE_URL=memory://) survives nothing: everything is lost when the process ends.';
  }
  if (databaseUrl !== undefined) return undefined;
  if (production && accepted !== ACCEPT_NO_FSYNC) {
    throw new Error(
      'NODE_ENV=production with the embedded database (DATABASE_URL unset): refusing to start. The embedded ' +
        'database (PGlite) never flushes its files to disk (no fsync): it survives a killed process, but a power cut ' +
        'or a kernel crash can lose writes it has already acknowledged, or leave its files unrecoverable. Set ' +
        'DATABASE_URL=postgres://… to run on PostgreSQL, which flushes every commit to disk before responding; or, to ' +
        `run on the embedded database anyway and accept that loss, set EMBEDDED_DATABASE=${ACCEPT_NO_FSYNC}.`,
    );
  }
  return (
    'The embedded database survives a killed process, but a power cut or a kernel crash may lose writes it has ' +
    'already acknowledged: PGlite does not flush its files to disk (no fsync). Set DATABASE_URL=postgres://… for PostgreSQL.'
  );
}

/** A mechanism's switch: on unless `off`. */
function switchedOn(name: string): boolean {
  const raw = process.env[name] ?? '';
  if (raw !== '' && raw !== 'on' && raw !== 'off')
    throw new Error(`${name} must be on or off (got ${JSON.stringify(raw)})`);
  return raw !== 'off';
}

function readConfig(): Config {
  const databaseUrl = process.env.DATABASE_URL === '' ? undefined : process.env.DATABASE_URL;
  const workers = integer('WEB_CONCURRENCY', 1, 1, 64);
  if (workers > 1 && !/^postgres(ql)?:\/\//.test(databaseUrl ?? '')) {
    throw new Error(
      'WEB_CONCURRENCY above 1 needs DATABASE_URL=postgres://…: the embedded database belongs to one process.',
    );
  }
  const embeddedDatabaseNotice = embeddedDatabaseDurability(databaseUrl, process.env.NODE_ENV === 'production');
  return {
    port: integer('PORT', 3000, 0, 65535),
    databaseUrl,
    logLevel: process.env.LOG_LEVEL ?? 'info',
    paymentNetworkDelayMs: integer('PAYMENT_NETWORK_DELAY_MS', 2000, 0, 3_600_000),
    validateResponses: process.env.NODE_ENV !== 'production',
    secureCookies: process.env.NODE_ENV === 'production',
    workers,
    databasePoolSize: integer('DATABASE_POOL_SIZE', DEFAULT_MAX_CONNECTIONS, 1, 100),
    publicUrl: process.env.PUBLIC_URL === '' ? undefined : process.env.PUBLIC_URL?.replace(/\/+$/, ''),
    embeddedDatabaseNotice,
    mechanisms: {
      lastStatement: switchedOn('DATABASE_LAST_STATEMENT'),
      pipeline: switchedOn('DATABASE_PIPELINE'),
      preparedStatements: switchedOn('PGLITE_PREPARED_STATEMENTS'),
      ownThread: switchedOn('PGLITE_THREAD'),
    },
    batchCardReads: switchedOn('CARD_READ_BATCHING'),
    batchWrites: switchedOn('WRITE_BATCHING'),
  };
}

const DEMO_BALANCE_CENTS = 50_000_000_00; // EGP 50,000,000.00 of sandbox money
const CREDENTIALS_DIR = '.data';
/** Where `npm run build` bundles the dashboard's pages (scripts/build/dashboard.ts), from the project root. */
const DASHBOARD_PAGES_DIR = path.resolve('.build/dashboard');
/**
 * The API references `npm run build` writes with `npm run docs` (each API's `x-docs` in
 * redocly.yaml), from the project root, and where the server serves them: the partner API's
 * at /docs, the dashboard's at /docs/dashboard.
 */
const REFERENCE_PAGES = {
  partner: { path: '/docs', file: path.resolve('generated/docs/index.html') },
  dashboard: { path: '/docs/dashboard', file: path.resolve('generated/docs/dashboard.html') },
} as const;
/** 10 s: the usual grace period of process managers (Kubernetes waits 30 s, systemd 90 s before SIGKILL). */
const SHUTDOWN_GRACE_MS = 10_000;

/** A first start on an empty embedded database gets a demo organization to play with (README, "Run the service"). */
async function onboardDemo(database: Database, logger: Logger): Promise<DemoOrganization | undefined> {
  if (database.kind !== 'pglite') return undefined;
  const demo = await onboardDemoOrganization(
    database.db,
    { ids: randomIds, clock: systemClock },
    { balanceCents: DEMO_BALANCE_CENTS },
  );
  if (demo !== undefined) {
    logger.info(
      { organizationId: demo.onboarding.organizationId, pendingTransfers: demo.pendingTransfers.length },
      'demo organization onboarded',
    );
  }
  return demo;
}

/** The reference pages that are built, and the URL of each for the 404 of an unknown path; none when `npm run docs` has not run. */
async function builtReferences(
  base: string,
): Promise<{ pages: Record<string, string>; urls: { partner?: string; dashboard?: string } }> {
  const pages: Record<string, string> = {};
  const urls: { partner?: string; dashboard?: string } = {};
  for (const api of ['partner', 'dashboard'] as const) {
    const page = REFERENCE_PAGES[api];
    const built = await access(page.file).then(
      () => true,
      () => false,
    );
    if (!built) continue;
    pages[page.path] = page.file;
    urls[api] = `${base}${page.path}`;
  }
  return { pages, urls };
}

async function printDemo(
  demo: DemoOrganization,
  base: string,
  persisted: boolean,
  referencesBuilt: boolean,
): Promise<void> {
  const { onboarding } = demo;
  const keyFile = path.join(CREDENTIALS_DIR, 'demo-private-key.pem');
  if (persisted && onboarding.privateKeyPem !== undefined) {
    await mkdir(CREDENTIALS_DIR, { recursive: true });
    await writeFile(keyFile, onboarding.privateKeyPem, { mode: 0o600 });
    await writeFile(
      path.join(CREDENTIALS_DIR, 'demo-credentials.json'),
      `${JSON.stringify({ baseUrl: base, ...onboarding }, null, 2)}\n`,
      { mode: 0o600 },
    );
  }
  const lines = [
    '',
    'A demo organization was created. Its credentials are shown this once' +
      (persisted ? ` and kept in ${CREDENTIALS_DIR}/demo-credentials.json (mode 600).` : '.'),
    `  client id:     ${onboarding.clientId}`,
    `  client secret: ${onboarding.clientSecret}`,
    persisted ? `  private key:   ${keyFile}` : `  private key:\n${onboarding.privateKeyPem ?? ''}`,
    '',
    `The dashboard: ${base}/dashboard (an approver)`,
    `  username: ${onboarding.operator.operator.username}`,
    `  password: ${onboarding.operator.password}`,
    `  ${demo.pendingTransfers.length} transfers wait there for a decision: one the balance covers, one the sandbox network rejects,`,
    '  one that takes nearly all of the balance, and one it does not cover.',
    '',
    'Try it:',
    `  TOKEN=$(curl -s -u '${onboarding.clientId}:${onboarding.clientSecret}' -d grant_type=client_credentials ${base}/v1/oauth/token | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')`,
    `  curl -s -H "Authorization: Bearer $TOKEN" ${base}/v1/card`,
    '  TS=$(date +%s)',
    `  SIG=$(printf 'POST/v1/transfer%s' "$TS" | openssl dgst -sha256 -sign ${keyFile} | base64 -w0)`,
    `  curl -s -X POST ${base}/v1/transfer -H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json" \\`,
    '    -H "Idempotency-Key: $(node -p "crypto.randomUUID()")" -H "X-Partner-Request-Timestamp: $TS" -H "X-Partner-Signature: $SIG" \\',
    `    -d '{"amountCents":150000,"currency":"EGP","bankId":"nbe","accountNumber":"EG650019000500000000263180001","accountName":"Nile Supplies","category":"LOGISTICS"}'`,
    '  Then POST /v1/transfer/<id>/execute the same way (sign "POST/v1/transfer/<id>/execute$TS"), and GET it until SUCCEEDED.',
    ...(referencesBuilt
      ? [
          '',
          `The API reference: ${base}${REFERENCE_PAGES.partner.path} (the dashboard's: ${base}${REFERENCE_PAGES.dashboard.path})`,
        ]
      : []),
    '',
  ];
  console.log(lines.join('\n'));
}

/** PostgreSQL's migrations run on a connection of their own, outside the requests' bounds: building an index may take longer. */
async function migratePostgres(url: string, logger: Logger): Promise<void> {
  const migrating = await openDatabase({ url, maxConnections: 1 });
  try {
    const { applied } = await migrateToLatest(migrating.db);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  } finally {
    await migrating.close();
  }
}

async function serve(config: Config, logger: Logger, { primary }: { primary: boolean }): Promise<void> {
  const onPostgres = /^postgres(ql)?:\/\//.test(config.databaseUrl ?? '');
  if (primary && onPostgres) await migratePostgres(config.databaseUrl as string, logger);
  const database = await openDatabase({
    url: config.databaseUrl,
    maxConnections: config.databasePoolSize,
    // Every call of a request is bounded: one past its bound is responded 503 (store/bounds.ts).
    bounds: SERVER_BOUNDS,
    ...config.mechanisms,
    // Without its database the server could only respond with 500s: it exits, and a restart recovers
    // the embedded database from its files.
    onLost: (error) => {
      logger.error({ err: error }, 'the embedded database stopped; exiting');
      process.exit(1);
    },
  });
  // The embedded database bounds no statement's run (bounds.ts), only waits: it migrates here.
  if (primary && !onPostgres) {
    const { applied } = await migrateToLatest(database.db);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  const demo = primary ? await onboardDemo(database, logger) : undefined;
  // Where clients reach the server; PORT=0 (any free port) is known only once listening, so the
  // 404's reference URL is then the path alone.
  const base = config.publicUrl ?? (config.port === 0 ? '' : `http://localhost:${config.port}`);
  const references = await builtReferences(base);
  if (references.urls.partner === undefined) {
    logger.info(
      { page: path.relative(process.cwd(), REFERENCE_PAGES.partner.file) },
      'the API reference is not built (npm run docs): /docs responds with 404',
    );
  }
  const app = await createApp({
    config: {
      validateResponses: config.validateResponses,
      secureCookies: config.secureCookies,
      paymentNetworkDelayMs: config.paymentNetworkDelayMs,
      batchCardReads: config.batchCardReads,
      batchWrites: config.batchWrites && WRITES_TOGETHER[database.kind],
      dashboardPagesDir: DASHBOARD_PAGES_DIR,
      referenceUrls: references.urls,
    },
    db: database.db,
    clock: systemClock,
    ids: randomIds,
    logger,
  });
  const server: Server = createHttpServer(app, { referencePages: references.pages });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, () => resolve());
  });
  respondToHttpParserErrors(server, randomIds);
  // The responses being written, so that a shutdown can ask their connections to close after them.
  const inFlight = new Set<ServerResponse>();
  let closing = false;
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    // A request arriving on a kept-alive connection during shutdown is served, then the connection closes.
    if (closing) res.setHeader('Connection', 'close');
    inFlight.add(res);
    res.once('close', () => inFlight.delete(res));
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;

  // One request through the whole stack before the start is announced: a server that cannot
  // serve it fails its start instead of its first client.
  const warmUp = await fetch(`http://127.0.0.1:${port}/v1/bank`, { headers: { Connection: 'close' } });
  if (warmUp.status !== 200) throw new Error(`warm-up request failed with HTTP ${warmUp.status}`);
  await warmUp.arrayBuffer();

  const worker = startSettlementWorker({ db: database.db, clock: systemClock, logger });
  /**
   * Installed before the start is announced, so that a signal right after it is a graceful stop.
   * SIGTERM / SIGINT: stop accepting connections, let the requests in flight finish (their
   * connections close after the response; idle kept-alive ones close at once), let the settlement
   * pass in progress commit, then close the database (which releases the embedded database's
   * lock) and exit 0. Anything still running after 10 s is abandoned with exit code 1; its
   * transactions roll back and idempotency locks expire, so a retry elsewhere is safe.
   */
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    for (const res of inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    logger.info({ signal, inFlight: inFlight.size }, 'shutting down');
    const force = setTimeout(() => {
      logger.error({ inFlight: inFlight.size }, 'shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    void (async () => {
      await Promise.all([closed, worker.stop()]);
      await database.close();
      logger.info({ signal }, 'stopped');
      process.exit(0);
    })().catch((error: unknown) => {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  logger.info({ port, database: database.kind, validateResponses: config.validateResponses }, 'listening');
  if (demo !== undefined) {
    await printDemo(
      demo,
      config.publicUrl ?? `http://localhost:${port}`,
      config.databaseUrl === undefined,
      references.urls.partner !== undefined,
    );
  }
}

async function main(): Promise<void> {
  const config = readConfig();
  const logger = createLogger(config.logLevel);
  // Said before the database opens, at warn so that it shows at every usual LOG_LEVEL.
  if (config.embeddedDatabaseNotice !== undefined) logger.warn({ database: 'pglite' }, config.embeddedDatabaseNotice);
  if (config.workers > 1 && cluster.isPrimary) {
    // The primary migrates once, then each worker serves and settles; PostgreSQL arbitrates.
    const database = await openDatabase({ url: config.databaseUrl });
    await migrateToLatest(database.db);
    await database.close();
    for (let i = 0; i < config.workers; i += 1) cluster.fork();
    cluster.on('exit', (worker, code, signal) => {
      logger.warn({ pid: worker.process.pid, code, signal }, 'worker exited');
    });
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => {
        for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
      });
    }
    return;
  }
  await serve(config, logger, { primary: config.workers === 1 });
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
