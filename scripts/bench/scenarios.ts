/**
 * The requests of each measured run, and what they need from the running service: an access
 * token, a card id, a transfer to replay, pending transfers to execute, and signatures.
 *
 * Signatures cover METHOD + path + timestamp only (the document's "Signed write requests"), and
 * RSASSA-PKCS1-v1_5 is deterministic: within one second, one path has one signature. By default the client signs
 * each (path, second) once and reuses the bytes, and signs the execute requests (one path each)
 * before the run, so that the ~0.7 ms an RSA-2048 signature costs is not spent on the cores the
 * server is being measured on. The server verifies every request either way. `signEachRequest`
 * signs every request as it is sent instead, as a naive client would.
 */
import { createPrivateKey, createSign, randomUUID, type KeyObject } from 'node:crypto';
import type autocannon from 'autocannon';
import type { Onboarded } from './database.js';
import type { ConnectionRequest } from './load.js';
import { WALK_FILTER_SETS, PageCursor, PaginationPlan, mixSchedule, type CardKey, type Rotation } from './traffic.js';

/** A transfer the sandbox network settles as SUCCEEDED (an account ending in 0002 would fail). */
export const TRANSFER_BODY = JSON.stringify({
  amountCents: 100,
  currency: 'EGP',
  bankId: 'nbe',
  accountNumber: '100200300400',
  accountName: 'Bench Supplies',
  category: 'LOGISTICS',
});

/** Enough sandbox money for every execute of a long run (100 cents each). */
export const BENCH_BALANCE_CENTS = 10_000_000_000_00;

const DAY_MS = 86_400_000;

/**
 * The filtered page: three filters (statuses, categories, a date bound) and the largest page.
 * The bulk ledger covers the year before the current month and the sandbox ledger the last 90
 * days, so a 180-day bound keeps a full page of matches at every table size.
 */
export function transactionQuery(now: number, earlierMs = 0): string {
  const fromDate = Math.floor((now - 180 * DAY_MS) / DAY_MS) * DAY_MS - earlierMs;
  return `/v1/transaction?limit=100&statuses=SUCCEEDED,DECLINED&categories=FOOD_BEVERAGE,TRANSPORTATION,TRAVEL&fromDate=${fromDate}`;
}

export interface Signer {
  /** Base64 RSA-SHA256 of METHOD + path + timestamp. */
  sign(method: string, path: string, timestamp: string): string;
  /** Timestamp and signature headers for a request sent now. */
  headers(method: string, path: string): { 'x-partner-request-timestamp': string; 'x-partner-signature': string };
  /** Signatures made so far. */
  readonly count: number;
}

export function createSigner(privateKeyPem: string, options: { reuseWithinSecond: boolean }): Signer {
  const key: KeyObject = createPrivateKey(privateKeyPem);
  let count = 0;
  const recent = new Map<string, string>();
  let recentSecond = '';
  const signer: Signer = {
    get count() {
      return count;
    },
    sign(method, path, timestamp) {
      count += 1;
      return createSign('RSA-SHA256').update(`${method}${path}${timestamp}`).sign(key, 'base64');
    },
    headers(method, path) {
      const timestamp = String(Math.floor(Date.now() / 1000));
      if (!options.reuseWithinSecond) {
        return {
          'x-partner-request-timestamp': timestamp,
          'x-partner-signature': signer.sign(method, path, timestamp),
        };
      }
      if (timestamp !== recentSecond) {
        recent.clear();
        recentSecond = timestamp;
      }
      const memo = `${method} ${path}`;
      let signature = recent.get(memo);
      if (signature === undefined) {
        signature = signer.sign(method, path, timestamp);
        recent.set(memo, signature);
      }
      return { 'x-partner-request-timestamp': timestamp, 'x-partner-signature': signature };
    },
  };
  return signer;
}

