/**
 * Media types as the checker compares them (RFC 9110, 8.3.1): by type and subtype, case-insensitive,
 * parameters ignored; a document's `type/*` and `*\/*` ranges match any subtype or type.
 */

/** `application/json` of `Application/JSON; charset=utf-8`. */
export const essence = (contentType: string): string => (contentType.split(';')[0] ?? '').trim().toLowerCase();

/** JSON itself, or a structured `+json` type (`application/problem+json`, `application/merge-patch+json`). */
export const isJsonType = (contentType: string): boolean => {
  const type = essence(contentType);
  return type === 'application/json' || type.endsWith('+json');
};

export const isFormType = (contentType: string): boolean =>
  essence(contentType) === 'application/x-www-form-urlencoded';

/** Whether `actual` (a Content-Type) is one of the media types a document key names (`image/*`). */
export function mediaMatches(declared: string, actual: string): boolean {
  const want = essence(declared);
  const got = essence(actual);
  if (want === '*/*' || want === got) return true;
  if (want.endsWith('/*')) return got.startsWith(want.slice(0, -1));
  return false;
}
