const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Strict base64url (RFC 4648 §5): the URL-safe alphabet, no padding, and the canonical encoding
 * of what it decodes to. `Buffer.from(text, 'base64url')` ignores the unused low bits of the last
 * character, so without the round trip several texts would carry the same bytes (a token or
 * cursor with its last character changed from `A` to `B` would still verify).
 */
export function decodeBase64url(text: string): Buffer | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}