/** Microseconds one RSA-2048 signature costs this process (the median of `rounds`). */
export function signingCostUs(signer: Signer, rounds = 200): number {
  const times: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const start = process.hrtime.bigint();
    signer.sign('POST', `/v1/transfer/trf_${i}/execute`, '1700000000');
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

export interface Session {
  readonly organizationId: string;
  readonly token: string;
  /** The exact body GET /v1/bank responded with (the baselines respond with the same). */
  readonly bankListJson: string;
  readonly cardId: string;
  readonly signer: Signer;
  /** Idempotency key of a transfer already created, for the replay run. */
  readonly replayKey: string;
  /** Ids of PENDING transfers created so far, for the execute run. */
  readonly pendingTransfers: string[];
  /** 200 responses to replays without `Idempotent-Replayed: true`: each would be a new transfer, not a replay. */
  replaysNotMarked: number;
}

async function expectOk(response: Response, what: string): Promise<string> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${what} responded with ${response.status}: ${text.slice(0, 500)}`);
  return text;
}

export async function fetchToken(baseUrl: string, credentials: Onboarded): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  const body = JSON.parse(await expectOk(response, 'POST /v1/oauth/token')) as { access_token?: unknown };
  if (typeof body.access_token !== 'string') throw new Error('the token response has no access_token');
  return body.access_token;
}

/** Token, bank list, an activated card (its availableBalance sums the ledger) and one transfer to replay. */
export async function openSession(
  baseUrl: string,
  credentials: Onboarded,
  options: { signEachRequest: boolean },
): Promise<Session> {
  const token = await fetchToken(baseUrl, credentials);
  const bankListJson = await expectOk(await fetch(`${baseUrl}/v1/bank`), 'GET /v1/bank');
  const cardPage = JSON.parse(
    await expectOk(
      await fetch(`${baseUrl}/v1/card?limit=100`, { headers: { Authorization: `Bearer ${token}` } }),
      'GET /v1/card',
    ),
  ) as { cards: { id: string; availableBalance: unknown }[] };
  const card = cardPage.cards.find((c) => c.availableBalance !== null) ?? cardPage.cards[0];
  if (card === undefined) throw new Error('the demo organization has no card');

  const signer = createSigner(credentials.privateKeyPem, { reuseWithinSecond: !options.signEachRequest });
  const replayKey = randomUUID();
  const created = await fetch(`${baseUrl}/v1/transfer`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': replayKey,
      ...signer.headers('POST', '/v1/transfer'),
    },
    body: TRANSFER_BODY,
  });
  await expectOk(created, 'POST /v1/transfer');
  return {
    organizationId: credentials.organizationId,
    token,
    bankListJson,
    cardId: card.id,
    signer,
    replayKey,
    pendingTransfers: [],
    replaysNotMarked: 0,
  };
}

/** Every card id of the session's organization, page by page through GET /v1/card (listCards). */
export async function listCardIds(baseUrl: string, session: Session): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const query = cursor === undefined ? 'limit=100' : `limit=100&cursor=${encodeURIComponent(cursor)}`;
    const response = await fetch(`${baseUrl}/v1/card?${query}`, {
      headers: { Authorization: `Bearer ${session.token}` },
    });
    const page = JSON.parse(await expectOk(response, 'GET /v1/card')) as {
      cards: { id: string }[];
      nextCursor?: string;
    };
    ids.push(...page.cards.map((card) => card.id));
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return ids;
}

const TRANSFER_ID = /"id":"(trf_[A-Za-z0-9_-]+)"/;

export function listBanksRequest(): autocannon.Request {
  return { method: 'GET', path: '/v1/bank' };
}

export function getCardRequest(session: Session): autocannon.Request {
  return { method: 'GET', path: `/v1/card/${session.cardId}`, headers: { authorization: `Bearer ${session.token}` } };
}

/** The same filtered page each request: after the first, the service serves the page it keeps. */
export function listTransactionsRequest(token: string, now: number): autocannon.Request {
  return { method: 'GET', path: transactionQuery(now), headers: { authorization: `Bearer ${token}` } };
}

/**
 * A filtered page no request asked for before (its fromDate one millisecond earlier than the
 * last one's, the same records), so none is served from what the service keeps: what a page costs
 * the database and the server each time.
 */
export function listTransactionsUnkeptRequest(token: string, now: number): autocannon.Request {
  let earlierMs = 0;
  return {
    method: 'GET',
    path: transactionQuery(now),
    headers: { authorization: `Bearer ${token}` },
    setupRequest: (request) => {
      earlierMs += 1;
      request.path = transactionQuery(now, earlierMs);
      return request;
    },
  };
}

/** A new transfer each request (fresh Idempotency-Key); the ids go to the execute run's pool. */
export function createTransferRequest(session: Session): autocannon.Request {
  return {
    method: 'POST',
    path: '/v1/transfer',
    headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
    body: TRANSFER_BODY,
    setupRequest: (request) => {
      request.headers = {
        ...request.headers,
        'idempotency-key': randomUUID(),
        ...session.signer.headers('POST', '/v1/transfer'),
      };
      return request;
    },
    onResponse: (status, body) => {
      if (status !== 200) return;
      const id = TRANSFER_ID.exec(body)?.[1];
      if (id !== undefined) session.pendingTransfers.push(id);
    },
  };
}

/** The same key and body each request: the stored response comes back, replayed. */
export function createTransferReplayRequest(session: Session): autocannon.Request {
  return {
    method: 'POST',
    path: '/v1/transfer',
    headers: {
      authorization: `Bearer ${session.token}`,
      'content-type': 'application/json',
      'idempotency-key': session.replayKey,
    },
    body: TRANSFER_BODY,
    setupRequest: (request) => {
      request.headers = { ...request.headers, ...session.signer.headers('POST', '/v1/transfer') };
      return request;
    },
    onResponse: (status, _body, _context, headers) => {
      const replayed = headers?.['idempotent-replayed'] ?? headers?.['Idempotent-Replayed'];
      if (status === 200 && replayed !== 'true') session.replaysNotMarked += 1;
    },
  };
}

export interface SignedExecute {
  readonly path: string;
  readonly timestamp: string;
  readonly signature: string;
}

/** Signs the execute of each pending transfer now (one path each), unless signing happens per request. */
export function presignExecutes(session: Session, ids: readonly string[]): SignedExecute[] {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return ids.map((id) => {
    const path = `/v1/transfer/${id}/execute`;
    return { path, timestamp, signature: session.signer.sign('POST', path, timestamp) };
  });
}

/**
 * Each request executes the next pending transfer of the pool. `presigned` carries signatures
 * made before the run; without it each request is signed as it is sent.
 */
export function executeTransferRequest(
  session: Session,
  pool: readonly string[],
  presigned: readonly SignedExecute[] | undefined,
): autocannon.Request {
  let next = 0;
  return {
    method: 'POST',
    path: '/v1/transfer/none/execute',
    headers: { authorization: `Bearer ${session.token}` },
    setupRequest: (request) => {
      // autocannon builds each connection's next request ahead of sending it, so the last few
      // built may never be sent; the run's `amount` leaves that margin in the pool. Past the end
      // the last id is reused (a 400 that would show in the run's non-2xx count).
      const index = Math.min(next, pool.length - 1);
      next += 1;
      const signed = presigned?.[index];
      const id = pool[index] ?? 'none';
      const path = signed?.path ?? `/v1/transfer/${id}/execute`;
      const write =
        signed === undefined
          ? session.signer.headers('POST', path)
          : { 'x-partner-request-timestamp': signed.timestamp, 'x-partner-signature': signed.signature };
      request.path = path;
      request.headers = { ...request.headers, 'idempotency-key': randomUUID(), ...write };
      return request;
    },
  };
}

/** The organizations of the spread runs, and where those runs are in their cards and walks (kept across runs, so that no page is asked for twice). */
export interface Traffic {
  /** One session per organization; the first is the one the other runs use. */
  readonly sessions: readonly Session[];
  readonly cards: Rotation<CardKey>;
  readonly cardCount: number;
  /** Every run's walk plan so far, the latest last (freshPaginationPlan). */
  readonly paginationPlans: PaginationPlan[];
  /** Every connection's walk so far, for the pages and walks a run covered. */
  readonly paginators: PageCursor[];
  /** The benchmark's start: the walks' date bounds. */
  readonly now: number;
}

/** Each request the next card of the rotation, with its organization's token. */
export function getCardSpreadRequest(traffic: Traffic): autocannon.Request {
  return {
    method: 'GET',
    path: '/v1/card/none',
    setupRequest: (request) => {
      const { organization, cardId } = traffic.cards.take();
      request.path = `/v1/card/${cardId}`;
      request.headers = { authorization: `Bearer ${traffic.sessions[organization]?.token ?? ''}` };
      return request;
    },
  };
}

/** A walk plan for one load, starting at the first round no earlier load has walked. */
export function freshPaginationPlan(traffic: Traffic): PaginationPlan {
  const plan = new PaginationPlan(
    traffic.sessions.length,
    WALK_FILTER_SETS,
    traffic.paginationPlans.at(-1)?.nextFreeRound ?? 0,
  );
  traffic.paginationPlans.push(plan);
  return plan;
}

/** The first page of the first walk: what a failing walk run's sample sends. */
export function paginationSampleRequest(traffic: Traffic): autocannon.Request {
  return {
    method: 'GET',
    path: '/v1/transaction?limit=100',
    headers: { authorization: `Bearer ${traffic.sessions[0]?.token ?? ''}` },
  };
}

/** A connection that walks: each response's nextCursor asks for the next page, and a walk's last page starts the plan's next walk. */
export function paginationConnection(traffic: Traffic, plan: PaginationPlan): ConnectionRequest {
  const paginator = new PageCursor(plan);
  traffic.paginators.push(paginator);
  return {
    request: {
      method: 'GET',
      path: '/v1/transaction',
      setupRequest: (request) => {
        const page = paginator.page(traffic.now);
        request.path = page.path;
        request.headers = { authorization: `Bearer ${traffic.sessions[page.organization]?.token ?? ''}` };
        return request;
      },
      onResponse: (status, body) => paginator.received(status, body),
    },
  };
}

/** The mixed run's operations, named by operationId, and their share of every 20 requests. */
export const MIXED_OPERATIONS = [
  { operation: 'getCard', weight: 8 },
  { operation: 'listTransactions', weight: 8 },
  { operation: 'createTransfer', weight: 3 },
  { operation: 'executeTransfer', weight: 1 },
] as const;

export type MixedOperation = (typeof MIXED_OPERATIONS)[number]['operation'];

/** Share of the mixed run's requests that are executes: what its pool of pending transfers must cover. */
export const MIXED_EXECUTE_SHARE =
  MIXED_OPERATIONS.reduce((sum, { operation, weight }) => sum + (operation === 'executeTransfer' ? weight : 0), 0) /
  MIXED_OPERATIONS.reduce((sum, { weight }) => sum + weight, 0);

/** The pending transfers the mixed run's executes spend, each once, across the organizations. */
export interface ExecutePool {
  readonly entries: readonly {
    readonly organization: number;
    readonly id: string;
    readonly signed: SignedExecute | undefined;
  }[];
  next: number;
  /** Execute turns that found the pool spent and sent a create instead. */
  spentTurns: number;
}

/**
 * A connection of the mixed run: its requests follow the schedule from its own place in it (so
 * that the connections do not all write at once), card reads take the shared rotation, walk pages
 * continue this connection's walk, creates go to each organization in turn, and executes spend the
 * pool. `operation` names what is in flight, for the latencies per operation.
 */
export function mixedConnection(
  traffic: Traffic,
  plan: PaginationPlan,
  pool: ExecutePool,
  index: number,
): ConnectionRequest {
  const schedule = mixSchedule(MIXED_OPERATIONS);
  const paginator = new PageCursor(plan);
  traffic.paginators.push(paginator);
  // 7 is prime to the 20 slots: ten connections start at ten different places.
  let slot = (index * 7) % schedule.length;
  let creates = index;
  let inFlight: MixedOperation = 'getCard';
  const bearer = (organization: number): string => `Bearer ${traffic.sessions[organization]?.token ?? ''}`;
  return {
    operation: () => inFlight,
    request: {
      method: 'GET',
      path: '/',
      setupRequest: (request) => {
        let operation = schedule[slot % schedule.length] ?? 'getCard';
        slot += 1;
        const execute = operation === 'executeTransfer' ? pool.entries[pool.next] : undefined;
        if (operation === 'executeTransfer') {
          if (execute === undefined) {
            pool.spentTurns += 1;
            operation = 'createTransfer';
          } else pool.next += 1;
        }
        inFlight = operation;
        switch (operation) {
          case 'getCard': {
            const { organization, cardId } = traffic.cards.take();
            return {
              ...request,
              method: 'GET',
              path: `/v1/card/${cardId}`,
              headers: { authorization: bearer(organization) },
              body: '',
            };
          }
          case 'listTransactions': {
            const page = paginator.page(traffic.now);
            return {
              ...request,
              method: 'GET',
              path: page.path,
              headers: { authorization: bearer(page.organization) },
              body: '',
            };
          }
          case 'createTransfer': {
            const organization = creates++ % traffic.sessions.length;
            const session = traffic.sessions[organization];
            return {
              ...request,
              method: 'POST',
              path: '/v1/transfer',
              headers: {
                authorization: bearer(organization),
                'content-type': 'application/json',
                'idempotency-key': randomUUID(),
                ...session?.signer.headers('POST', '/v1/transfer'),
              },
              body: TRANSFER_BODY,
            };
          }
          case 'executeTransfer': {
            const { organization, id, signed } = execute ?? { organization: 0, id: 'none', signed: undefined };
            const path = `/v1/transfer/${id}/execute`;
            const write =
              signed === undefined
                ? traffic.sessions[organization]?.signer.headers('POST', path)
                : { 'x-partner-request-timestamp': signed.timestamp, 'x-partner-signature': signed.signature };
            return {
              ...request,
              method: 'POST',
              path,
              headers: { authorization: bearer(organization), 'idempotency-key': randomUUID(), ...write },
              body: '',
            };
          }
        }
      },
      onResponse: (status, body) => {
        if (inFlight === 'listTransactions') paginator.received(status, body);
      },
    },
  };
}
