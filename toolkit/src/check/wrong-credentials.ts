import type { SecurityRequirement } from '../codegen/bundle.js';
import type { PreparedRequest } from './auth.js';
import type { OutgoingRequest } from './cases.js';
import type { SecuritySchemeSpec } from './document.js';

/**
 * Wrong credentials: where a request carries the credential of each security scheme (OpenAPI 3.1,
 * Security Scheme Object: an `apiKey` in its header, query parameter or cookie; an `http`, `oauth2`
 * or `openIdConnect` scheme in the Authorization header), and the changes that keep it well formed
 * but make it wrong: a bearer token with one character changed, a JSON Web Token whose `exp` is in
 * the past, an HTTP Basic password changed, an unknown Basic user name, an API key with one character
 * changed. Only a credential the run's credentials put on the request (`--header`, `--auth`) is
 * changed, and only where no other security alternative the request still satisfies could let it
 * through.
 */

/** Where a credential travels. */
export interface CredentialPlace {
  readonly in: 'header' | 'query' | 'cookie';
  readonly name: string;
}

/** One credential made wrong. */
export interface CredentialChange {
  /** The security scheme's name in the document. */
  readonly scheme: string;
  /** What was changed, in words: `bearer token with one character changed`. */
  readonly change: string;
  readonly place: CredentialPlace;
  /** The credential's value at its place once changed (a header's whole value). */
  readonly value: string;
}

/**
 * A JSON Web Token's `exp` once made wrong: 2000-01-01T00:00:00Z, a time in the past (RFC 7519,
 * 4.1.4: a token is not accepted on or after its expiration time).
 */
export const EXPIRED_AT = 946_684_800;

const headerEntry = (headers: Readonly<Record<string, string>>, name: string): readonly [string, string] | undefined =>
  Object.entries(headers).find(([key]) => key.toLowerCase() === name.toLowerCase());

/** The raw `name=value` pairs of a URL's query, split on `&`. */
function queryPairs(url: string): { readonly head: string; readonly pairs: string[] } {
  const question = url.indexOf('?');
  if (question < 0) return { head: url, pairs: [] };
  const hash = url.indexOf('#', question);
  const query = url.slice(question + 1, hash < 0 ? undefined : hash);
  return { head: url.slice(0, question), pairs: query === '' ? [] : query.split('&') };
}

const decoded = (text: string): string => {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return text;
  }
};

/** The value of the credential at `place` in `request`; undefined when the request carries none there. */
export function credentialAt(request: OutgoingRequest, place: CredentialPlace): string | undefined {
  switch (place.in) {
    case 'header':
      return headerEntry(request.headers, place.name)?.[1];
    case 'query': {
      const pair = queryPairs(request.url).pairs.find(
        (candidate) => decoded(candidate.split('=')[0] ?? '') === place.name,
      );
      return pair === undefined ? undefined : decoded(pair.slice(pair.indexOf('=') + 1));
    }
    case 'cookie': {
      const cookies = headerEntry(request.headers, 'cookie')?.[1] ?? '';
      for (const cookie of cookies.split(';')) {
        const equals = cookie.indexOf('=');
        if (equals > 0 && cookie.slice(0, equals).trim() === place.name) return cookie.slice(equals + 1).trim();
      }
      return undefined;
    }
  }
}

/** `request` with the credential at `place` set to `value`, everything else as it was written. */
export function withCredentialAt(request: OutgoingRequest, place: CredentialPlace, value: string): OutgoingRequest {
  switch (place.in) {
    case 'header': {
      const name = headerEntry(request.headers, place.name)?.[0] ?? place.name;
      return { ...request, headers: { ...request.headers, [name]: value } };
    }
    case 'query': {
      const { head, pairs } = queryPairs(request.url);
      const hash = request.url.indexOf('#');
      const fragment = hash < 0 ? '' : request.url.slice(hash);
      const written = pairs.map((pair) =>
        decoded(pair.split('=')[0] ?? '') === place.name
          ? `${pair.split('=')[0] ?? ''}=${encodeURIComponent(value)}`
          : pair,
      );
      return { ...request, url: `${head}?${written.join('&')}${fragment}` };
    }
    case 'cookie': {
      const [name, cookies = ''] = headerEntry(request.headers, 'cookie') ?? ['Cookie', ''];
      const written = cookies
        .split(';')
        .map((cookie) => {
          const equals = cookie.indexOf('=');
          return equals > 0 && cookie.slice(0, equals).trim() === place.name
            ? `${cookie.slice(0, equals)}=${value}`
            : cookie;
        })
        .join(';');
      return { ...request, headers: { ...request.headers, [name]: written } };
    }
  }
}

