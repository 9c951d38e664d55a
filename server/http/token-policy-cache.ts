import type { Kysely } from 'kysely';
import type { Clock } from '../clock-and-ids.js';
import { getClientTokenPolicy, type ClientTokenPolicy } from '../store/organizations.js';
import type { DB } from '../database/index.js';

/**
 * 5 s. Every authenticated request checks that its token's client still exists and that the token
 * was not revoked. Asking the database each time would add a query to every read, more than the
 * JWT check itself costs; kept for 5 s, the lookup costs nothing on almost every request, and a
 * revocation (or a removed client) takes effect on every instance within 5 s, far inside a
 * token's one-hour life. Misses are kept too, so a token of a removed client costs no query either.
 */
export const CLIENT_POLICY_CACHE_MS = 5_000;
/** A bound on memory: far more clients than one deployment has; the cache restarts when it is full. */
const MAX_CACHED_CLIENTS = 10_000;

export type ClientPolicyOf = (clientId: string) => Promise<ClientTokenPolicy | undefined>;

export function createClientPolicyCache(db: Kysely<DB>, clock: Clock): ClientPolicyOf {
  const cache = new Map<string, { policy: ClientTokenPolicy | undefined; loadedAt: number }>();
  return async (clientId) => {
    const now = clock.now();
    const hit = cache.get(clientId);
    // `now < loadedAt`: a clock moved back (tests do) gets a fresh look rather than a stale one.
    if (hit !== undefined && now >= hit.loadedAt && now - hit.loadedAt < CLIENT_POLICY_CACHE_MS) return hit.policy;
    const policy = await getClientTokenPolicy(db, clientId);
    if (cache.size >= MAX_CACHED_CLIENTS) cache.clear();
    cache.set(clientId, { policy, loadedAt: now });
    return policy;
  };
}

/**
 * Whether a token issued at `issuedAtSeconds` (its `iat`) is still good for the client: the client
 * exists, belongs to the token's organization, and the token is not older than its revocation point.
 * `iat` has whole seconds; a token issued in the second of a revocation but before it is rejected,
 * and the token endpoint dates tokens issued in that second after it (see `tokenIssueTime`).
 */
export function tokenStillValid(
  policy: ClientTokenPolicy | undefined,
  organizationId: string,
  issuedAtSeconds: number,
): boolean {
  if (policy === undefined || policy.organizationId !== organizationId) return false;
  return policy.tokensNotBefore === null || issuedAtSeconds * 1000 >= policy.tokensNotBefore;
}

/**
 * The time to date a new token with (ms). Normally now; in the second of a revocation, the start
 * of the next second, so that its whole-second `iat` is not before the revocation point and the
 * token works at once (otherwise a client that revokes and re-authenticates would be rejected
 * until the second is over).
 */
export function tokenIssueTime(nowMs: number, tokensNotBefore: number | null): number {
  return tokensNotBefore === null ? nowMs : Math.max(nowMs, Math.ceil(tokensNotBefore / 1000) * 1000);
}
