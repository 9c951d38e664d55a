import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomIds } from '../../server/clock-and-ids.js';
import { addOperator, disableOperatorNamed, OperatorError, operatorsOf } from '../../server/operators.js';
import {
  createOperator,
  createSession,
  endSession,
  findLiveSession,
  findOperatorCredentials,
  purgeSessions,
} from '../../server/store/operators.js';
import { createClient, createOrganization } from '../../server/store/organizations.js';
import {
  executeTransfer,
  getTransfer,
  insertTransfer,
  rejectTransfer,
  type NewTransfer,
} from '../../server/store/transfers.js';
import { createTestDatabaseOf, databaseKinds, type TestDatabase } from '../../scripts/proof/database.js';

const NOW = 1_780_000_000_000;
const HOUR = 3_600_000;

describe.each(databaseKinds())('dashboard operators on %s', (kind) => {
  let database: TestDatabase;
  let organizationId: string;
  let clientId: string;
  const clock = { now: () => NOW };
  const deps = { ids: randomIds, clock };

  beforeAll(async () => {
    database = await createTestDatabaseOf(kind);
    organizationId = randomIds.next('org');
    clientId = randomIds.next('cli');
    await createOrganization(database.db, {
      id: organizationId,
      name: 'Operators Inc',
      balanceCents: 1_000_00,
      now: NOW,
    });
    await createClient(database.db, { id: clientId, organizationId, secretHash: 'x', scopes: [], now: NOW });
  });
  afterAll(async () => {
    await database?.close();
  });

  const newTransfer = (overrides: Partial<NewTransfer>): NewTransfer => ({
    id: randomIds.next('trf'),
    organizationId,
    clientId,
    idempotencyKey: randomIds.next('req'),
    amountCents: 1_00,
    currency: 'EGP',
    category: 'OTHER',
    submissionDate: NOW,
    bankId: 'nbe',
    accountNumber: '123456789',
    accountName: 'Checked',
    ...overrides,
  });

  it('adds an operator with a password kept only as a hash; usernames are unique ignoring case', async () => {
    const { operator, password } = await addOperator(database.db, deps, {
      organizationId,
      username: 'Nour.Adel',
      role: 'approver',
    });
    expect(operator).toMatchObject({ organizationId, username: 'Nour.Adel', role: 'approver', disabledAt: null });
    const stored = await findOperatorCredentials(database.db, 'NOUR.ADEL');
    expect(stored?.id).toBe(operator.id);
    expect(stored?.passwordHash).toMatch(/^scrypt\$/);
    expect(stored?.passwordHash).not.toContain(password);
    await expect(
      addOperator(database.db, deps, { organizationId, username: 'nour.adel', role: 'viewer' }),
    ).rejects.toThrow(OperatorError);
    expect(
      await createOperator(database.db, {
        id: randomIds.next('opr'),
        organizationId,
        username: 'NOUR.adel',
        passwordHash: 'x',
        role: 'viewer',
        now: NOW,
      }),
    ).toEqual({
      kind: 'username-taken',
    });
    await expect(
      addOperator(database.db, deps, { organizationId, username: 'no spaces please', role: 'viewer' }),
    ).rejects.toThrow(OperatorError);
    await expect(
      addOperator(database.db, deps, { organizationId: 'org_unknown', username: 'someone', role: 'viewer' }),
    ).rejects.toThrow('No organization');
  });

  it('finds a session only while it lives: not ended, not expired, its operator not disabled', async () => {
    const { operator } = await addOperator(database.db, deps, { organizationId, username: 'karim.s', role: 'viewer' });
    await createSession(database.db, {
      tokenHash: 'hash-a',
      operatorId: operator.id,
      now: NOW,
      expiresAt: NOW + 8 * HOUR,
    });
    await createSession(database.db, {
      tokenHash: 'hash-b',
      operatorId: operator.id,
      now: NOW,
      expiresAt: NOW + 8 * HOUR,
    });
    expect(await findLiveSession(database.db, 'hash-a', NOW + HOUR)).toEqual({
      operator: expect.objectContaining({ id: operator.id, role: 'viewer' }),
      organizationName: 'Operators Inc',
      expiresAt: NOW + 8 * HOUR,
    });
    expect(await findLiveSession(database.db, 'hash-a', NOW + 8 * HOUR)).toBeUndefined();
    expect(await findLiveSession(database.db, 'hash-unknown', NOW)).toBeUndefined();
    expect(await endSession(database.db, 'hash-a', NOW + 1)).toBe(true);
    expect(await endSession(database.db, 'hash-a', NOW + 2)).toBe(false);
    expect(await findLiveSession(database.db, 'hash-a', NOW + 3)).toBeUndefined();
    expect(await findLiveSession(database.db, 'hash-b', NOW + 3)).toBeDefined();
    const disabled = await disableOperatorNamed(database.db, clock, 'KARIM.S');
    expect(disabled.disabledAt).toBe(NOW);
    expect(await findLiveSession(database.db, 'hash-b', NOW + 3)).toBeUndefined();
    expect((await disableOperatorNamed(database.db, { now: () => NOW + 5 }, 'karim.s')).disabledAt).toBe(NOW);
    await expect(disableOperatorNamed(database.db, clock, 'nobody')).rejects.toThrow('No operator nobody');
    expect((await operatorsOf(database.db, organizationId)).map((o) => o.username)).toEqual(
      expect.arrayContaining(['Nour.Adel', 'karim.s']),
    );
    expect(await purgeSessions(database.db, NOW + 9 * HOUR)).toBeGreaterThanOrEqual(2);
  });

  it('records who approved and who rejected a transfer, and why; a decided transfer is decided once', async () => {
    const { operator } = await addOperator(database.db, deps, {
      organizationId,
      username: 'hala.checker',
      role: 'approver',
    });
    const transfer = (amountCents: number) => insertTransfer(database.db, newTransfer({ amountCents }));
    const rejected = await transfer(10_00);
    const outcome = await rejectTransfer(database.db, organizationId, rejected.id, {
      nowMs: NOW + 1,
      operatorId: operator.id,
      reason: 'Unknown payee',
    });
    expect(outcome).toMatchObject({
      kind: 'done',
      transfer: {
        status: 'REJECTED',
        reviewedAt: NOW + 1,
        reviewedByOperatorId: operator.id,
        rejectionReason: 'Unknown payee',
      },
    });
    expect(
      await rejectTransfer(database.db, organizationId, rejected.id, {
        nowMs: NOW + 2,
        operatorId: operator.id,
        reason: 'again',
      }),
    ).toMatchObject({ kind: 'not-pending' });
    expect(await executeTransfer(database.db, organizationId, rejected.id, NOW + 3, NOW + 4)).toMatchObject({
      kind: 'not-pending',
    });
    expect(
      await rejectTransfer(database.db, 'org_other', rejected.id, { nowMs: NOW, operatorId: operator.id, reason: 'x' }),
    ).toEqual({ kind: 'not-found' });

    const approved = await transfer(20_00);
    expect(
      await executeTransfer(database.db, organizationId, approved.id, NOW + 5, NOW + 6, operator.id),
    ).toMatchObject({
      kind: 'done',
      transfer: { status: 'PROCESSING', reviewedByOperatorId: operator.id, rejectionReason: null },
    });
    const byApi = await transfer(30_00);
    await executeTransfer(database.db, organizationId, byApi.id, NOW + 5, NOW + 6);
    expect(await getTransfer(database.db, organizationId, byApi.id)).toMatchObject({
      status: 'PROCESSING',
      reviewedByOperatorId: null,
    });
  });

  it('rejects a REJECTED transfer without a reason, and a reason on any other status', async () => {
    await expect(insertTransfer(database.db, newTransfer({ status: 'REJECTED' }))).rejects.toMatchObject({
      code: '23514',
    });
    await expect(insertTransfer(database.db, newTransfer({ rejectionReason: 'no' }))).rejects.toMatchObject({
      code: '23514',
    });
  });
});
