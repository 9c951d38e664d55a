import type { KeyObject } from 'node:crypto';
import type { Kysely } from 'kysely';
import { parsePublicKey } from '../domain/signature.js';
import type { Clock } from '../clock-and-ids.js';
import { listActiveClientKeys } from '../store/organizations.js';
import type { DB } from '../database/index.js';
import type { PublicKeysOf } from './write-request.js';

/**
 * Parsed public keys per client. Parsing a PEM costs about 150 µs more per verification than a
 * cached KeyObject, so keys are kept for 30 s: a key deactivated on another instance
 * stops working within that time. A failed verification may reload at most once a second, so a
 * key added a moment ago works at once without letting bad signatures hammer the database.
 */
const CACHE_TTL_MS = 30_000;
const MIN_RELOAD_INTERVAL_MS = 1_000;

export function createPublicKeyCache(db: Kysely<DB>, clock: Clock): PublicKeysOf {
  const cache = new Map<string, { keys: readonly KeyObject[]; loadedAt: number }>();
  return async (clientId, { fresh }) => {
    const now = clock.now();
    const hit = cache.get(clientId);
    if (hit !== undefined) {
      const age = now - hit.loadedAt;
      if (age < (fresh ? MIN_RELOAD_INTERVAL_MS : CACHE_TTL_MS)) return hit.keys;
    }
    const rows = await listActiveClientKeys(db, clientId);
    const keys: KeyObject[] = [];
    for (const row of rows) {
      const parsed = parsePublicKey(row.publicKeyPem);
      if (parsed.ok) keys.push(parsed.key);
    }
    if (cache.size > 10_000) cache.clear();
    cache.set(clientId, { keys, loadedAt: now });
    return keys;
  };
}
