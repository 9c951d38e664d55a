import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { expect } from 'vitest';
import type { Logger } from '../../server/logger.js';
import type { NewTransfer } from '../../server/store/transfers.js';
import type { Partner } from '../../scripts/proof/app.js';

// Shared pieces of the HTTP suites: the error-shape check every error response goes through, a raw
// client for what fetch cannot send (repeated headers), and transfer bodies.

/** Valid 29-character Egyptian IBANs (mod-97 checked): one the sandbox settles, one it fails (ends 0002). */
export const SUCCEEDING_IBAN = 'EG650019000500000000263180001';
export const FAILING_IBAN = 'EG380019000500000000263180002';

export interface TransferBody {
  amountCents: number;
  currency: 'EGP';
  bankId: string;
  accountNumber: string;
  accountName: string;
  category: string;
  memo?: string;
  note?: string;
}

export function transferBody(overrides: Partial<TransferBody> = {}): TransferBody {
  return {
    amountCents: 100_00,
    currency: 'EGP',
    bankId: 'nbe',
    accountNumber: SUCCEEDING_IBAN,
    accountName: 'Nile Supplies',
    category: 'LOGISTICS',
    ...overrides,
  };
}

/** The transfer a create of `body` under `key` stores, as the partner's request at `now` would make it. */
export function newTransferOf(partner: Partner, key: string, body: TransferBody, now: number): NewTransfer {
  return {
    id: `trf_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    organizationId: partner.organizationId,
    clientId: partner.clientId,
    idempotencyKey: key,
    amountCents: body.amountCents,
    currency: body.currency,
    category: body.category,
    submissionDate: now,
    bankId: body.bankId,
    accountNumber: body.accountNumber,
    accountName: body.accountName,
  };
}

/** A promise and the function that settles it: for a test that holds something open until told. */
export function gate(): { open: () => void; opened: Promise<void> } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

export interface TransferJson {
  id: string;
  idempotencyKey: string;
  amountCents: number;
  status: string;
  submissionDate: number;
  reviewedAt?: number | null;
  cancelledAt?: number | null;
  payee: { accountNumber: string; accountName: string; bank: { id: string; name: string; shortName: string } };
  [field: string]: unknown;
}

/** Creates a transfer through the API and returns it; fails the test on anything but 200. */
export async function createTransfer(partner: Partner, overrides: Partial<TransferBody> = {}): Promise<TransferJson> {
  const response = await partner.request('POST', '/v1/transfer', { body: transferBody(overrides) });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as TransferJson;
}

export async function transferAction(partner: Partner, id: string, action: 'cancel' | 'execute'): Promise<Response> {
  return partner.request('POST', `/v1/transfer/${id}/${action}`);
}

/** Stack frames, file paths and SQL: none of it may reach a caller (the document's "Errors" section). */
const LEAKS = [
  /\n\s+at /,
  /\bat [\w.<>]+ \(/,
  /node_modules/,
  /\.ts:\d+/,
  /\.js:\d+/,
  /\b(select|insert into|update|delete from)\b.*\b(from|set|values|where)\b/i,
  /violates|constraint|relation "|syntax error at|duplicate key/i,
  /-----BEGIN/,
  /scrypt\$/,
];

export function expectNoLeak(text: string): void {
  for (const pattern of LEAKS) expect(text, `response leaks ${String(pattern)}`).not.toMatch(pattern);
}

export interface ErrorJson {
  message: string;
  type: string;
  details?: string;
  error?: string;
  error_description?: string;
}

/**
 * Checks an error response: the status and `type`, the Error shape and nothing more (plus the OAuth
 * fields on the token endpoint), JSON, an X-Request-Id, and nothing leaked. Returns the body.
 */
export async function expectError(response: Response, status: number, type: string): Promise<ErrorJson> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.headers.get('x-request-id')).toBeTruthy();
  expectNoLeak(text);
  const body = JSON.parse(text) as ErrorJson;
  expect(body.type, text).toBe(type);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  for (const field of Object.keys(body)) {
    expect(['message', 'type', 'details', 'error', 'error_description'], `unexpected field ${field}`).toContain(field);
  }
  return body;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A request through node:http, which sends a header given as an array once per value (fetch would
 * join them into one line) and sends exactly the body bytes given.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string | string[]>,
  body?: string | Buffer,
): Promise<RawResponse> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, method, path: `${url.pathname}${url.search}`, headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** The three write headers for `method path`, signed now by the partner. */
export function writeHeaders(
  partner: Partner,
  method: string,
  path: string,
  timestampSeconds: number,
  idempotencyKey: string,
): Record<string, string> {
  return {
    'Idempotency-Key': idempotencyKey,
    'X-Partner-Request-Timestamp': String(timestampSeconds),
    'X-Partner-Signature': partner.sign(method, path, timestampSeconds),
  };
}

export interface LogEntry {
  level: 'info' | 'warn' | 'error' | 'debug';
  object: Record<string, unknown>;
  message: string | undefined;
}

/** A logger that keeps what it is told, for tests that read log lines (the real one is pino). */
export function recordingLogger(): { entries: LogEntry[]; logger: Logger } {
  const entries: LogEntry[] = [];
  const at =
    (level: LogEntry['level']) =>
    (object: object, message?: string): void => {
      entries.push({ level, object: object as Record<string, unknown>, message });
    };
  return {
    entries,
    logger: { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug'), isLevelEnabled: () => true },
  };
}

/** Waits until `condition` holds, checking every few milliseconds; fails after `timeoutMs`. */
export async function eventually(condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