/** Where a scheme's credential travels; undefined for a scheme whose credential is not in the request (mutualTLS). */
export function schemePlace(scheme: SecuritySchemeSpec): CredentialPlace | undefined {
  if (scheme.type === 'apiKey') {
    if (scheme.name === undefined) return undefined;
    if (scheme.in === 'header' || scheme.in === 'query' || scheme.in === 'cookie')
      return { in: scheme.in, name: scheme.name };
    return undefined;
  }
  if (scheme.type === 'http' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect')
    return { in: 'header', name: 'Authorization' };
  return undefined;
}

/** The next character of the same class (`a`→`b`, `z`→`a`, `9`→`0`): the text keeps its alphabet. */
const nextInClass = (char: string): string =>
  char === 'z' ? 'a' : char === 'Z' ? 'A' : char === '9' ? '0' : String.fromCharCode(char.charCodeAt(0) + 1);

/**
 * `text` with one character changed: the letter or digit nearest its middle, into the next of its
 * class (so a hexadecimal or base64url credential stays one), else its middle character into `x`.
 * The middle, not the end: the last character of a base64 text holds bits a decoder may drop.
 */
export function oneCharacterChanged(text: string): string {
  const chars = [...text];
  if (chars.length === 0) return 'x';
  const middle = Math.floor((chars.length - 1) / 2);
  for (let distance = 0; distance < chars.length; distance += 1) {
    for (const at of [middle + distance, middle - distance]) {
      const char = chars[at];
      if (char !== undefined && /^[A-Za-z0-9]$/.test(char)) {
        chars[at] = nextInClass(char);
        return chars.join('');
      }
    }
  }
  chars[middle] = chars[middle] === 'x' ? 'y' : 'x';
  return chars.join('');
}

const fromBase64Url = (text: string): string | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  return Buffer.from(text, 'base64url').toString('utf8');
};
const toBase64Url = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');

const jsonObject = (text: string | undefined): Record<string, unknown> | undefined => {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
};

/** A JSON Web Token's three parts (RFC 7519: a JWS in compact form, its header naming `alg`); undefined for any other token. */
function jwtParts(
  token: string,
): { header: string; payload: string; claims: Record<string, unknown>; signature: string } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [header = '', payload = '', signature = ''] = parts;
  if (typeof jsonObject(fromBase64Url(header))?.['alg'] !== 'string') return undefined;
  const claims = jsonObject(fromBase64Url(payload));
  return claims === undefined ? undefined : { header, payload, claims, signature };
}

/** A bearer token's wrong versions: one character changed (in its signature, for a JWT) and, for a JWT, expired. */
function wrongTokens(token: string): { readonly change: string; readonly token: string }[] {
  const jwt = jwtParts(token);
  if (jwt === undefined) return [{ change: 'token with one character changed', token: oneCharacterChanged(token) }];
  return [
    {
      change: 'token with one character of its signature changed',
      token: `${jwt.header}.${jwt.payload}.${oneCharacterChanged(jwt.signature)}`,
    },
    {
      change: 'token whose exp is in the past',
      token: `${jwt.header}.${toBase64Url(JSON.stringify({ ...jwt.claims, exp: EXPIRED_AT }))}.${jwt.signature}`,
    },
  ];
}

/** The Authorization header's scheme word and the credentials after it (RFC 9110, 11.4). */
const authorization = (value: string): { readonly word: string; readonly rest: string } | undefined => {
  const match = /^(\S+)\s+(.+)$/.exec(value.trim());
  return match?.[1] === undefined || match[2] === undefined ? undefined : { word: match[1], rest: match[2] };
};

/** Whether `value`, found at the scheme's place, is a credential of the scheme: an Authorization header of its scheme word. */
function carries(scheme: SecuritySchemeSpec, value: string): boolean {
  if (scheme.type === 'apiKey') return true;
  const word = authorization(value)?.word.toLowerCase();
  if (scheme.type === 'http') {
    const httpScheme = (scheme.scheme ?? '').toLowerCase();
    return word === (httpScheme === '' ? 'bearer' : httpScheme);
  }
  return word === 'bearer';
}

/** How many wrong versions a scheme's credential can have, at most: the wrong-credential requests an operation needs. */
export function changeCount(scheme: SecuritySchemeSpec | undefined): number {
  if (scheme === undefined) return 0;
  if (scheme.type === 'apiKey') return schemePlace(scheme) === undefined ? 0 : 1;
  if (scheme.type === 'oauth2' || scheme.type === 'openIdConnect') return 2;
  if (scheme.type === 'http') return ['basic', 'bearer'].includes((scheme.scheme ?? '').toLowerCase()) ? 2 : 1;
  return 0;
}

