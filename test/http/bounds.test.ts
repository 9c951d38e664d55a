import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseBounds } from '../../server/database/bounds.js';
import { startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { createTransfer, expectError, gate } from './support.js';

/**
 * Every database call of a request is bounded (server/database/bounds.ts): a write that cannot take
 * the row it needs, because another transaction holds it, gets 503 in the Error shape once
 * its bound has passed, with nothing done and nothing stored under its key, and nothing left
 * locked: once the other transaction ends, the same request with the same key executes.
 * On PostgreSQL the holder is another connection with the transfer's row locked (lock_timeout);
 * on the embedded database, a transaction that holds the database (a call waits at most
 * acquireMs for it).
 */
const BOUNDS: DatabaseBounds = { statementMs: 5_000, lockMs: 300, idleInTransactionMs: 10_000, acquireMs: 300 };

let app: TestApp;
let partner: Partner;

beforeAll(async () => {
  app = await startTestApp({ bounds: BOUNDS });
  partner = await app.onboard();
});
afterAll(async () => {
  await app.close();
});

/** Holds what the execute of `transferId` needs until `release` is called. */
async function holdTransfer(transferId: string): Promise<{ release: () => Promise<void> }> {
  if (app.databaseUrl !== undefined) {
    const client = new pg.Client({ connectionString: app.databaseUrl });
    await client.connect();
    await client.query('begin');
    await client.query('select id from transfers where id = $1 for update', [transferId]);
    return {
      release: async () => {
        await client.query('rollback');
        await client.end();
      },
    };
  }
  const held = gate();
  const started = gate();
  const holding = app.db.transaction().execute(async (trx) => {
    await sql`select id from transfers where id = ${transferId}`.execute(trx);
    started.open();
    await held.opened;
  });
  await started.opened;
  return {
    release: async () => {
      held.open();
      await holding;
    },
  };
}

describe('a database call past its bound', () => {
  it('gets 503 with Retry-After, does nothing, stores nothing and leaves nothing locked', async () => {
    const transfer = await createTransfer(partner);
    const key = randomUUID();
    const path = `/v1/transfer/${transfer.id}/execute`;
    const hold = await holdTransfer(transfer.id);
    let response: Response;
    try {
      response = await partner.request('POST', path, { idempotencyKey: key });
      await expectError(response, 503, 'InternalError');
      expect(response.headers.get('retry-after')).toBe('1');
    } finally {
      await hold.release();
    }
    // Nothing was done: the transfer is still pending.
    const read = await partner.request('GET', `/v1/transfer/${transfer.id}`);
    expect(((await read.json()) as { status: string }).status).toBe('PENDING');
    // Nothing was stored under the key, and nothing stays locked: the same request now executes.
    const retried = await partner.request('POST', path, { idempotencyKey: key });
    const text = await retried.text();
    expect(retried.status, text).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect((JSON.parse(text) as { status: string }).status).not.toBe('PENDING');
  });
});
