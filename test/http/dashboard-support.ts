import { expect } from 'vitest';
import { addOperator } from '../../server/operators.js';
import { randomIds } from '../../server/clock-and-ids.js';
import type { OperatorRole } from '../../server/database/schema.js';
import type { Partner, TestApp } from '../../scripts/proof/app.js';

// A dashboard operator talking to a test app the way the dashboard's pages do: the session
// cookie the login set, the CSRF token of its response on every write, and the page's own Origin.

export interface DashboardRequestOptions {
  readonly body?: unknown;
  readonly rawBody?: string;
  readonly contentType?: string;
  /** The X-CSRF-Token to send: the session's by default on writes; null sends none. */
  readonly csrfToken?: string | null;
  /** The Origin header; the app's own by default on writes (as a browser sends it); null sends none. */
  readonly origin?: string | null;
  /** The cookie to send instead of the session's (null: none). */
  readonly cookie?: string | null;
}

export interface SessionJson {
  operator: { id: string; username: string; role: OperatorRole };
  organization: { id: string; name: string };
  csrfToken: string;
  expiresAt: number;
}

export interface Operator {
  readonly username: string;
  readonly session: SessionJson;
  /** `dashboard_session=<value>`, as the browser sends it back. */
  readonly cookie: string;
  /** The Set-Cookie header of the login. */
  readonly setCookie: string;
  request(method: string, path: string, options?: DashboardRequestOptions): Promise<Response>;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function dashboardFetch(
  baseUrl: string,
  method: string,
  path: string,
  options: DashboardRequestOptions & { cookie?: string | null } = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.cookie !== undefined && options.cookie !== null) headers['Cookie'] = options.cookie;
  if (options.csrfToken !== undefined && options.csrfToken !== null) headers['X-CSRF-Token'] = options.csrfToken;
  const origin = options.origin === undefined ? (WRITES.has(method) ? baseUrl : null) : options.origin;
  if (origin !== null) headers['Origin'] = origin;
  let body: string | undefined;
  if (options.rawBody !== undefined) body = options.rawBody;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
  return fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
}

/** POST /dashboard/api/session, as is. */
export function login(baseUrl: string, username: string, password: string, cookie?: string): Promise<Response> {
  return dashboardFetch(baseUrl, 'POST', '/dashboard/api/session', {
    body: { username, password },
    ...(cookie !== undefined ? { cookie } : {}),
  });
}

/** Logs in, failing the test on anything but 200, and returns the operator's session. */
export async function loginAs(baseUrl: string, username: string, password: string): Promise<Operator> {
  const response = await login(baseUrl, username, password);
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const setCookie = response.headers.getSetCookie()[0] ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  const session = JSON.parse(text) as SessionJson;
  return {
    username,
    session,
    cookie,
    setCookie,
    request: (method, path, options = {}) =>
      dashboardFetch(baseUrl, method, path, {
        ...options,
        cookie: options.cookie === undefined ? cookie : options.cookie,
        csrfToken:
          options.csrfToken === undefined ? (WRITES.has(method) ? session.csrfToken : null) : options.csrfToken,
      }),
  };
}

/** The partner's first operator (an approver), logged in. */
export function loginFirstOperator(app: TestApp, partner: Partner): Promise<Operator> {
  return loginAs(app.baseUrl, partner.operator.operator.username, partner.operator.password);
}

/** Adds an operator of the role to the partner's organization and logs them in. */
export async function addOperatorAndLogin(
  app: TestApp,
  partner: Partner,
  role: OperatorRole,
  username: string,
): Promise<Operator> {
  const added = await addOperator(
    app.db,
    { ids: randomIds, clock: app.clock },
    { organizationId: partner.organizationId, username, role },
  );
  return loginAs(app.baseUrl, username, added.password);
}
