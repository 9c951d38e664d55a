const ALPHABETS = {
  /** Standard Base64 (RFC 4648 §4) with the required `=` padding, nothing else. */
  base64: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  /** base64url (RFC 4648 §5): the URL-safe alphabet, no padding. */
  base64url: /^[A-Za-z0-9_-]+$/,
} as const;

/**
 * Strict Base64 or base64url: not empty, only the encoding's alphabet (and padding), and the canonical
 * encoding of what it decodes to. `Buffer.from(text, encoding)` skips characters it does not know
 * and ignores the unused low bits of the last character, so without these checks several texts
 * would carry the same bytes (a token, cursor or signature with its last character changed from
 * `A` to `B` would still verify).
 */
export function decodeCanonical(text: string, encoding: keyof typeof ALPHABETS): Buffer | null {
  if (text === '' || !ALPHABETS[encoding].test(text)) return null;
  const bytes = Buffer.from(text, encoding);
  return bytes.toString(encoding) === text ? bytes : null;
}
