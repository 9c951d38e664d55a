/**
 * Opaque, signed pagination cursors (the document's "Pagination" section).
 *
 * A cursor is `base64url(payload) + "." + base64url(HMAC-SHA256(secret, base64url(payload)))`
 * where payload is the JSON `{"v":1,"s":<sort>,"i":"<id>","b":"<binding>"}`:
 * - `s`, `i`: the keyset position of the last record of the page (sort value, then id as the
 *   tie-breaker), so the next page starts strictly after it and no record is skipped or repeated;
 * - `b`: a hash of the binding (`bindingOf(filters, limit)`), so a cursor is rejected when it is
 *   sent with other filters or another limit (400 `InvalidRequest`, as the Cursor parameter says).
 * The MAC makes the cursor tamper-evident; it is not encrypted, and it holds nothing secret.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { decodeCanonical } from './base64.js';

export type CursorPosition = { sort: number; id: string };

export type CursorCodec = {
  encode(position: CursorPosition, binding: string): string;
  /** The position, or null for a cursor that is tampered, garbled, oversize, of another version or bound to other filters. */
  decode(cursor: string, binding: string): CursorPosition | null;
};

const VERSION = 1;
/** Longer than any cursor `encode` writes: about 190 characters for a usual id, at most 244. */
export const MAX_CURSOR_LENGTH = 512;
/** 128 bits: the least key material a secret may carry. */
const MIN_SECRET_BYTES = 16;
/** Ids are prefixed random ids; the path-parameter pattern of the document bounds them. */
const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const MAC_BYTES = 32;

function sha256Base64url(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url');
}

/**
 * A stable hash of a list's filters and limit: keys sorted, `undefined` dropped (an absent
 * filter and an undefined one are the same request), arrays kept in the given order (the
 * order is part of the request), SHA-256, base64url. Values must be JSON values: a bigint, a
 * function or a non-finite number is a programming error and throws.
 */
export function bindingOf(filters: Readonly<Record<string, unknown>>, limit: number): string {
  return sha256Base64url(canonicalJson({ filters, limit }));
}

function canonicalJson(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError('bindingOf: numbers must be finite');
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value.map((item: unknown) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
      }
      const entries = Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
    }
    default:
      throw new TypeError(`bindingOf: a ${typeof value} is not a JSON value`);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Builds a codec for one server secret (kept in the database, so every instance agrees: README,
 * "Design"). Throws on a secret shorter than 16 bytes: a configuration bug.
 */
export function createCursorCodec(secret: Uint8Array | string): CursorCodec {
  const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (key.length < MIN_SECRET_BYTES) {
    throw new RangeError(`cursor secret must hold at least ${MIN_SECRET_BYTES} bytes; it has ${key.length}`);
  }
  const mac = (payload: string): Buffer => createHmac('sha256', key).update(payload, 'utf8').digest();

  return {
    encode(position, binding) {
      if (!Number.isSafeInteger(position.sort)) throw new RangeError('cursor sort value must be a safe integer');
      if (!ID_PATTERN.test(position.id)) throw new RangeError('cursor id must match ^[A-Za-z0-9_-]{1,64}$');
      const json = JSON.stringify({ v: VERSION, s: position.sort, i: position.id, b: sha256Base64url(binding) });
      const payload = Buffer.from(json, 'utf8').toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },

    decode(cursor, binding) {
      if (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH) return null;
      const parts = cursor.split('.');
      if (parts.length !== 2) return null;
      const [payload, macText] = parts;
      if (payload === undefined || macText === undefined) return null;
      const given = decodeCanonical(macText, 'base64url');
      const payloadBytes = decodeCanonical(payload, 'base64url');
      if (given === null || payloadBytes === null || given.length !== MAC_BYTES) return null;
      if (!timingSafeEqual(given, mac(payload))) return null;

      let parsed: unknown;
      try {
        parsed = JSON.parse(payloadBytes.toString('utf8'));
      } catch {
        return null;
      }
      if (!isRecord(parsed) || Object.keys(parsed).length !== 4) return null;
      const { v, s, i, b } = parsed;
      if (v !== VERSION) return null;
      if (typeof s !== 'number' || !Number.isSafeInteger(s)) return null;
      if (typeof i !== 'string' || !ID_PATTERN.test(i)) return null;
      if (b !== sha256Base64url(binding)) return null;
      return { sort: s, id: i };
    },
  };
}
