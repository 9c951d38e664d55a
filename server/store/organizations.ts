import { AUTH_FAILURE_LIMIT, AUTH_FAILURE_WINDOW_MS } from '../domain/credentials.js';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DB } from '../database/index.js';

// Organizations, their partner clients, the clients' public keys, and the counter of failed
// client authentications (more than 10 a minute → 429; the createToken operation's 429 response).

export interface Organization {
  id: string;
  name: string;
  balanceCents: number;
  createdAt: number;
}

export interface ClientCredentials {
  id: string;
  organizationId: string;
  secretHash: string;
  scopes: string[];
}

/** What the bearer check needs to know about a token's client besides the token itself. */
export interface ClientTokenPolicy {
  organizationId: string;
  tokensNotBefore: number | null;
}

export interface ClientKey {
  id: string;
  publicKeyPem: string;
}

export async function createOrganization(
  db: Kysely<DB>,
  input: { id: string; name: string; balanceCents: number; now: number },
): Promise<Organization> {
  await db
    .insertInto('organizations')
    .values({ id: input.id, name: input.name, balance_cents: input.balanceCents, created_at: input.now })
    .execute();
  return { id: input.id, name: input.name, balanceCents: input.balanceCents, createdAt: input.now };
}

export async function getOrganization(db: Kysely<DB>, id: string): Promise<Organization | undefined> {
  const row = await db
    .selectFrom('organizations')
    .select(['id', 'name', 'balance_cents', 'created_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { id: row.id, name: row.name, balanceCents: row.balance_cents, createdAt: row.created_at };
}

/** How many organizations exist (a first start on an empty database onboards a demo one). */
export async function countOrganizations(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return row.count;
}

/** The available balance in cents (what execute may still reserve); undefined for an unknown organization. */
export async function getBalance(db: Kysely<DB>, organizationId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('organizations')
    .select('balance_cents')
    .where('id', '=', organizationId)
    .executeTakeFirst();
  return row?.balance_cents;
}

export async function createClient(
  db: Kysely<DB>,
  input: { id: string; organizationId: string; secretHash: string; scopes: readonly string[]; now: number },
): Promise<void> {
  await db
    .insertInto('clients')
    .values({
      id: input.id,
      organization_id: input.organizationId,
      secret_hash: input.secretHash,
      scopes: [...input.scopes],
      created_at: input.now,
    })
    .execute();
}

export async function findClient(db: Kysely<DB>, clientId: string): Promise<ClientCredentials | undefined> {
  const row = await db
    .selectFrom('clients')
    .select(['id', 'organization_id', 'secret_hash', 'scopes'])
    .where('id', '=', clientId)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { id: row.id, organizationId: row.organization_id, secretHash: row.secret_hash, scopes: row.scopes };
}

/** The client's organization and revocation point; undefined when the client does not exist (any more). */
export async function getClientTokenPolicy(db: Kysely<DB>, clientId: string): Promise<ClientTokenPolicy | undefined> {
  const row = await db
    .selectFrom('clients')
    .select(['organization_id', 'tokens_not_before'])
    .where('id', '=', clientId)
    .executeTakeFirst();
  return row === undefined
    ? undefined
    : { organizationId: row.organization_id, tokensNotBefore: row.tokens_not_before };
}

/**
 * Revokes every access token issued to the client up to and including `nowMs` (a leaked token, a
 * partner cut off): tokens issued from `nowMs + 1` on stay good. Never moves the point back, so a
 * late or repeated call cannot revive revoked tokens. Returns false when the client does not exist.
 */
export async function revokeClientTokens(db: Kysely<DB>, clientId: string, nowMs: number): Promise<boolean> {
  const result = await db
    .updateTable('clients')
    .set({ tokens_not_before: sql<number>`greatest(coalesce(tokens_not_before, 0), ${nowMs + 1}::bigint)` })
    .where('id', '=', clientId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function addClientKey(
  db: Kysely<DB>,
  input: { id: string; clientId: string; publicKeyPem: string; now: number },
): Promise<void> {
  await db
    .insertInto('client_keys')
    .values({ id: input.id, client_id: input.clientId, public_key_pem: input.publicKeyPem, created_at: input.now })
    .execute();
}

/** The keys a signature may verify against: at most a few, two during a rotation (the document's "Key rotation"). */
export async function listActiveClientKeys(db: Kysely<DB>, clientId: string): Promise<ClientKey[]> {
  const rows = await db
    .selectFrom('client_keys')
    .select(['id', 'public_key_pem'])
    .where('client_id', '=', clientId)
    .where('active', '=', true)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({ id: row.id, publicKeyPem: row.public_key_pem }));
}

/** Returns false when the client has no such active key. */
export async function deactivateClientKey(
  db: Kysely<DB>,
  input: { clientId: string; keyId: string; now: number },
): Promise<boolean> {
  const result = await db
    .updateTable('client_keys')
    .set({ active: false, deactivated_at: input.now })
    .where('id', '=', input.keyId)
    .where('client_id', '=', input.clientId)
    .where('active', '=', true)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

// Failed client authentication, counted per client id in fixed windows (more than 10 failures
// a minute → 429). The counter lives in the database so that every instance sharing it counts
// together.

/**
 * Counts one failure and returns the failures in the current window, this one included.
 * One atomic upsert: concurrent failures on any number of instances are all counted. A
 * window older than `windowMs` starts over at 1.
 */
export async function recordAuthFailure(
  db: Kysely<DB>,
  clientId: string,
  nowMs: number,
  windowMs: number,
): Promise<number> {
  const windowOpenAfter = nowMs - windowMs;
  const row = await db
    .insertInto('auth_failures')
    .values({ client_id: clientId, window_start: nowMs, failures: 1 })
    .onConflict((oc) =>
      oc.column('client_id').doUpdateSet({
        window_start: sql<number>`case when auth_failures.window_start > ${windowOpenAfter}
          then auth_failures.window_start else ${nowMs}::bigint end`,
        failures: sql<number>`case when auth_failures.window_start > ${windowOpenAfter}
          then auth_failures.failures + 1 else 1 end`,
      }),
    )
    .returning('failures')
    .executeTakeFirstOrThrow();
  return row.failures;
}

/** Failures in the current window (0 when none or when the window is over). */
export async function authFailureCount(
  db: Kysely<DB>,
  clientId: string,
  nowMs: number,
  windowMs: number,
): Promise<number> {
  return (await getAuthFailureWindow(db, clientId, nowMs, windowMs))?.failures ?? 0;
}

/**
 * The current window, for a `Retry-After` header: failures so far and when the window ends
 * (Unix ms). Undefined when there is no current window.
 */
export async function getAuthFailureWindow(
  db: Kysely<DB>,
  clientId: string,
  nowMs: number,
  windowMs: number,
): Promise<{ failures: number; windowEndsAt: number } | undefined> {
  const row = await db
    .selectFrom('auth_failures')
    .select(['failures', 'window_start'])
    .where('client_id', '=', clientId)
    .where('window_start', '>', nowMs - windowMs)
    .executeTakeFirst();
  return row === undefined ? undefined : { failures: row.failures, windowEndsAt: row.window_start + windowMs };
}

/**
 * The failed attempts under `key` in the current window and, once they have reached
 * AUTH_FAILURE_LIMIT, how many seconds to wait (a `Retry-After`): the token endpoint's and the
 * dashboard login's one rule.
 */
export async function authFailureStatus(
  db: Kysely<DB>,
  key: string,
  nowMs: number,
): Promise<{ failures: number; retryAfterSeconds: number | undefined }> {
  const window = await getAuthFailureWindow(db, key, nowMs, AUTH_FAILURE_WINDOW_MS);
  if (window === undefined) return { failures: 0, retryAfterSeconds: undefined };
  const retryAfterSeconds =
    window.failures >= AUTH_FAILURE_LIMIT ? Math.max(1, Math.ceil((window.windowEndsAt - nowMs) / 1000)) : undefined;
  return { failures: window.failures, retryAfterSeconds };
}

/** Forgets the client's failures (after a successful authentication). */
export async function clearAuthFailures(db: Kysely<DB>, clientId: string): Promise<void> {
  await db.deleteFrom('auth_failures').where('client_id', '=', clientId).execute();
}

/** Deletes windows that are over; they only matter again once a new failure starts one. */
export async function purgeAuthFailures(db: Kysely<DB>, nowMs: number, windowMs: number): Promise<number> {
  const result = await db
    .deleteFrom('auth_failures')
    .where('window_start', '<=', nowMs - windowMs)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A client of the partner API as the dashboard lists it: never its secret hash or its keys. */
export interface ClientSummary {
  readonly clientId: string;
  readonly scopes: string[];
  readonly createdAt: number;
  readonly activePublicKeys: number;
}

/** The organization's clients, oldest first, with how many public keys are active for each. */
export async function listClientSummaries(db: Kysely<DB>, organizationId: string): Promise<ClientSummary[]> {
  const rows = await db
    .selectFrom('clients as c')
    .select([
      'c.id',
      'c.scopes',
      'c.created_at',
      sql<number>`(select count(*) from client_keys k where k.client_id = c.id and k.active)`.as('active_keys'),
    ])
    .where('c.organization_id', '=', organizationId)
    .orderBy('c.created_at')
    .orderBy('c.id')
    .execute();
  return rows.map((row) => ({
    clientId: row.id,
    scopes: row.scopes,
    createdAt: row.created_at,
    activePublicKeys: Number(row.active_keys),
  }));
}
