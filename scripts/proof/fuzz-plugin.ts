import { createHash, createPrivateKey, createSign, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { SignJWT, decodeJwt } from 'jose';
import type { Kysely } from 'kysely';
import type { OnboardingResult } from '../../server/onboarding.js';
import type { Clock } from '../../server/clock-and-ids.js';
import type { DB } from '../../server/database/schema.js';
import { seedSandboxData } from '../../server/sandbox/demo-organization.js';
import type { OutgoingRequest } from 'contract-first/check';
import type { CheckAuth } from 'contract-first/check';
import type { CaseContext, CheckPlugin, PluginExchange, PluginStream, PluginVerdict } from 'contract-first/check';
import type { ReceivedResponse } from 'contract-first/check';
import { loadDocument, type OperationSpec } from './document.js';
import { baseline, caseFor, OPERATIONS, type FuzzCase, type Outcome, type TimestampFormat } from './fuzz-cases.js';
import type { RawRequest } from './raw-http.js';

// The service's plug-in for the toolkit's contract checker (contract-first/check, CheckPlugin):
// what only this service knows, around the checker's generic drawing, sending, judging,
// shrinking and replaying.
// - Lanes: organizations with their own data (sandbox cards and transactions, 15 transfers,
//   tokens of each scope, forged tokens, list cursors); each request runs on one lane, one at a
//   time per lane (the checker's serialization key), so that the database check of one lane is
//   not disturbed by another.
// - A stream of the service's case families per operation (fuzz-cases.ts), each case resolved on
//   its lane when it is sent (ids, cursors, tokens, signatures, keys to reuse).
// - judge, on every response:
//   proof:request-id     X-Request-Id always; proof:powered-by no X-Powered-By;
//   proof:error-shape    every error body in the Error shape: `message`, `type`, `details`
//                        optional, nothing else (the token endpoint adds `error` and
//                        `error_description`), as application/json;
//   proof:error-type     `type` one of the document's ErrorType values, with a status the
//                        document's ErrorType table allows for that type;
//   proof:token-error    the token endpoint's RFC 6749 error code;
//   proof:leak           no stack trace, SQL, file path, driver or JavaScript error in an error body;
//   proof:header         WWW-Authenticate on 401 and 403, Allow on 405, Retry-After on 429;
//   proof:status         the status and type the service gives the case (fuzz-cases.ts);
//   proof:replay         a replay with a used key responds with the stored response, marked Idempotent-Replayed.
// - around each write, a database snapshot before and after:
//   proof:rejected-write a rejected write changes nothing: the lane's balance, transfers, card
//                        limits and keys are the same, except the one key that stores the
//                        operation's own error response (a key stores its operation's 4xx responses);
//   proof:stored-response that key stores exactly the response sent (never a 401, 403, 409, 413,
//                        415, 422 or 5xx), and a 2xx write stores its response with its key.
// The checker itself reports a 5xx (server-error), a hang and a failed connection.

/** The running app the proof checks, and what it reads of it: the database, the clock, onboarding. */
export interface FuzzApp {
  readonly baseUrl: string;
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  onboard(request: { name: string; balanceCents: number }): Promise<OnboardingResult>;
}

const doc = loadDocument();
const ERROR_KEYS = new Set(['message', 'type', 'details']);
const TOKEN_ERROR_KEYS = new Set(['message', 'type', 'details', 'error', 'error_description']);
const OAUTH_ERRORS = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
]);
const TOKEN_PATH = OPERATIONS.find((operation) => operation.operationId === 'createToken')?.path ?? '/v1/oauth/token';

/** What must never appear in an error body (no stack trace, SQL text or secret). */
const LEAKS: Array<[string, RegExp]> = [
  ['a stack frame', /\n\s+at |\bat [\w.<>]+ \(.*:\d+:\d+\)/],
  ['a file path', /\/(?:work|home|usr|tmp|root)\/|node_modules|\.ts:\d+|file:\/\//],
  [
    'SQL',
    /\b(?:select|insert into|update|delete from)\b.*\b(?:from|set|where|values)\b|syntax error at|violates .* constraint|relation "|duplicate key value/i,
  ],
  ['a driver error', /\b(?:ECONNREFUSED|PGlite|kysely|pg_|SQLSTATE)\b/i],
  ['a JavaScript error name', /\b(?:TypeError|RangeError|ReferenceError|SyntaxError):/],
];

export interface HistoryEntry {
  readonly method: string;
  readonly target: string;
  readonly path: string;
  readonly body: Buffer | undefined;
  /** Content-Type and Content-Encoding as sent: a replay sends the same bytes the same way. */
  readonly contentHeaders: ReadonlyArray<readonly [string, string]>;
  readonly key: string;
  readonly status: number;
  readonly received: unknown;
}

const CONTENT_HEADERS = new Set(['Content-Type', 'Content-Encoding']);

/**
 * A body as the server reads it: gunzipped when sent with `Content-Encoding: gzip` (the only
 * encoding the cases send that the server accepts); as sent otherwise, or when it does not inflate.
 */
function contentOf(body: Buffer | undefined, headers: ReadonlyArray<readonly [string, string | Buffer]>): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  const encoding = headers
    .find(([name]) => name === 'Content-Encoding')?.[1]
    .toString()
    .trim()
    .toLowerCase();
  if (encoding !== 'gzip') return body;
  try {
    return gunzipSync(body);
  } catch {
    return body;
  }
}

