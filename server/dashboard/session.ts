import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { Kysely } from 'kysely';
import type { RouteDefinition } from '../../generated/dashboard/server.js';
import { ApiError } from '../http/errors.js';
import type { Clock } from '../clock-and-ids.js';
import { findLiveSession, type LiveSession } from '../store/operators.js';
import type { DB } from '../database/index.js';

/**
 * The dashboard's session, CSRF and Origin checks, in the order of the dashboard document's
 * "Order of the checks": Origin (every operation), the session cookie (every operation but
 * login), the X-CSRF-Token (every write), the approver role (every write but logout). Body and
 * parameter validation come after them, then the handler.
 */

/** The cookie of the `session` security scheme (openapi/dashboard/dashboard.yaml, "Sessions"). */
export const SESSION_COOKIE = 'dashboard_session';
/** A session lasts 8 hours from login: the cookie's Max-Age and the stored expiry (the "Sessions" table). */
export const SESSION_TTL_MS = 8 * 60 * 60 * 1000;
/** The security scheme of the dashboard document that the session cookie satisfies. */
const SESSION_SCHEME = 'session';
/** The header every write carries (the CsrfToken parameter). */
const CSRF_HEADER = 'X-CSRF-Token';
/** A cookie value as login makes it: 32 random bytes, base64url. Anything else names no session. */
const SESSION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A new session token: 32 random bytes, base64url. Only its SHA-256 is stored. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a session token: its SHA-256, hex. */
export function sessionTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * The session's CSRF token: an HMAC-SHA256 of the session token under a service secret, so that
 * nothing more is stored, it changes with every login, and it cannot be made without the cookie
 * value (which scripts cannot read) and the secret.
 */
export function csrfTokenOf(csrfKey: Buffer, sessionToken: string): string {
  return createHmac('sha256', csrfKey).update(sessionToken, 'utf8').digest('base64url');
}

/** Compares in constant time; a value of another length never matches. */
function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The attributes of the session cookie (the "Sessions" table): Secure in production. */
function cookieAttributes(secure: boolean, maxAgeSeconds: number): string {
  return `Path=/dashboard; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function sessionCookie(token: string, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; ${cookieAttributes(secure, SESSION_TTL_MS / 1000)}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; ${cookieAttributes(secure, 0)}`;
}

/** The session token the request's cookie carries (parsed by cookie-parser, api.ts), when it has the shape of one. */
export function sessionTokenOf(req: Request): string | undefined {
  const cookies: unknown = (req as { cookies?: unknown }).cookies;
  if (typeof cookies !== 'object' || cookies === null) return undefined;
  const value: unknown = (cookies as Record<string, unknown>)[SESSION_COOKIE];
  return typeof value === 'string' && SESSION_TOKEN.test(value) ? value : undefined;
}

/** The live session of a request, for the handler; set by the session check. */
export interface RequestSession extends LiveSession {
  /** The cookie value: a secret, never logged. */
  readonly token: string;
  readonly tokenHash: string;
}

export const SESSION = Symbol('dashboardSession');
export interface SessionLocals {
  [SESSION]?: RequestSession;
}

/** Whether the operation needs a session: it names the `session` scheme, and nothing else. */
function needsSession(route: RouteDefinition): boolean {
  if (route.security.length === 0) return false;
  const [requirement, ...alternatives] = route.security;
  const schemes = Object.keys(requirement ?? {});
  if (alternatives.length > 0 || schemes.length !== 1 || schemes[0] !== SESSION_SCHEME) {
    throw new Error(
      `${route.operationId}: the dashboard enforces one ${SESSION_SCHEME} requirement per operation, not ${JSON.stringify(route.security)}`,
    );
  }
  return true;
}

/** The roles the operation's `session` requirement names (the document's "Roles"); empty: any operator. */
function requiredRoles(route: RouteDefinition): readonly string[] {
  return route.security[0]?.[SESSION_SCHEME] ?? [];
}

/** Whether the operation is a write: it declares the X-CSRF-Token header. */
function isWrite(route: RouteDefinition): boolean {
  return route.parameters.header.includes(CSRF_HEADER);
}

/**
 * An `Origin` header, when present, must name the origin the dashboard is served from: its host
 * must be the request's own Host. Browsers send it on cross-origin requests, so another site's
 * page cannot act with an operator's cookie ("CSRF protection"). `Origin: null` (a sandboxed
 * frame, a redirect) is rejected too.
 */
const checkOrigin: RequestHandler = (req, _res, next) => {
  const origin = req.get('origin');
  if (origin === undefined) {
    next();
    return;
  }
  let host: string | undefined;
  try {
    const url = new URL(origin);
    host = url.protocol === 'http:' || url.protocol === 'https:' ? url.host : undefined;
  } catch {
    host = undefined;
  }
  if (host !== undefined && host === req.get('host')) {
    next();
    return;
  }
  next(
    new ApiError('forbidden', "Requests from another origin are rejected. Use the dashboard's own pages.", {
      details: `Origin: ${origin.slice(0, 200)}`,
    }),
  );
};

/** A write must carry the session's X-CSRF-Token (the document's "CSRF protection"). */
function checkCsrf(csrfKey: Buffer): RequestHandler {
  return (req, res, next) => {
    const session = (res.locals as SessionLocals)[SESSION];
    const given = req.get(CSRF_HEADER);
    if (session === undefined || given === undefined) {
      next(new ApiError('forbidden', 'Writes need the X-CSRF-Token header with the csrfToken of your session.'));
      return;
    }
    if (!sameToken(given, csrfTokenOf(csrfKey, session.token))) {
      next(
        new ApiError('forbidden', 'The X-CSRF-Token header does not match your session.', {
          details: 'Get the token again from GET /dashboard/api/session.',
        }),
      );
      return;
    }
    next();
  };
}

export interface SessionChecks {
  readonly db: Kysely<DB>;
  readonly clock: Clock;
  readonly csrfKey: Buffer;
}

/** The checks an operation's route runs before its body is parsed, in the document's order. */
export function sessionChecks(route: RouteDefinition, deps: SessionChecks): RequestHandler[] {
  const checks: RequestHandler[] = [checkOrigin];
  if (!needsSession(route)) return checks;

  checks.push((req, res, next) => {
    const token = sessionTokenOf(req);
    if (token === undefined) {
      next(
        new ApiError('unauthorized', 'Log in to use the dashboard.', {
          details: 'POST /dashboard/api/session with your username and password.',
        }),
      );
      return;
    }
    const tokenHash = sessionTokenHash(token);
    findLiveSession(deps.db, tokenHash, deps.clock.now()).then((session) => {
      if (session === undefined) {
        next(new ApiError('unauthorized', 'Your session has ended. Log in again.'));
        return;
      }
      (res.locals as SessionLocals)[SESSION] = { ...session, token, tokenHash };
      next();
    }, next);
  });

  if (isWrite(route)) checks.push(checkCsrf(deps.csrfKey));

  // The roles the document names in the operation's security requirement (`session: [approver]`,
  // as OpenAPI lets a non-OAuth requirement list roles); none named: any operator.
  const roles = requiredRoles(route);
  if (roles.length === 0) return checks;
  checks.push((_req, res, next) => {
    const session = (res.locals as SessionLocals)[SESSION];
    if (session !== undefined && roles.includes(session.operator.role)) {
      next();
      return;
    }
    next(
      new ApiError(
        'forbidden',
        `Your role is ${session?.operator.role ?? 'unknown'}; ${route.operationId} needs the ${roles.join(' or ')} role.`,
      ),
    );
  });
  return checks;
}
