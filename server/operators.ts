import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock, IdGenerator } from './clock-and-ids.js';
import { hashSecret } from './domain/credentials.js';
import { createOperator, disableOperator, listOperators, type OperatorRecord } from './store/operators.js';
import { getOrganization } from './store/organizations.js';
import { OPERATOR_ROLES, type DB, type OperatorRole } from './database/index.js';

/** A username: 3 to 100 letters, digits and `. _ - @`, as the dashboard's login accepts it. */
const USERNAME = /^[A-Za-z0-9._@-]{3,100}$/;

/** A throw for input the person running the command gave, with what to fix. */
export class OperatorError extends Error {
  override readonly name = 'OperatorError';
}

export interface NewOperatorLogin {
  readonly operator: OperatorRecord;
  /** Shown once; the service keeps only its scrypt hash. */
  readonly password: string;
}

/** A new password: 18 random bytes, base64url (24 characters). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

/** The username as it is kept (trimmed); throws OperatorError when it cannot be one. */
export function checkedUsername(username: string): string {
  const trimmed = username.trim();
  if (!USERNAME.test(trimmed))
    throw new OperatorError('A username is 3 to 100 letters, digits or any of . _ - @ (no spaces).');
  return trimmed;
}

export function isOperatorRole(value: string): value is OperatorRole {
  return (OPERATOR_ROLES as readonly string[]).includes(value);
}

/**
 * Adds a dashboard operator to an organization with a new password, which is returned once.
 * Runs in the caller's transaction when given one (onboarding), so that a taken username undoes it.
 */
export async function addOperator(
  db: Kysely<DB>,
  deps: { readonly ids: IdGenerator; readonly clock: Clock },
  request: { organizationId: string; username: string; role: OperatorRole },
): Promise<NewOperatorLogin> {
  const username = checkedUsername(request.username);
  if ((await getOrganization(db, request.organizationId)) === undefined) {
    throw new OperatorError(`No organization ${request.organizationId}.`);
  }
  const password = generatePassword();
  const created = await createOperator(db, {
    id: deps.ids.next('opr'),
    organizationId: request.organizationId,
    username,
    passwordHash: await hashSecret(password),
    role: request.role,
    now: deps.clock.now(),
  });
  if (created.kind === 'username-taken')
    throw new OperatorError(`The username ${username} is taken (usernames are unique ignoring case).`);
  return { operator: created.operator, password };
}

/** Disables an operator: they can no longer log in, and their sessions end at once. */
export async function disableOperatorNamed(db: Kysely<DB>, clock: Clock, username: string): Promise<OperatorRecord> {
  const operator = await disableOperator(db, username.trim(), clock.now());
  if (operator === undefined) throw new OperatorError(`No operator ${username.trim()}.`);
  return operator;
}

export async function operatorsOf(db: Kysely<DB>, organizationId: string): Promise<OperatorRecord[]> {
  if ((await getOrganization(db, organizationId)) === undefined)
    throw new OperatorError(`No organization ${organizationId}.`);
  return listOperators(db, organizationId);
}
