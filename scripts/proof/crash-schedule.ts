import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { onboardOrganization } from '../../server/onboarding.js';
import { randomIds, systemClock } from '../../server/clock-and-ids.js';
import { openDatabase, type Database } from '../../server/database/open.js';
import { mulberry32, picker, type Picker } from '../../server/sandbox/seeded-random.js';
import { createTestDatabaseOf, pgliteTemplate, type TestDatabase } from './database.js';
import { checkInvariants, waitForSettlement, type InvariantReport } from './invariants.js';
import { field, proofClient, transferBody, type ProofResponse, type ProofClient } from './proof-client.js';
import { freePort, startServerProcess, type ServerProcess } from './server-process.js';

// The crash proof: the server process is killed with SIGKILL at moments a
// seeded schedule picks (under load, and now and then while it is still starting), while
// clients create, execute and cancel transfers and retry with their idempotency keys. After
// the last kill the server is started once more, every unanswered request is retried with its
// key until it has a response, the payment network settles, and then:
// - the invariants of invariants.ts hold (money, states, one transfer per key, each change
//   committed with its stored response);
// - every 2xx a client saw is reflected in the database, and every other response too;
// - every key converged: exactly one transfer for a create responded with 200, none otherwise;
// - a replay with the same key gives the same response, marked Idempotent-Replayed.
// The seed fixes the kill schedule and the clients' choices (amounts, kinds, which transfer);
// the interleaving with the server is the operating system's, so a seed replays the schedule,
// not every byte.

export type CrashDatabase = 'postgres' | 'pglite';

export interface CrashOptions {
  readonly seed: number;
  /** SIGKILLs to deliver. */
  readonly kills: number;
  readonly database: CrashDatabase;
  /** Concurrent clients. Default 6. */
  readonly clients?: number;
  /** How long a server lives under load before its kill, in ms. Default 100–900. */
  readonly lifeMs?: readonly [number, number];
  /** The share of kills aimed at start-up (migrations, recovery, warm-up) instead of load. Default 0.15. */
  readonly startupKillShare?: number;
  /** PAYMENT_NETWORK_DELAY_MS: short, so that kills land in the middle of settlements too. Default 150. */
  readonly paymentNetworkDelayMs?: number;
  readonly log?: (line: string) => void;
}

export interface CrashReport {
  readonly seed: number;
  readonly database: CrashDatabase;
  readonly kills: number;
  readonly killsDuringStartup: number;
  readonly killsUnderLoad: number;
  readonly requests: number;
  /** Requests that got no response: the connection broke at a kill (then retried with their key). */
  readonly interrupted: number;
  readonly responsesByStatus: Record<string, number>;
  readonly replaysChecked: number;
  /** Embedded database: kills that left the killed server's pid lock behind, which the next start took over. */
  readonly staleLocksTakenOver: number;
  readonly operations: { readonly creates: number; readonly executes: number; readonly cancels: number };
  readonly invariants: InvariantReport;
  readonly violations: string[];
  readonly durationMs: number;
}

type OpKind = 'create' | 'execute' | 'cancel';

interface Operation {
  readonly kind: OpKind;
  readonly key: string;
  readonly path: string;
  readonly body?: Record<string, unknown>;
  /** Index into the planned transfers. */
  readonly transfer: number;
  /** The first definitive response (not a broken connection, not 409). */
  answer?: ProofResponse;
}

interface PlannedTransfer {
  readonly amountCents: number;
  readonly fails: boolean;
  readonly create: Operation;
  id?: string;
  followUp?: Operation;
}

/** EGP 150,000: the executes of a CI run drain it, so InsufficientFunds answers are part of every schedule. */
const START_BALANCE_CENTS = 15_000_000;

/** Opens and closes: the embedded database's data dir is free only while no server runs. */
interface DatabaseAccess {
  readonly url: string | undefined;
  readonly cwd: string | undefined;
  /** The embedded database's pid lock file. */
  readonly lockFile: string | undefined;
  with<T>(fn: (database: Database) => Promise<T>): Promise<T>;
  /** True when the database can be used while a server runs (PostgreSQL). */
  readonly shared: boolean;
  dispose(): Promise<void>;
}

