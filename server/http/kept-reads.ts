/**
 * Answers of reads kept between requests, each served again for as long as its organization's
 * version (server/store/organization-versions.ts) is the one it was read at.
 *
 * A kept read costs one primary-key lookup instead of its statement: a card's balance sums its
 * ledger of the month, a ledger page joins and filters up to a hundred records. The version
 * moves in the same transaction as any change of what these reads show, so:
 * - the version is read first and the answer after it: the answer is then at least as new as the
 *   version it is kept under, and a change committed after the version was read moves it again;
 * - an answer kept under a version at least as new as the one just read was itself read from
 *   committed rows at least that new, so it is served;
 * - every instance keeps its own answers and checks the shared version on every request, so
 *   several instances on one database serve only what the database holds;
 * - a rolled-back change moves nothing.
 * What else an answer depends on is in its key: the operation, the request's input and, for a
 * card's balance, the day. An answer is kept from the second time its key is asked for.
 *
 * The answers are shared between requests: nothing may change an answer once it is kept (sending
 * one, and validating it, reads it only).
 */
import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { organizationVersion } from '../store/organization-versions.js';
import { serializeOnce } from '../toolkit/send-result.js';
import type { DB } from '../store/schema.js';

/** Megabytes of JSON (UTF-8) the kept answers' bodies add up to by default: some 160 ledger pages of 100, or 10,000 cards. */
export const DEFAULT_KEPT_READS_MB = 8;

export interface KeptReads {
  /**
   * The answer kept for `key` in the organization, or `read()`'s, kept. `key` names the operation
   * and everything besides the organization's rows that the answer depends on.
   */
  answer<T extends KeepableAnswer>(db: Kysely<DB>, organizationId: string, key: string, read: () => Promise<T>): Promise<T>;
}

/** A handler's answer; its JSON body is serialized once when it is kept, and sent as those bytes. */
interface KeepableAnswer {
  readonly status: number;
  readonly body: object;
}

interface Kept {
  readonly version: number;
  readonly answer: KeepableAnswer;
  readonly size: number;
}

/**
 * How many keys asked for once are remembered: an answer is kept the second time its key is asked
 * for while it is among them, so that reads asked for once (a walk through the pages of a ledger)
 * keep nothing, cost no version read, and leave what is kept in place. With 4,096, a benchmark run
 * of pages each asked for once left the server's peak RSS some 45 MB higher in the run after it
 * (218–247 against 184–196 MB on PostgreSQL, README "What changed").
 */
const ASKED_ONCE_KEYS = 256;

/** Keeps up to `megabytes` of answers' JSON (UTF-8), least recently used first out; 0 keeps none and reads no version. */
export function createKeptReads(megabytes: number): KeptReads {
  if (megabytes === 0) return { answer: (_db, _organizationId, _key, read) => read() };
  const maxJsonBytes = megabytes * 1024 * 1024;
  const kept = new LRUCache<string, Kept>({ maxSize: maxJsonBytes, sizeCalculation: (entry) => entry.size });
  const askedOnce = new LRUCache<string, true>({ max: ASKED_ONCE_KEYS });
  return {
    async answer<T extends KeepableAnswer>(db: Kysely<DB>, organizationId: string, key: string, read: () => Promise<T>): Promise<T> {
      const keptKey = `${organizationId} ${key}`;
      const found = kept.get(keptKey);
      if (found === undefined && !askedOnce.has(keptKey)) {
        askedOnce.set(keptKey, true);
        return read();
      }
      const version = await organizationVersion(db, organizationId);
      // Kept under this key, so by the read that answers this key: of type T.
      if (found !== undefined && found.version >= version) return found.answer as T;
      const answer = await read();
      const size = keptKey.length + serializeOnce(answer.body);
      // Another request may have kept a newer one meanwhile.
      const latest = kept.peek(keptKey);
      if (size <= maxJsonBytes && (latest === undefined || latest.version < version)) {
        kept.set(keptKey, { version, answer, size });
        askedOnce.delete(keptKey);
      }
      return answer;
    },
  };
}