interface Lane {
  readonly index: number;
  readonly credentials: OnboardingResult;
  readonly privateKey: KeyObject;
  readonly token: string;
  readonly scopedTokens: Map<string, string>;
  readonly forged: Record<'tampered' | 'alg-none' | 'foreign-key' | 'expired' | 'wrong-audience', string>;
  readonly ids: Record<'card' | 'transfer' | 'transaction', string[]>;
  readonly cursors: Map<string, string>;
  readonly history: HistoryEntry[];
  busy: Promise<void>;
}

interface World {
  readonly lanes: Lane[];
  readonly foreign: Record<'card' | 'transfer' | 'transaction', string[]>;
  readonly tokenClient: OnboardingResult;
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function stableIndex(text: string, length: number): number {
  return length === 0 ? 0 : createHash('sha256').update(text).digest().readUInt32BE(0) % length;
}

async function signedFetch(
  app: FuzzApp,
  lane: Pick<Lane, 'privateKey' | 'token'>,
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const timestamp = String(Math.floor(app.clock.now() / 1000));
  const response = await fetch(`${app.baseUrl}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${lane.token}`,
      'Content-Type': 'application/json',
      'Idempotency-Key': randomUUID(),
      'X-Partner-Request-Timestamp': timestamp,
      'X-Partner-Signature': createSign('RSA-SHA256')
        .update(`${method}${path}${timestamp}`)
        .sign(lane.privateKey, 'base64'),
    },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

async function tokenFor(app: FuzzApp, credentials: OnboardingResult, scope?: string): Promise<string> {
  const response = await fetch(`${app.baseUrl}/v1/oauth/token`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: `Basic ${Buffer.from(`${credentials.clientId}:${credentials.clientSecret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', ...(scope !== undefined ? { scope } : {}) }),
  });
  if (response.status !== 200) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** An organization with sandbox cards and transactions, 15 transfers, tokens, forged tokens and cursors. */
async function makeLane(app: FuzzApp, index: number, tokenKey: Uint8Array): Promise<Lane> {
  const credentials = await app.onboard({ name: `Fuzz Lane ${index}`, balanceCents: 5_000_000_000 });
  if (credentials.privateKeyPem === undefined) throw new Error('lane without a private key');
  await seedSandboxData(app.db, {
    organizationId: credentials.organizationId,
    now: app.clock.now(),
    seed: 1000 + index,
  });
  const privateKey = createPrivateKey(credentials.privateKeyPem);
  const token = await tokenFor(app, credentials);
  const scopedTokens = new Map<string, string>();
  for (const scope of doc.scopes) scopedTokens.set(scope, await tokenFor(app, credentials, scope));

  const claims = decodeJwt(token);
  const now = Math.floor(app.clock.now() / 1000);
  const [head = '', payload = '', signature = ''] = token.split('.');
  const flipped = payload.slice(0, 10) + (payload[10] === 'A' ? 'B' : 'A') + payload.slice(11);
  const forged = {
    tampered: `${head}.${flipped}.${signature}`,
    'alg-none': `${base64url({ alg: 'none', typ: 'JWT' })}.${payload}.`,
    'foreign-key': await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(randomBytes(32)),
    expired: await new SignJWT({ ...claims, iat: now - 7_200, exp: now - 3_600 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(tokenKey),
    'wrong-audience': await new SignJWT({ ...claims, aud: 'another-api' })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(tokenKey),
  };

  const transfers: string[] = [];
  for (let i = 0; i < 15; i += 1) {
    const created = await signedFetch(app, { privateKey, token }, 'POST', '/v1/transfer', {
      amountCents: 10_000 + i,
      currency: 'EGP',
      bankId: 'nbe',
      accountNumber: `10000${String(i).padStart(4, '0')}1`,
      accountName: 'Fuzz Payee',
      category: 'OTHER',
    });
    if (created.status !== 200) throw new Error(`lane transfer: ${created.status} ${JSON.stringify(created.json)}`);
    transfers.push(String((created.json as { id: string }).id));
  }
  const cards = (
    await app.db.selectFrom('cards').select('id').where('organization_id', '=', credentials.organizationId).execute()
  ).map((row) => row.id);
  const transactions = (
    await app.db
      .selectFrom('transactions')
      .select('id')
      .where('organization_id', '=', credentials.organizationId)
      .limit(50)
      .execute()
  ).map((row) => row.id);

  const cursors = new Map<string, string>();
  for (const [list, path] of [
    ['listCards', '/v1/card'],
    ['listTransfers', '/v1/transfer'],
    ['listTransactions', '/v1/transaction'],
  ] as const) {
    const response = await fetch(`${app.baseUrl}${path}?limit=2`, { headers: { Authorization: `Bearer ${token}` } });
    const page = (await response.json()) as { nextCursor?: string };
    if (page.nextCursor === undefined) throw new Error(`${list}: no second page for the lane`);
    cursors.set(list, page.nextCursor);
  }
  return {
    index,
    credentials,
    privateKey,
    token,
    scopedTokens,
    forged,
    ids: { card: cards, transfer: transfers, transaction: transactions },
    cursors,
    history: [],
    busy: Promise.resolve(),
  };
}

async function makeWorld(app: FuzzApp, laneCount: number): Promise<World> {
  const secret = await app.db
    .selectFrom('service_secrets')
    .select('value')
    .where('name', '=', 'token-signing-key')
    .executeTakeFirstOrThrow();
  const tokenKey = Buffer.from(secret.value, 'base64url');
  const lanes: Lane[] = [];
  for (let index = 0; index < laneCount + 1; index += 1) lanes.push(await makeLane(app, index, tokenKey));
  // The last one is not a lane: its ids are another organization's, for the 404 cases.
  const victim = lanes.pop();
  if (victim === undefined) throw new Error('no victim lane');
  const tokenClient = await app.onboard({ name: 'Fuzz Token Client', balanceCents: 0 });
  return { lanes, foreign: victim.ids, tokenClient };
}

function resourceOf(operation: OperationSpec): 'card' | 'transfer' | 'transaction' {
  if (operation.path.startsWith('/v1/card')) return 'card';
  if (operation.path.startsWith('/v1/transaction')) return 'transaction';
  return 'transfer';
}

/** A raw key made unique: every ASCII letter or digit replaced at random, the rest (spaces, latin1) kept. */
function uniqueLike(raw: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(raw.length);
  return [...raw]
    .map((char, index) => (/[A-Za-z0-9]/.test(char) ? alphabet[(bytes[index] ?? 0) % alphabet.length] : char))
    .join('');
}

function timestampText(format: TimestampFormat, seconds: number): string {
  switch (format) {
    case 'leading-zeros':
      return `00${seconds}`;
    case 'decimal':
      return `${seconds}.5`;
    case 'plus-sign':
      return `+${seconds}`;
    case 'spaces':
      return `  ${seconds}  `;
    case 'hex':
      return `0x${seconds.toString(16)}`;
    case 'exponent':
      return `${(seconds / 1e9).toFixed(3)}e9`;
    case 'negative':
      return `-${seconds}`;
    case 'sixteen-digits':
      return `1${'0'.repeat(15)}`;
    case 'empty':
      return '';
    case 'milliseconds':
      return String(seconds * 1000);
    case 'letters':
      return 'now';
  }
}

function generatedBody(kind: string, size: number): Buffer {
  switch (kind) {
    case 'oversize-json':
      return Buffer.from(`{"memo":"${'x'.repeat(size)}"}`);
    case 'oversize-form':
      return Buffer.from(`grant_type=client_credentials&scope=${'x'.repeat(size)}`);
    case 'near-limit-json':
      return Buffer.from(`{"memo":"${'y'.repeat(size - 12)}"}`);
    case 'deep-array':
      return Buffer.from(`${'['.repeat(size)}1${']'.repeat(size)}`);
    case 'deep-object':
      return Buffer.from(`${'{"a":'.repeat(size)}1${'}'.repeat(size)}`);
    case 'deep-field':
      return Buffer.from(`{"memo":${'{"a":'.repeat(size)}1${'}'.repeat(size)}}`);
    case 'many-properties':
      return Buffer.from(
        JSON.stringify(Object.fromEntries(Array.from({ length: size }, (_, index) => [`p${index}`, index]))),
      );
    case 'many-form-fields':
      return Buffer.from(
        ['grant_type=client_credentials', ...Array.from({ length: size }, (_, index) => `f${index}=1`)].join('&'),
      );
    default:
      throw new Error(`unknown generated body ${kind}`);
  }
}

export interface Prepared {
  readonly request: RawRequest;
  readonly operation: OperationSpec;
  readonly key: string | undefined;
  readonly path: string;
  /** The case's expectations, after lane state (a key to reuse, a replay) is known. */
  readonly expect: readonly Outcome[];
  readonly replayOf: HistoryEntry | undefined;
}

function prepare(testCase: FuzzCase, lane: Lane, world: World, clock: Clock): Prepared {
  const operation = OPERATIONS.find((candidate) => candidate.operationId === testCase.operationId);
  if (operation === undefined) throw new Error(`no operation ${testCase.operationId}`);
  const caseText = JSON.stringify(testCase);
  let expect = testCase.expect;

  // Path
  let path = testCase.rawPath ?? testCase.path;
  if (testCase.rawPath === undefined && testCase.path.includes('{id}')) {
    const resource = resourceOf(operation);
    const own = lane.ids[resource];
    const ownId = own[stableIndex(caseText, own.length)] ?? 'none';
    let segment: string;
    const id = testCase.id ?? { ref: 'own' as const };
    if ('raw' in id) segment = id.raw;
    else if (id.ref === 'own') segment = ownId;
    else if (id.ref === 'own-encoded')
      segment = `${ownId.slice(0, 4)}%${ownId.charCodeAt(4).toString(16).toUpperCase()}${ownId.slice(5)}`;
    else if (id.ref === 'foreign')
      segment = world.foreign[resource][stableIndex(caseText, world.foreign[resource].length)] ?? 'none';
    else segment = `${resource.slice(0, 3)}_${randomBytes(12).toString('hex')}`;
    path = testCase.path.replace('{id}', segment);
  }

  // Query
  const pairs = testCase.query.map(([name, value]) => {
    if (typeof value === 'string') return `${name}=${value}`;
    const list = operation.operationId;
    const valid = lane.cursors.get(list) ?? '';
    const other = [...lane.cursors.entries()].find(([key]) => key !== list)?.[1] ?? '';
    const dot = valid.indexOf('.');
    const cursor = {
      valid,
      tampered: `${valid.slice(0, dot - 3)}${valid[dot - 3] === 'A' ? 'B' : 'A'}${valid.slice(dot - 2)}`,
      truncated: valid.slice(0, -5),
      'other-list': other,
      'other-limit': valid,
      'other-filters': valid,
      garbage: 'bm90IGEgY3Vyc29y.Z2FyYmFnZQ',
    }[value.cursor];
    return `${name}=${cursor}`;
  });
  let signedPath = path;
  let target = pairs.length > 0 ? `${path}?${pairs.join('&')}` : path;

  let method = testCase.method;

  // Headers
  const headers: Array<[string, string | Buffer]> = [];
  const caseHeaders = testCase.headers.map(([name, value]): [string, Buffer] => [name, Buffer.from(value, 'latin1')]);
  const hasOwnAuthorization = testCase.headers.some(([name]) => name.toLowerCase() === 'authorization');
  if (operation.authenticated && !hasOwnAuthorization) {
    const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
    switch (testCase.auth) {
      case 'valid':
        headers.push(bearer(lane.token));
        break;
      case 'none':
        break;
      case 'garbage':
        headers.push(bearer('not-a-token'));
        break;
      case 'basic-instead':
        headers.push([
          'Authorization',
          `Basic ${Buffer.from(`${lane.credentials.clientId}:${lane.credentials.clientSecret}`).toString('base64')}`,
        ]);
        break;
      case 'duplicate-valid-first':
        headers.push(bearer(lane.token), bearer('not-a-token'));
        break;
      case 'duplicate-garbage-first':
        headers.push(bearer('not-a-token'), bearer(lane.token));
        break;
      case 'missing-scope': {
        const scope = doc.scopes.find((candidate) => !operation.scopes.includes(candidate)) ?? '';
        headers.push(bearer(lane.scopedTokens.get(scope) ?? 'none'));
        break;
      }
      default:
        headers.push(bearer(lane.forged[testCase.auth]));
    }
  }

  // Body (before the token endpoint's client authentication, which may add form fields)
  let body: Buffer | undefined;
  const plan = testCase.body;
  if (plan !== undefined) {
    const value = plan.value;
    if ('json' in value) body = Buffer.from(JSON.stringify(value.json));
    else if ('text' in value) body = Buffer.from(value.text, 'utf8');
    else if ('hex' in value) body = Buffer.from(value.hex, 'hex');
    else if ('gzipJson' in value) body = gzipSync(Buffer.from(JSON.stringify(value.gzipJson)));
    else if ('generated' in value) body = generatedBody(value.generated, value.size);
    else {
      const form = new URLSearchParams(value.form.map(([name, text]): [string, string] => [name, text]));
      const client = world.tokenClient;
      if (
        (testCase.tokenAuth === 'post' || testCase.tokenAuth === 'both') &&
        !form.has('client_id') &&
        !form.has('client_secret')
      ) {
        form.set('client_id', client.clientId);
        form.set('client_secret', client.clientSecret);
      } else if (testCase.tokenAuth === 'post') {
        if (!form.has('client_id')) form.set('client_id', client.clientId);
        if (!form.has('client_secret')) form.set('client_secret', client.clientSecret);
      }
      body = Buffer.from(form.toString());
    }
    if (plan.contentType !== null) headers.push(['Content-Type', plan.contentType]);
    if (plan.contentEncoding !== undefined) headers.push(['Content-Encoding', plan.contentEncoding]);
  }

  if (operation.operationId === 'createToken') {
    const client = world.tokenClient;
    const basic = (id: string, secret: string): [string, string] => [
      'Authorization',
      `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
    ];
    switch (testCase.tokenAuth) {
      case 'basic':
      case 'both':
        headers.push(basic(client.clientId, client.clientSecret));
        break;
      case 'basic-wrong-secret':
        headers.push(basic(client.clientId, `${client.clientSecret}x`));
        break;
      case 'basic-unknown-client':
        headers.push(basic(`cli_${randomBytes(12).toString('hex')}`, client.clientSecret));
        break;
      case 'basic-garbage':
        headers.push(['Authorization', 'Basic !!!not-base64:::']);
        break;
      default:
        break;
    }
  }

  // Write headers
  let key: string | undefined;
  let replayOf: HistoryEntry | undefined;
  const write = testCase.write;
  if (write !== undefined) {
    const keyMode = write.key;
    if (keyMode === 'replay' || keyMode === 'reuse-other-request') {
      const entry = lane.history[stableIndex(caseText, lane.history.length)];
      if (entry === undefined) {
        // Nothing used yet on this lane: a fresh key, and the operation's own outcomes.
        key = randomUUID();
        const id = testCase.id;
        expect = baseline(
          operation.operationId,
          id === undefined ? 'none' : 'raw' in id ? 'unknown' : id.ref === 'own-encoded' ? 'own' : id.ref,
        );
      } else if (keyMode === 'replay') {
        key = entry.key;
        replayOf = entry;
        method = entry.method;
        target = entry.target;
        path = entry.path;
        signedPath = entry.path;
        body = entry.body;
        const others = headers.filter(([name]) => !CONTENT_HEADERS.has(name));
        headers.length = 0;
        headers.push(...others, ...entry.contentHeaders.map(([name, value]): [string, string] => [name, value]));
        expect = [{ status: entry.status }];
      } else {
        key = entry.key;
        // The fingerprint hashes the body as the server reads it, its Content-Encoding undone: the
        // same JSON sent gzip-compressed and sent plain is one request.
        const sameBody = Buffer.compare(contentOf(entry.body, entry.contentHeaders), contentOf(body, headers)) === 0;
        const same = entry.path === path && entry.method === testCase.method && sameBody;
        if (same) {
          replayOf = entry;
          expect = [{ status: entry.status }];
        }
      }
    } else if (keyMode === 'fresh') key = randomUUID();
    else if (keyMode === 'duplicate') key = randomUUID();
    else if (typeof keyMode === 'object') key = uniqueLike(keyMode.raw);
    if (keyMode === 'duplicate') headers.push(['Idempotency-Key', randomUUID()]);
    if (key !== undefined) headers.push(['Idempotency-Key', Buffer.from(key, 'latin1')]);

    const seconds = Math.floor(clock.now() / 1000);
    let text: string | undefined = String(seconds);
    const mode = write.timestamp;
    if (mode === 'missing') text = undefined;
    else if (typeof mode === 'object' && 'offset' in mode) text = String(seconds + mode.offset);
    else if (typeof mode === 'object') text = timestampText(mode.format, seconds);
    if (text !== undefined) headers.push(['X-Partner-Request-Timestamp', text]);
    if (mode === 'duplicate') headers.push(['X-Partner-Request-Timestamp', String(seconds)]);

    const signedText = (text ?? String(seconds)).trim();
    const sign = (message: string, privateKey: KeyObject = lane.privateKey): string =>
      createSign('RSA-SHA256').update(message).sign(privateKey, 'base64');
    const upper = method.toUpperCase();
    const valid = sign(`${upper}${signedPath}${signedText}`);
    let signature: string | undefined = valid;
    const sig = write.signature;
    if (sig === 'missing') signature = undefined;
    else if (sig === 'empty') signature = '';
    else if (sig === 'byte-off') {
      const bytes = Buffer.from(valid, 'base64');
      const at = stableIndex(caseText, bytes.length);
      bytes[at] = ((bytes[at] ?? 0) + 1) % 256;
      signature = bytes.toString('base64');
    } else if (sig === 'other-key') {
      const other = world.lanes.find((candidate) => candidate !== lane) ?? lane;
      signature = sign(
        `${upper}${signedPath}${signedText}`,
        other === lane ? createPrivateKey(world.tokenClient.privateKeyPem ?? '') : other.privateKey,
      );
    } else if (sig === 'other-path') signature = sign(`${upper}${signedPath}/other${signedText}`);
    else if (sig === 'with-query') {
      target = `${signedPath}?probe=1`;
      signature = sign(`${upper}${signedPath}?probe=1${signedText}`);
    } else if (sig === 'lowercase-method') signature = sign(`${upper.toLowerCase()}${signedPath}${signedText}`);
    else if (sig === 'other-timestamp') signature = sign(`${upper}${signedPath}${Number(signedText) + 1}`);
    else if (sig === 'unpadded') signature = valid.replace(/=+$/, '');
    else if (typeof sig === 'object') signature = sig.raw;
    if (signature !== undefined) headers.push(['X-Partner-Signature', signature]);
    if (sig === 'duplicate') headers.push(['X-Partner-Signature', valid]);
  }

  headers.push(...caseHeaders);
  return {
    request: { method, target, headers, ...(body !== undefined ? { body } : {}) },
    operation,
    key,
    path,
    expect,
    replayOf,
  };
}
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What a verdict of the plug-in is: its kind, the part that is the same each time it breaks the same way, and what broke. */
const verdict = (kind: `proof:${string}`, detail: string, message: string): PluginVerdict => ({
  kind,
  detail,
  message,
});

/** What the contract says of every response, whatever the request (see the header of this file). */
export function checkResponse(
  operation: OperationSpec,
  target: string,
  method: string,
  received: ReceivedResponse,
): PluginVerdict[] {
  const problems: PluginVerdict[] = [];
  const { status } = received;
  const header = (name: string): string | undefined => received.headers[name.toLowerCase()];
  const json = parseJson(received.body);
  const record =
    typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  const type = typeof record?.['type'] === 'string' ? record['type'] : undefined;
  const tokenEndpoint = target.split('?')[0] === TOKEN_PATH;

  if (header('x-request-id') === undefined) problems.push(verdict('proof:request-id', '', 'no X-Request-Id header'));
  if (header('x-powered-by') !== undefined) problems.push(verdict('proof:powered-by', '', 'an X-Powered-By header'));
  if (status >= 400 && method !== 'HEAD') {
    if (!/^application\/json/.test(header('content-type') ?? ''))
      problems.push(
        verdict('proof:error-shape', 'content-type', `error Content-Type ${header('content-type') ?? '(none)'}`),
      );
    if (record === undefined)
      problems.push(
        verdict(
          'proof:error-shape',
          'not an object',
          `error body is not a JSON object: ${received.body.slice(0, 200)}`,
        ),
      );
    else {
      const allowed = tokenEndpoint ? TOKEN_ERROR_KEYS : ERROR_KEYS;
      const extra = Object.keys(record).filter((key) => !allowed.has(key));
      if (extra.length > 0)
        problems.push(
          verdict(
            'proof:error-shape',
            'extra fields',
            `error body has fields outside the Error shape: ${extra.join(', ')}`,
          ),
        );
      if (typeof record['message'] !== 'string' || record['message'] === '')
        problems.push(verdict('proof:error-shape', 'message', 'error body without a message'));
      if (type === undefined || !doc.errorTypes.includes(type))
        problems.push(
          verdict('proof:error-type', 'not an ErrorType', `error type ${String(record['type'])} is not an ErrorType`),
        );
      else if (!(doc.errorStatuses.get(type) ?? []).includes(status))
        problems.push(
          verdict(
            'proof:error-type',
            type,
            `${type} with status ${status}; the document gives it ${(doc.errorStatuses.get(type) ?? []).join(', ')}`,
          ),
        );
      if ('details' in record && typeof record['details'] !== 'string')
        problems.push(verdict('proof:error-shape', 'details', 'details is not a string'));
      if (tokenEndpoint && status < 500 && !OAUTH_ERRORS.has(String(record['error'])))
        problems.push(
          verdict('proof:token-error', '', `token error without an RFC 6749 error code: ${String(record['error'])}`),
        );
      for (const [what, pattern] of LEAKS)
        if (pattern.test(received.body))
          problems.push(verdict('proof:leak', what, `error body leaks ${what}: ${received.body.slice(0, 300)}`));
    }
    if (
      status === 401 &&
      operation.authenticated &&
      type === 'Unauthorized' &&
      !/^Bearer/.test(header('www-authenticate') ?? '')
    )
      problems.push(verdict('proof:header', 'www-authenticate', '401 without WWW-Authenticate: Bearer'));
    if (status === 403 && !/insufficient_scope/.test(header('www-authenticate') ?? ''))
      problems.push(
        verdict('proof:header', 'www-authenticate', '403 without WWW-Authenticate error="insufficient_scope"'),
      );
    if (status === 405 && (header('allow') ?? '') === '')
      problems.push(verdict('proof:header', 'allow', '405 without Allow'));
    if (status === 429 && header('retry-after') === undefined)
      problems.push(verdict('proof:header', 'retry-after', '429 without Retry-After'));
  }
  return problems;
}

/** What the case's family says of its response: its statuses and types, and a replay's stored response. */
export function checkExpected(testCase: FuzzCase, prepared: Prepared, received: ReceivedResponse): PluginVerdict[] {
  const problems: PluginVerdict[] = [];
  const { status } = received;
  const json = parseJson(received.body);
  const type =
    typeof json === 'object' && json !== null && 'type' in json && typeof json.type === 'string'
      ? json.type
      : undefined;
  const outcomes = prepared.expect;
  if (!outcomes.some((outcome) => outcome.status === status && (outcome.type === undefined || outcome.type === type))) {
    const expected = outcomes
      .map((outcome) => `${outcome.status}${outcome.type !== undefined ? ` ${outcome.type}` : ''}`)
      .join(' | ');
    problems.push(
      verdict(
        'proof:status',
        `${testCase.family} ${type ?? ''}`,
        `responded ${status} ${type ?? ''}; expected ${expected}`,
      ),
    );
  }
  const replay = prepared.replayOf;
  if (replay !== undefined) {
    if (received.headers['idempotent-replayed'] !== 'true')
      problems.push(verdict('proof:replay', 'header', 'a replay without Idempotent-Replayed: true'));
    if (!isDeepStrictEqual(json, replay.received))
      problems.push(
        verdict(
          'proof:replay',
          'response',
          `a replay responded ${received.body.slice(0, 200)}, first ${JSON.stringify(replay.received).slice(0, 200)}`,
        ),
      );
  }
  return problems;
}

export interface Snapshot {
  readonly balance: number;
  readonly transfers: string;
  readonly cards: string;
  readonly keys: ReadonlyMap<string, { status: number; body: unknown }>;
}

async function snapshot(db: Kysely<DB>, lane: Lane): Promise<Snapshot> {
  const { organizationId, clientId } = lane.credentials;
  const [organization, transfers, cards, keys] = await Promise.all([
    db.selectFrom('organizations').select('balance_cents').where('id', '=', organizationId).executeTakeFirstOrThrow(),
    db.selectFrom('transfers').selectAll().where('organization_id', '=', organizationId).orderBy('id').execute(),
    db
      .selectFrom('cards')
      .select(['id', 'daily_limit', 'monthly_limit', 'atm_limit', 'approval_based_limit'])
      .where('organization_id', '=', organizationId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('idempotency_keys')
      .select(['key', 'response_status', 'response_body'])
      .where('client_id', '=', clientId)
      .execute(),
  ]);
  return {
    balance: organization.balance_cents,
    transfers: JSON.stringify(transfers),
    cards: JSON.stringify(cards),
    keys: new Map(
      keys.map((row) => [
        row.key,
        { status: row.response_status, body: parseJson(Buffer.from(row.response_body).toString('utf8')) },
      ]),
    ),
  };
}

/** A write as the database check reads it: its key, whether it replays a stored response, and whether it is the operation's own method. */
export interface WriteSent {
  readonly key: string | undefined;
  readonly replay: boolean;
  readonly ownMethod: boolean;
}

/** The write's effect on the database (see the header of this file). */
export function compareSnapshots(
  before: Snapshot,
  after: Snapshot,
  write: WriteSent,
  received: ReceivedResponse,
): PluginVerdict[] {
  const problems: PluginVerdict[] = [];
  const json = parseJson(received.body);
  const added = [...after.keys.keys()].filter((key) => !before.keys.has(key));
  const changed = [...before.keys.entries()]
    .filter(([key, value]) => !isDeepStrictEqual(after.keys.get(key), value))
    .map(([key]) => key);
  if (received.status >= 400) {
    if (after.balance !== before.balance)
      problems.push(
        verdict(
          'proof:rejected-write',
          'balance',
          `a rejected write changed the balance: ${before.balance} → ${after.balance}`,
        ),
      );
    if (after.transfers !== before.transfers)
      problems.push(verdict('proof:rejected-write', 'transfers', 'a rejected write changed the transfers'));
    if (after.cards !== before.cards)
      problems.push(verdict('proof:rejected-write', 'cards', 'a rejected write changed card limits'));
    if (changed.length > 0)
      problems.push(
        verdict('proof:rejected-write', 'stored keys', `a rejected write changed stored keys: ${changed.join(', ')}`),
      );
    const stray = added.filter((key) => key !== write.key);
    if (stray.length > 0)
      problems.push(
        verdict('proof:rejected-write', 'other keys', `a rejected write stored other keys: ${stray.join(', ')}`),
      );
    const own = write.key === undefined ? undefined : after.keys.get(write.key);
    if (own !== undefined && added.includes(write.key ?? '')) {
      // Only the operation's own error response is stored, and exactly as sent.
      if (own.status !== received.status || !isDeepStrictEqual(own.body, json))
        problems.push(
          verdict(
            'proof:stored-response',
            'not as sent',
            `the key stores ${own.status} ${JSON.stringify(own.body)} for a response ${received.status}`,
          ),
        );
      if ([401, 403, 409, 413, 415, 422].includes(received.status) || received.status >= 500)
        problems.push(verdict('proof:stored-response', 'stored rejection', `a ${received.status} stored its key`));
    }
  } else if (write.key !== undefined && !write.replay && received.status < 300 && write.ownMethod) {
    const own = after.keys.get(write.key);
    if (own === undefined || own.status !== received.status || !isDeepStrictEqual(own.body, json))
      problems.push(
        verdict(
          'proof:stored-response',
          'not stored',
          `a ${received.status} write did not store its response with its key`,
        ),
      );
  }
  return problems;
}

/** A raw request of a case as the checker sends it: its target, headers and bytes exactly as prepared. */
function outgoing(baseUrl: string, request: RawRequest): OutgoingRequest {
  const headerList = request.headers.map(([name, value]): [string, string] => [
    name,
    typeof value === 'string' ? value : value.toString('latin1'),
  ]);
  let url = `${baseUrl}/`;
  try {
    url = new URL(`${baseUrl}${request.target}`).href;
  } catch {
    // A target URL syntax rejects is still sent as written (`target`); reports show the base URL.
  }
  return {
    method: request.method,
    url,
    headers: Object.fromEntries(headerList),
    body: request.body === undefined ? null : request.body.toString('utf8'),
    target: request.target,
    headerList,
    ...(request.body === undefined ? {} : { bodyBytes: request.body }),
  };
}

/** The methods whose requests the service asks to be signed and keyed. */
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

/** What a case of the fuzz stream hands back with its response. */
interface CaseExpectation {
  readonly testCase: FuzzCase;
  readonly prepared: Prepared;
  readonly lane: Lane;
}

const isExpectation = (value: unknown): value is CaseExpectation =>
  typeof value === 'object' && value !== null && 'testCase' in value && 'prepared' in value;

export interface FuzzPluginOptions {
  /** Organizations the cases rotate over. */
  readonly lanes: number;
  /** Cases of the fuzz stream per operation. */
  readonly casesPerOperation: number;
  /** The command that runs the same cases again, for reports. */
  readonly replay: string;
}

/** What the plug-in saw, for the proof's report. */
export interface FuzzCounts {
  cases: number;
  writesChecked: number;
  readonly byFamily: Record<string, number>;
  readonly byStatus: Record<string, number>;
  readonly byOperation: Record<string, number>;
}

export interface FuzzPlugin extends CheckPlugin {
  readonly counts: FuzzCounts;
  /**
   * Credentials for the checker's own requests, on the lane of their case (its serialization
   * key): the lane's token, and on writes the headers of the document's "Signed write requests"
   * section, signed with the lane's key.
   */
  readonly auth: CheckAuth;
}

/** The plug-in on a running app: makes its lanes first (organizations, transfers, tokens). */
export async function fuzzPlugin(app: FuzzApp, options: FuzzPluginOptions): Promise<FuzzPlugin> {
  const world = await makeWorld(app, options.lanes);
  const laneOf = (key: string | undefined): Lane =>
    world.lanes[Number(key?.slice('lane-'.length) ?? 0)] ?? (world.lanes[0] as Lane);
  const order = new Map(OPERATIONS.map((operation, index) => [operation.operationId, index]));
  const counts: FuzzCounts = { cases: 0, writesChecked: 0, byFamily: {}, byStatus: {}, byOperation: {} };
  const count = (table: Record<string, number>, key: string): void => {
    table[key] = (table[key] ?? 0) + 1;
  };
  const proofOperation = (key: string): OperationSpec | undefined =>
    OPERATIONS.find((operation) => operation.operationId === key);

  const stream = (operation: OperationSpec): PluginStream<FuzzCase> => ({
    name: 'fuzz',
    count: options.casesPerOperation,
    arbitrary: caseFor(operation),
    build: (testCase, context: CaseContext) => {
      const lane = laneOf(context.key);
      const prepared = prepare(testCase, lane, world, app.clock);
      const expectation: CaseExpectation = { testCase, prepared, lane };
      return {
        request: outgoing(app.baseUrl, prepared.request),
        expect: expectation,
        context: `${testCase.family}: ${testCase.note}`,
      };
    },
  });

  /** Remember acknowledged writes whose key now stores the response: later cases replay or reuse them. */
  const remember = async (expectation: CaseExpectation, received: ReceivedResponse): Promise<void> => {
    const { prepared, lane } = expectation;
    if (prepared.key === undefined || prepared.replayOf !== undefined || received.status >= 500) return;
    const stored = await app.db
      .selectFrom('idempotency_keys')
      .select('response_status')
      .where('client_id', '=', lane.credentials.clientId)
      .where('key', '=', prepared.key)
      .executeTakeFirst();
    if (stored?.response_status !== received.status) return;
    lane.history.push({
      method: prepared.request.method,
      target: prepared.request.target,
      path: prepared.path,
      body: prepared.request.body,
      contentHeaders: prepared.request.headers
        .filter(([name]) => CONTENT_HEADERS.has(name))
        .map(([name, value]): [string, string] => [name, value.toString()]),
      key: prepared.key,
      status: received.status,
      received: parseJson(received.body),
    });
    if (lane.history.length > 50) lane.history.shift();
    // A transfer created here joins the lane's own ids.
    const created = parseJson(received.body);
    if (
      prepared.operation.operationId === 'createTransfer' &&
      received.status === 200 &&
      typeof created === 'object' &&
      created !== null &&
      'id' in created
    ) {
      lane.ids.transfer.push(String(created.id));
    }
  };

  const auth: CheckAuth = {
    prepare: (request, context) => {
      const lane = laneOf(context.key);
      const url = new URL(request.url);
      const { clientId, clientSecret } = lane.credentials;
      if (url.pathname === TOKEN_PATH) {
        return {
          ...request,
          headers: {
            ...request.headers,
            Authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
          },
        };
      }
      const headers: Record<string, string> = { ...request.headers, Authorization: `Bearer ${lane.token}` };
      const method = request.method.toUpperCase();
      if (WRITES.has(method)) {
        const timestamp = String(Math.floor(app.clock.now() / 1000));
        headers['Idempotency-Key'] ??= randomUUID();
        headers['X-Partner-Request-Timestamp'] = timestamp;
        headers['X-Partner-Signature'] = createSign('RSA-SHA256')
          .update(`${method}${url.pathname}${timestamp}`)
          .sign(lane.privateKey, 'base64');
      }
      return { ...request, headers };
    },
  };

  return {
    name: 'proof',
    counts,
    auth,
    replay: () => options.replay,
    streams: (operation) => {
      const own = proofOperation(operation.key);
      return own === undefined || options.casesPerOperation === 0 ? [] : [stream(own)];
    },
    // Case i of an operation runs on lane (i + the operation's place) mod lanes: spread evenly, and the same on a replay.
    serialize: ({ operation, index }) => `lane-${(index + (order.get(operation.key) ?? 0)) % world.lanes.length}`,
    around: async (context, request, send) => {
      const isWrite = request.method !== 'GET' && context.operation.key !== 'createToken';
      const lane = laneOf(context.key);
      const before = isWrite ? await snapshot(app.db, lane) : undefined;
      const exchange: PluginExchange = await send();
      if (exchange.outcome.kind !== 'response') return [];
      const { response: received } = exchange.outcome;
      const expectation = isExpectation(exchange.expect) ? exchange.expect : undefined;
      const problems: PluginVerdict[] = [];
      if (before !== undefined) {
        counts.writesChecked += 1;
        const headerKey = Object.entries(request.headers).find(
          ([name]) => name.toLowerCase() === 'idempotency-key',
        )?.[1];
        const write: WriteSent =
          expectation === undefined
            ? { key: headerKey, replay: false, ownMethod: request.method === context.operation.method }
            : {
                key: expectation.prepared.key,
                replay: expectation.prepared.replayOf !== undefined,
                ownMethod: expectation.prepared.request.method === expectation.prepared.operation.method,
              };
        problems.push(...compareSnapshots(before, await snapshot(app.db, lane), write, received));
      }
      if (problems.length === 0 && isWrite && expectation !== undefined) await remember(expectation, received);
      return problems;
    },
    judge: (exchange) => {
      if (exchange.outcome.kind !== 'response') return [];
      const { response: received } = exchange.outcome;
      const operation = proofOperation(exchange.operation.key);
      if (operation === undefined) return [];
      const expectation = isExpectation(exchange.expect) ? exchange.expect : undefined;
      counts.cases += 1;
      count(counts.byStatus, String(received.status));
      count(counts.byOperation, operation.operationId);
      count(counts.byFamily, expectation?.testCase.family ?? `check:${exchange.intent}`);
      const target = exchange.request.target ?? new URL(exchange.request.url).pathname;
      return [
        ...checkResponse(operation, target, exchange.request.method, received),
        ...(expectation === undefined ? [] : checkExpected(expectation.testCase, expectation.prepared, received)),
      ];
    },
  };
}