async function prepareDatabase(kind: CrashDatabase): Promise<DatabaseAccess> {
  if (kind === 'postgres') {
    const database: TestDatabase = await createTestDatabaseOf('postgres');
    return {
      url: database.url,
      cwd: undefined,
      lockFile: undefined,
      shared: true,
      with: (fn) => fn(database),
      dispose: () => database.close(),
    };
  }
  // The server keeps the embedded database under <cwd>/.data/pglite; the
  // scratch directory is its working directory.
  const scratch = mkdtempSync(join(tmpdir(), 'pps-crash-'));
  const dataDir = join(scratch, '.data', 'pglite');
  const template = await pgliteTemplate();
  let created = false;
  return {
    url: undefined,
    cwd: scratch,
    lockFile: `${dataDir}.lock`,
    shared: false,
    async with(fn) {
      const database = await openDatabase({ dataDir, ...(created ? {} : { loadDataDir: template }) });
      created = true;
      try {
        return await fn(database);
      } finally {
        await database.close();
      }
    },
    dispose: async () => rmSync(scratch, { recursive: true, force: true }),
  };
}

/** Opens when a server is ready, closes before it is killed. */
class Gate {
  private open = false;
  private waiters: Array<() => void> = [];

  up(): void {
    this.open = true;
    for (const wake of this.waiters.splice(0)) wake();
  }

  down(): void {
    this.open = false;
  }

