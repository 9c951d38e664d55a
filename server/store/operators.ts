/**
 * The dashboard's operators and their sessions (server/database/migrations/001-baseline.ts). Sessions are stored by the
 * SHA-256 of the cookie value, never the value, so that a read of the table hands out no session.
 */
import { sql, type Kysely } from 'kysely';
import type { DB, OperatorRole } from '../database/index.js';

export interface OperatorRecord {
  readonly id: string;
  readonly organizationId: string;
  readonly username: string;
  readonly role: OperatorRole;
  readonly createdAt: number;
  readonly disabledAt: number | null;
}

/** An operator with the hash their password is checked against (login only). */
export interface OperatorCredentials extends OperatorRecord {
  readonly passwordHash: string;
}

/** A live session: the operator (never disabled), their organization's name, and when it ends. */
export interface LiveSession {
  readonly operator: OperatorRecord;
  readonly organizationName: string;
  readonly expiresAt: number;
}

export type CreateOperatorResult = { kind: 'created'; operator: OperatorRecord } | { kind: 'username-taken' };

/** Adds an operator; a username another operator has (ignoring case) changes nothing. */
export async function createOperator(
  db: Kysely<DB>,
  operator: {
    id: string;
    organizationId: string;
    username: string;
    passwordHash: string;
    role: OperatorRole;
    now: number;
  },
): Promise<CreateOperatorResult> {
  const inserted = await db
    .insertInto('operators')
    .values({
      id: operator.id,
      organization_id: operator.organizationId,
      username: operator.username,
      password_hash: operator.passwordHash,
      role: operator.role,
      created_at: operator.now,
    })
    .onConflict((oc) => oc.doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted === undefined) return { kind: 'username-taken' };
  return {
    kind: 'created',
    operator: {
      id: operator.id,
      organizationId: operator.organizationId,
      username: operator.username,
      role: operator.role,
      createdAt: operator.now,
      disabledAt: null,
    },
  };
}

const OPERATOR_COLUMNS = [
  'o.id',
  'o.organization_id',
  'o.username',
  'o.role',
  'o.created_at',
  'o.disabled_at',
] as const;

function operatorOf(row: {
  id: string;
  organization_id: string;
  username: string;
  role: OperatorRole;
  created_at: number;
  disabled_at: number | null;
}): OperatorRecord {
  return {
    id: row.id,
    organizationId: row.organization_id,
    username: row.username,
    role: row.role,
    createdAt: row.created_at,
    disabledAt: row.disabled_at,
  };
}

/** The operator with this username, ignoring case (disabled ones too), with their password hash. */
export async function findOperatorCredentials(
  db: Kysely<DB>,
  username: string,
): Promise<OperatorCredentials | undefined> {
  const row = await db
    .selectFrom('operators as o')
    .select([...OPERATOR_COLUMNS, 'o.password_hash'])
    .where(sql<string>`lower(o.username)`, '=', username.toLowerCase())
    .executeTakeFirst();
  return row === undefined ? undefined : { ...operatorOf(row), passwordHash: row.password_hash };
}

/** The organization's operators, oldest first. */
export async function listOperators(db: Kysely<DB>, organizationId: string): Promise<OperatorRecord[]> {
  const rows = await db
    .selectFrom('operators as o')
    .select(OPERATOR_COLUMNS)
    .where('o.organization_id', '=', organizationId)
    .orderBy('o.created_at')
    .orderBy('o.id')
    .execute();
  return rows.map(operatorOf);
}

/**
 * Disables the operator with this username (ignoring case) and ends their sessions, in one
 * transaction of the caller's or its own. Undefined when there is no such operator; an operator
 * already disabled stays as they were.
 */
export async function disableOperator(
  db: Kysely<DB>,
  username: string,
  nowMs: number,
): Promise<OperatorRecord | undefined> {
  const run = async (tx: Kysely<DB>) => {
    const row = await tx
      .updateTable('operators as o')
      .set({ disabled_at: sql<number>`coalesce(o.disabled_at, ${nowMs}::bigint)` })
      .where(sql<string>`lower(o.username)`, '=', username.toLowerCase())
      .returning(OPERATOR_COLUMNS)
      .executeTakeFirst();
    if (row === undefined) return undefined;
    await tx
      .updateTable('operator_sessions')
      .set({ ended_at: nowMs })
      .where('operator_id', '=', row.id)
      .where('ended_at', 'is', null)
      .execute();
    return operatorOf(row);
  };
  return db.isTransaction ? run(db) : db.transaction().execute(run);
}

export async function createSession(
  db: Kysely<DB>,
  session: { tokenHash: string; operatorId: string; now: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('operator_sessions')
    .values({
      token_hash: session.tokenHash,
      operator_id: session.operatorId,
      created_at: session.now,
      expires_at: session.expiresAt,
    })
    .execute();
}

/** The session stored under this hash if it is live: not ended, not expired, its operator not disabled. */
export async function findLiveSession(
  db: Kysely<DB>,
  tokenHash: string,
  nowMs: number,
): Promise<LiveSession | undefined> {
  const row = await db
    .selectFrom('operator_sessions as s')
    .innerJoin('operators as o', 'o.id', 's.operator_id')
    .innerJoin('organizations as g', 'g.id', 'o.organization_id')
    .select([...OPERATOR_COLUMNS, 'g.name as organization_name', 's.expires_at'])
    .where('s.token_hash', '=', tokenHash)
    .where('s.ended_at', 'is', null)
    .where('s.expires_at', '>', nowMs)
    .where('o.disabled_at', 'is', null)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { operator: operatorOf(row), organizationName: row.organization_name, expiresAt: row.expires_at };
}

/** Ends the session stored under this hash (logout, or a new login in the same browser); true when it was live. */
export async function endSession(db: Kysely<DB>, tokenHash: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable('operator_sessions')
    .set({ ended_at: nowMs })
    .where('token_hash', '=', tokenHash)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes sessions that ended or expired before `beforeMs`; returns how many. */
export async function purgeSessions(db: Kysely<DB>, beforeMs: number): Promise<number> {
  const result = await db
    .deleteFrom('operator_sessions')
    .where((eb) => eb.or([eb('expires_at', '<=', beforeMs), eb('ended_at', '<=', beforeMs)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
