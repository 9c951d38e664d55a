import { createHash } from 'node:crypto';
import { BANKS } from '../../domain/banks.js';
import { operation } from '../handler-kinds.js';

/** The list only changes with a release, so clients may keep it an hour and revalidate by ETag. */
const CACHE_CONTROL = 'public, max-age=3600';
const BANK_LIST = BANKS.map(({ id, name, shortName }) => ({ id, name, shortName }));
const ETAG = `"${createHash('sha256').update(JSON.stringify(BANK_LIST)).digest('base64url').slice(0, 27)}"`;

/** True when an If-None-Match header names the current list (RFC 9110 §13.1.2, weak comparison). */
function matches(ifNoneMatch: string | undefined): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === ETAG);
}

export const listBanks = operation<'listBanks'>(async function listBanks(_input, ctx) {
  const headers = { 'Cache-Control': CACHE_CONTROL, ETag: ETAG };
  if (matches(ctx.header('if-none-match'))) return { status: 304, headers };
  return { status: 200, body: BANK_LIST, headers };
});