  wait(): Promise<void> {
    return this.open ? Promise.resolve() : new Promise((resolve) => this.waiters.push(resolve));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function runCrashSchedule(options: CrashOptions): Promise<CrashReport> {
  const started = Date.now();
  const log = options.log ?? (() => {});
  const prng = picker(mulberry32(options.seed));
  const clientCount = options.clients ?? 6;
  const [minLife, maxLife] = options.lifeMs ?? [100, 900];
  const startupShare = options.startupKillShare ?? 0.15;
  const violations: string[] = [];
  const responsesByStatus: Record<string, number> = {};
  let requests = 0;
  let interrupted = 0;
  let replaysChecked = 0;
  let killsDuringStartup = 0;
  let killsUnderLoad = 0;
  let staleLocksTakenOver = 0;

  const access = await prepareDatabase(options.database);
  let server: ServerProcess | undefined;
  try {
    const credentials = await access.with((database) =>
      onboardOrganization(
        database.db,
        { ids: randomIds, clock: systemClock },
        { name: 'Crash Proof Ltd', balanceCents: START_BALANCE_CENTS },
      ),
    );
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const partner: ProofClient = proofClient(credentials, [baseUrl]);
    const start = (): ServerProcess =>
      startServerProcess({
        name: `crash-${options.database}`,
        port,
        ...(access.cwd !== undefined ? { cwd: access.cwd } : {}),
        databaseUrl: access.url,
        paymentNetworkDelayMs: options.paymentNetworkDelayMs ?? 150,
      });

    const gate = new Gate();
    const transfers: PlannedTransfer[] = [];
    const operations: Operation[] = [];
    let generating = true;
    let serial = 0;

    /** Sends an operation once; records its first definitive response. */
    const attempt = async (operation: Operation, replay = false): Promise<'answered' | 'busy' | 'broken'> => {
      requests += 1;
      let answer: ProofResponse;
      try {
        answer = await partner.send('POST', operation.path, {
          key: operation.key,
          ...(operation.body !== undefined ? { body: operation.body } : {}),
          timeoutMs: 15_000,
        });
      } catch {
        interrupted += 1;
        return 'broken';
      }
      responsesByStatus[answer.status] = (responsesByStatus[answer.status] ?? 0) + 1;
      if (answer.status === 409) return 'busy';
      if (answer.status >= 500)
        violations.push(`${operation.kind} ${operation.key}: answered ${answer.status} ${JSON.stringify(answer.body)}`);
      if (replay) {
        replaysChecked += 1;
        const first = operation.answer;
        if (
          first !== undefined &&
          (!answer.replayed || answer.status !== first.status || !isDeepStrictEqual(answer.body, first.body))
        ) {
          violations.push(
            `${operation.kind} ${operation.key}: replay answered ${answer.status} ${JSON.stringify(answer.body)} (replayed: ${answer.replayed}), first ${first.status} ${JSON.stringify(first.body)}`,
          );
        }
        return 'answered';
      }
      if (operation.answer === undefined) {
        operation.answer = answer;
        const transfer = transfers[operation.transfer];
        if (operation.kind === 'create' && answer.status === 200 && transfer !== undefined)
          transfer.id = String(field(answer, 'id'));
      }
      return 'answered';
    };

    const newOperation = (clientPrng: Picker): Operation | undefined => {
      const waiting = transfers
        .map((transfer, index) => ({ transfer, index }))
        .filter(({ transfer }) => transfer.id !== undefined && transfer.followUp === undefined);
      if (waiting.length > 0 && clientPrng.chance(0.55)) {
        const { transfer, index } = clientPrng.pick(waiting);
        const kind: OpKind = clientPrng.chance(0.75) ? 'execute' : 'cancel';
        const operation: Operation = {
          kind,
          key: randomUUID(),
          path: `/v1/transfer/${transfer.id ?? ''}/${kind}`,
          transfer: index,
        };
        transfer.followUp = operation;
        operations.push(operation);
        return operation;
      }
      const amountCents = clientPrng.int(10_000, 1_000_000);
      const fails = clientPrng.chance(0.2);
      serial += 1;
      const create: Operation = {
        kind: 'create',
        key: randomUUID(),
        path: '/v1/transfer',
        body: transferBody(amountCents, { fails, serial }),
        transfer: transfers.length,
      };
      transfers.push({ amountCents, fails, create });
      operations.push(create);
      return create;
    };

    const client = async (index: number): Promise<void> => {
      const clientPrng = picker(mulberry32((options.seed ^ ((index + 1) * 0x9e3779b1)) >>> 0));
      // `pending`: cut off by a kill, retried with its key as soon as a server is up again.
      // `parked`: responded with 409 (its key is held, perhaps by a killed request for up to the lock
      // timeout): set aside and retried now and then, while the client goes on with new work.
      let pending: Operation | undefined;
      const parked: Operation[] = [];
      for (;;) {
        await gate.wait();
        // After the last kill the schedule retries what is left; clients stop here.
        if (!generating) return;
        let operation = pending;
        if (operation === undefined) {
          const answered = operations.filter((candidate) => candidate.answer !== undefined);
          if (parked.length > 0 && clientPrng.chance(0.1)) operation = parked.shift();
          else if (answered.length > 0 && clientPrng.chance(0.1)) {
            await attempt(clientPrng.pick(answered), true);
            continue;
          } else operation = newOperation(clientPrng);
          if (operation === undefined) continue;
        }
        const outcome = await attempt(operation);
        pending = outcome === 'broken' ? operation : undefined;
        if (outcome === 'busy') parked.push(operation);
        if (outcome === 'broken') await sleep(25);
      }
    };

    // The schedule: each life ends in a SIGKILL, at start-up or under load.
    const clients = Array.from({ length: clientCount }, (_, index) => client(index));
    for (let kill = 0; kill < options.kills;) {
      server = start();
      const spawned = Date.now();
      if (prng.chance(startupShare)) {
        const after = prng.int(20, 1500);
        const outcome = await Promise.race([
          server.ready.then(() => 'ready' as const),
          sleep(after).then(() => 'timer' as const),
        ]);
        if (outcome === 'timer') {
          await server.kill('SIGKILL');
          kill += 1;
          killsDuringStartup += 1;
          log(`kill ${kill}/${options.kills} during start-up, ${after} ms after spawn`);
          continue;
        }
      }
      await server.ready;
      const startupMs = Date.now() - spawned;
      gate.up();
      const life = prng.int(minLife, maxLife);
      await sleep(life);
      gate.down();
      await server.kill('SIGKILL');
      kill += 1;
      killsUnderLoad += 1;
      // SIGKILL runs no exit handler: the killed server's pid lock stays, and the next start must take it over.
      const lockFile = access.lockFile;
      if (lockFile !== undefined) {
        let holder: unknown;
        try {
          holder = existsSync(lockFile)
            ? (JSON.parse(readFileSync(lockFile, 'utf8')) as { pid?: unknown }).pid
            : undefined;
        } catch {
          holder = 'unreadable';
        }
        if (holder === server.pid) staleLocksTakenOver += 1;
        else
          violations.push(
            `after kill ${kill} the lock file names ${String(holder)}, not the killed server ${server.pid}`,
          );
      }
      log(
        `kill ${kill}/${options.kills} under load after ${life} ms (start-up took ${startupMs} ms; ${requests} requests so far)`,
      );
    }

    // The last life: no new work; every unanswered request is retried with its key.
    generating = false;
    gate.up();
    await Promise.all(clients);
    gate.down();
    server = start();
    await server.ready;
    gate.up();
    const unanswered = (): Operation[] => operations.filter((operation) => operation.answer === undefined);
    // A killed request's transaction rolled back and stored nothing: its retry runs as new, or
    // replays the response of a request that committed before the kill. Retried until responded.
    const retryDeadline = Date.now() + 30_000;
    while (unanswered().length > 0 && Date.now() < retryDeadline) {
      for (const operation of unanswered()) await attempt(operation);
      if (unanswered().length > 0) await sleep(100);
    }
    for (const operation of unanswered())
      violations.push(`${operation.kind} ${operation.key}: never responded after the last restart`);

    // Settlement resumes after every restart; then the server stops and the database is read.
    const organizationIds = [credentials.organizationId];
    if (access.shared) await access.with((database) => waitForSettlement(database.db, organizationIds));
    else {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const pending = await fetchProcessing(partner);
        if (pending === 0) break;
        if (Date.now() > deadline) throw new Error(`${pending} transfers still PROCESSING`);
        await sleep(200);
      }
    }
    await server.stop();
    server = undefined;

    const invariants = await access.with(async (database) => {
      const report = await checkInvariants(database.db, [
        { id: credentials.organizationId, startCents: START_BALANCE_CENTS },
      ]);
      const rows = await database.db
        .selectFrom('transfers')
        .selectAll()
        .where('organization_id', '=', credentials.organizationId)
        .execute();
      const byKey = new Map(rows.map((row) => [row.idempotency_key, row]));
      const creates = new Set(transfers.map((transfer) => transfer.create.key));
      for (const row of rows)
        if (!creates.has(row.idempotency_key))
          violations.push(`transfer ${row.id} has key ${row.idempotency_key}, which no client used`);
      for (const transfer of transfers) {
        const { create, followUp } = transfer;
        const row = byKey.get(create.key);
        if (create.answer?.status === 200) {
          if (row === undefined || row.id !== transfer.id || row.amount_cents !== transfer.amountCents) {
            violations.push(
              `create ${create.key} responded with 200 with ${transfer.id ?? '?'}, but the database holds ${row === undefined ? 'no transfer' : `${row.id} of ${row.amount_cents}`}`,
            );
            continue;
          }
        } else {
          if (row !== undefined)
            violations.push(
              `create ${create.key} answered ${create.answer?.status ?? 'nothing'}, yet transfer ${row.id} exists`,
            );
          continue;
        }
        const outcome = followUp?.answer;
        const executed = followUp?.kind === 'execute' && outcome?.status === 200;
        const cancelled = followUp?.kind === 'cancel' && outcome?.status === 200;
        const want = executed ? (transfer.fails ? 'FAILED' : 'SUCCEEDED') : cancelled ? 'CANCELLED' : 'PENDING';
        if (row.status !== want) {
          violations.push(
            `transfer ${row.id}: ${row.status}, but its ${followUp?.kind ?? 'absent follow-up'} answered ${outcome === undefined ? 'nothing' : `${outcome.status} ${JSON.stringify(outcome.body)}`} (want ${want})`,
          );
        }
        if (
          followUp?.kind === 'execute' &&
          outcome !== undefined &&
          outcome.status !== 200 &&
          field(outcome, 'type') !== 'InsufficientFunds'
        ) {
          violations.push(
            `execute ${followUp.key}: unexpected answer ${outcome.status} ${JSON.stringify(outcome.body)}`,
          );
        }
        if (followUp?.kind === 'cancel' && outcome !== undefined && outcome.status !== 200) {
          violations.push(
            `cancel ${followUp.key}: unexpected answer ${outcome.status} ${JSON.stringify(outcome.body)}`,
          );
        }
      }
      return report;
    });
    violations.push(...invariants.violations);

    return {
      seed: options.seed,
      database: options.database,
      kills: killsDuringStartup + killsUnderLoad,
      killsDuringStartup,
      killsUnderLoad,
      requests,
      interrupted,
      responsesByStatus,
      replaysChecked,
      staleLocksTakenOver,
      operations: {
        creates: operations.filter((operation) => operation.kind === 'create').length,
        executes: operations.filter((operation) => operation.kind === 'execute').length,
        cancels: operations.filter((operation) => operation.kind === 'cancel').length,
      },
      invariants,
      violations,
      durationMs: Date.now() - started,
    };
  } finally {
    await server?.kill('SIGKILL');
    await access.dispose();
  }
}

/** PROCESSING transfers as the API shows them (for the embedded database, which the server holds). */
async function fetchProcessing(partner: ProofClient): Promise<number> {
  let count = 0;
  let cursor: string | undefined;
  for (;;) {
    const query = new URLSearchParams({
      status: 'PROCESSING',
      limit: '100',
      ...(cursor !== undefined ? { cursor } : {}),
    });
    const page = await partner.send('GET', `/v1/transfer?${query.toString()}`);
    if (page.status !== 200) throw new Error(`listing PROCESSING transfers answered ${page.status}`);
    const transfers = field(page, 'transfers');
    count += Array.isArray(transfers) ? transfers.length : 0;
    const next = field(page, 'nextCursor');
    if (typeof next !== 'string') return count;
    cursor = next;
  }
}
