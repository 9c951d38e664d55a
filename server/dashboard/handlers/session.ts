import type { components } from '../../../generated/dashboard/openapi-types.js';
import type { OperationHandler, OperationResult } from '../../../generated/dashboard/server.js';
import { AUTH_FAILURE_WINDOW_MS, dummySecretHash, verifySecret } from '../../domain/credentials.js';
import { createSession as storeSession, endSession, findOperatorCredentials } from '../../store/operators.js';
import { clearAuthFailures, authFailureStatus, getOrganization, recordAuthFailure } from '../../store/organizations.js';
import { sessionOf, type DashboardContext } from '../context.js';
import {
  SESSION_TTL_MS,
  clearedSessionCookie,
  csrfTokenOf,
  newSessionToken,
  sessionCookie,
  sessionTokenHash,
  type RequestSession,
} from '../session.js';

type Session = components['schemas']['Session'];

/** The responses that hold the CSRF token must not be cached (the document's Cache-Control header). */
const NO_STORE = { 'Cache-Control': 'no-store' } as const;

/**
 * Failed logins are counted with the token endpoint's counter, under a key of their own: client
 * ids never hold a colon, so `operator:` keys cannot meet them. Usernames are unique ignoring
 * case, and so is their count.
 */
function failureKeyOf(username: string): string {
  return `operator:${username.toLowerCase()}`;
}

function sessionBody(
  session: Pick<RequestSession, 'operator' | 'organizationName' | 'expiresAt'>,
  csrfToken: string,
): Session {
  const { operator } = session;
  return {
    operator: { id: operator.id, username: operator.username, role: operator.role },
    organization: { id: operator.organizationId, name: session.organizationName },
    csrfToken,
    expiresAt: session.expiresAt,
  };
}

type LoginResult = OperationResult<'createSession'>;

const wrongCredentials = (): LoginResult => ({
  status: 401,
  body: { message: 'The username or password is wrong.', type: 'Unauthorized' },
});

/**
 * Log in (the createSession description): the password checked against its scrypt hash in
 * constant time (an unknown username costs the same as a wrong password, and a disabled operator
 * responses alike), the rate limit of the token endpoint per username, then a new session whose
 * cookie value is stored only as its SHA-256; the session the browser sent, if any, ends.
 */
export const createSession: OperationHandler<'createSession', DashboardContext> = async (input, ctx) => {
  const { db, now, services } = ctx;
  const { username, password } = input.body;
  const failureKey = failureKeyOf(username);
  const { failures, retryAfterSeconds: retryAfter } = await authFailureStatus(db, failureKey, now);
  if (retryAfter !== undefined) {
    return {
      status: 429,
      body: {
        message: 'Too many failed logins for this username. Wait Retry-After seconds, then try again.',
        type: 'InvalidRequest',
        details: `Wait ${retryAfter} seconds before trying again.`,
      },
      headers: { 'Retry-After': String(retryAfter) },
    };
  }

  const operator = await findOperatorCredentials(db, username);
  const valid = await verifySecret(password, operator?.passwordHash ?? (await dummySecretHash()));
  if (operator === undefined || !valid || operator.disabledAt !== null) {
    // Unknown usernames count too: otherwise the 429 would tell which usernames exist.
    await recordAuthFailure(db, failureKey, now, AUTH_FAILURE_WINDOW_MS);
    return wrongCredentials();
  }
  if (failures > 0) await clearAuthFailures(db, failureKey);
  const organization = await getOrganization(db, operator.organizationId);
  if (organization === undefined) throw new Error(`operator ${operator.id} belongs to no organization`);

  const token = newSessionToken();
  const expiresAt = now + SESSION_TTL_MS;
  const sent = ctx.sentSessionToken;
  await db.transaction().execute(async (tx) => {
    if (sent !== undefined) await endSession(tx, sessionTokenHash(sent), now);
    await storeSession(tx, { tokenHash: sessionTokenHash(token), operatorId: operator.id, now, expiresAt });
  });
  return {
    status: 200,
    body: sessionBody(
      { operator, organizationName: organization.name, expiresAt },
      csrfTokenOf(services.csrfKey, token),
    ),
    headers: { ...NO_STORE, 'Set-Cookie': sessionCookie(token, services.secureCookies) },
  };
};

/** The current session, with its CSRF token again (for a page that was reloaded). */
export const getSession: OperationHandler<'getSession', DashboardContext> = async (_input, ctx) => {
  const session = sessionOf(ctx);
  return {
    status: 200,
    body: sessionBody(session, csrfTokenOf(ctx.services.csrfKey, session.token)),
    headers: NO_STORE,
  };
};

/** Log out: the session ends in the database, so a copy of the cookie is rejected from now on. */
export const deleteSession: OperationHandler<'deleteSession', DashboardContext> = async (_input, ctx) => {
  await endSession(ctx.db, sessionOf(ctx).tokenHash, ctx.now);
  return { status: 204, headers: { 'Set-Cookie': clearedSessionCookie(ctx.services.secureCookies) } };
};
