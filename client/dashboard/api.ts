/**
 * The dashboard's API as the pages call it: openapi-fetch typed by generated/dashboard/ (the
 * document openapi/dashboard/dashboard.yaml), on the page's own origin with the session cookie
 * the browser keeps. The CSRF token of the session lives here, in memory only (the document's
 * "CSRF protection"): login and GET /dashboard/api/session hand it over, every write sends it.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from '../../generated/dashboard/openapi-types.js';

export type Paths = paths;
export type Schemas = components['schemas'];
export type Session = Schemas['Session'];
export type ApiError = Schemas['Error'];

export const api = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  // List filters are one comma-separated value (statuses=SUCCEEDED,REVERSED), as the document says.
  querySerializer: { array: { style: 'form', explode: false } },
});

let current: Session | undefined;

export function session(): Session | undefined {
  return current;
}

export function setSession(value: Session | undefined): void {
  current = value;
}

/** The header every write carries: the session's CSRF token. */
export function csrf(): { 'X-CSRF-Token': string } {
  return { 'X-CSRF-Token': current?.csrfToken ?? '' };
}

export const isApprover = (): boolean => current?.operator.role === 'approver';

/** What an operator reads when a request fails: the API's own message, with what to do for the usual cases. */
export function describeError(error: ApiError | undefined, response: Response): string {
  if (response.status === 401) return 'Your session has ended. Log in again.';
  if (response.status === 403) {
    return current?.operator.role === 'viewer'
      ? 'Not allowed: you are a viewer, and only an approver may do this. Ask an approver of your organization.'
      : `Not allowed: ${error?.message ?? 'the service rejected the request.'}`;
  }
  if (response.status === 429) {
    const wait = Number(response.headers.get('Retry-After'));
    return `Too many attempts. Try again in ${Number.isFinite(wait) && wait > 0 ? `${wait} second${wait === 1 ? '' : 's'}` : 'a minute'}.`;
  }
  if (error?.type === 'InsufficientFunds')
    return `Insufficient funds: the organization's available balance cannot cover this transfer. ${error.message}`;
  if (error?.type === 'NotFound') return 'Not found: it may belong to no one in your organization, or it is gone.';
  if (response.status >= 500) return 'The service failed to respond. Try again in a moment.';
  return error?.message ?? `The request failed (HTTP ${response.status}).`;
}

/** Called when any request responds with 401: the pages go back to the login form. */
let onSessionEnded: (() => void) | undefined;
export function whenSessionEnds(handler: () => void): void {
  onSessionEnded = handler;
}
export function sessionEnded(): void {
  current = undefined;
  onSessionEnded?.();
}

api.use({
  onResponse({ response, request }) {
    if (response.status === 401 && !request.url.endsWith('/dashboard/api/session')) sessionEnded();
    return undefined;
  },
});