/** The wrong versions of the credential `value` of scheme `name` (found at the scheme's place). */
function changesOf(
  name: string,
  scheme: SecuritySchemeSpec,
  place: CredentialPlace,
  value: string,
): CredentialChange[] {
  if (scheme.type === 'apiKey')
    return [{ scheme: name, change: 'API key with one character changed', place, value: oneCharacterChanged(value) }];
  const parts = authorization(value);
  if (parts === undefined) return [];
  const word = parts.word.toLowerCase();
  const httpScheme = (scheme.scheme ?? '').toLowerCase();
  if (scheme.type === 'http' && httpScheme === 'basic') {
    if (word !== 'basic') return [];
    const pair = Buffer.from(parts.rest, 'base64').toString('utf8');
    const colon = pair.indexOf(':');
    if (colon < 0) return [];
    const user = pair.slice(0, colon);
    const password = pair.slice(colon + 1);
    const basic = (text: string): string => `${parts.word} ${Buffer.from(text, 'utf8').toString('base64')}`;
    return [
      {
        scheme: name,
        change: 'password with one character changed',
        place,
        value: basic(`${user}:${oneCharacterChanged(password)}`),
      },
      { scheme: name, change: 'unknown user name', place, value: basic(`unknown-${user}:${password}`) },
    ];
  }
  const bearer = scheme.type !== 'http' || httpScheme === 'bearer';
  if (bearer) {
    if (word !== 'bearer') return [];
    return wrongTokens(parts.rest).map(({ change, token }) => ({
      scheme: name,
      change,
      place,
      value: `${parts.word} ${token}`,
    }));
  }
  if (word !== httpScheme) return [];
  return [
    {
      scheme: name,
      change: 'credentials with one character changed',
      place,
      value: `${parts.word} ${oneCharacterChanged(parts.rest)}`,
    },
  ];
}

/**
 * The wrong-credential versions of a request: `before` as built, `sent` once the run's credentials
 * were added. For each scheme the operation's `security` names whose credential the run's
 * credentials put on the request (it is in `sent` and not, or not so, in `before`), each change of
 * that credential after which every security alternative lacks a credential as it was given (an
 * alternative still satisfied could rightly let the request through).
 */
export function wrongCredentialChanges(
  before: OutgoingRequest,
  sent: OutgoingRequest,
  security: readonly SecurityRequirement[],
  schemes: Readonly<Record<string, SecuritySchemeSpec>>,
): CredentialChange[] {
  const given = (name: string, request: OutgoingRequest): boolean => {
    const scheme = schemes[name];
    const place = scheme === undefined ? undefined : schemePlace(scheme);
    if (scheme === undefined || place === undefined) return false;
    const value = credentialAt(request, place);
    return (
      value !== undefined &&
      value === credentialAt(sent, place) &&
      value !== credentialAt(before, place) &&
      carries(scheme, value)
    );
  };
  const names = [...new Set(security.flatMap((alternative) => Object.keys(alternative)))];
  const changes: CredentialChange[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    const scheme = schemes[name];
    if (scheme === undefined || !given(name, sent)) continue;
    const place = schemePlace(scheme);
    const value = place === undefined ? undefined : credentialAt(sent, place);
    if (place === undefined || value === undefined) continue;
    for (const change of changesOf(name, scheme, place, value)) {
      const key = `${change.place.in} ${change.place.name.toLowerCase()} ${change.value}`;
      if (seen.has(key)) continue;
      const changed = withCredentialAt(sent, change.place, change.value);
      const stillSatisfied = security.some((alternative) =>
        Object.keys(alternative).every((other) => given(other, changed)),
      );
      if (stillSatisfied) continue;
      seen.add(key);
      changes.push(change);
    }
  }
  return changes;
}

/**
 * A prepared request with `change` made: sent changed, and shown changed where it shows the
 * credential as given (`--header`); where it shows `<credential>` (an `--auth` module's), it still does.
 */
export function withChange(prepared: PreparedRequest, change: CredentialChange): PreparedRequest {
  const sent = withCredentialAt(prepared.sent, change.place, change.value);
  const shownValue = credentialAt(prepared.shown, change.place);
  const shown =
    shownValue !== undefined && shownValue === credentialAt(prepared.sent, change.place)
      ? withCredentialAt(prepared.shown, change.place, change.value)
      : prepared.shown;
  return { sent, shown };
}
