import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SecurityRequirement } from '../codegen/bundle.js';
import type { OutgoingRequest } from './cases.js';
import type { SecuritySchemeSpec } from './document.js';

/**
 * Credentials: the headers given with `--header` (sent as typed, and shown as typed, since the
 * user typed them) and a module given with `--auth` for APIs whose credentials depend on the
 * request (a signature over its body, a token fetched and refreshed). What the module adds is
 * never printed: reports show `<credential>` in its place.
 */

/** What an `--auth` module is told of the request it prepares. */
export interface AuthContext {
  /** The operationId, or `METHOD /path`. */
  readonly operation: string;
  readonly method: string;
  /** The path as the document writes it (`/pets/{petId}`). */
  readonly path: string;
  /** The operation's security alternatives (its own, else the document's); empty when it needs none. */
  readonly security: readonly SecurityRequirement[];
  /** The document's security schemes, by name. */
  readonly securitySchemes: Readonly<Record<string, SecuritySchemeSpec>>;
  /** The serialization key a plug-in gave the request's case (plugin.ts: an account, say); undefined: none. */
  readonly key?: string | undefined;
}

/**
 * The interface of an `--auth` module: its default export. `prepare` returns the request with its
 * credentials added (headers, query parameters, cookies; a signature may read the body); it is
 * called for every request the checker sends with credentials, and never for the ones it sends
 * without them on purpose.
 *
 * ```ts
 * // check-auth.ts
 * import type { CheckAuth } from 'contract-first';
 * const auth: CheckAuth = {
 *   prepare: (request) => ({ ...request, headers: { ...request.headers, Authorization: `Bearer ${process.env.TOKEN}` } }),
 * };
 * export default auth;
 * ```
 */
export interface CheckAuth {
  prepare(request: OutgoingRequest, context: AuthContext): OutgoingRequest | Promise<OutgoingRequest>;
}

/** A request as sent, and as reports show it (what `--auth` added replaced by `<credential>`). */
export interface PreparedRequest {
  readonly sent: OutgoingRequest;
  readonly shown: OutgoingRequest;
}

export const HIDDEN = '<credential>';

export class AuthModuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthModuleError';
  }
}

/** Loads an `--auth` module (a path from the current directory); throws AuthModuleError saying what is wrong. */
export async function loadAuth(modulePath: string): Promise<CheckAuth> {
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(path.resolve(modulePath)).href)) as { default?: unknown };
  } catch (error) {
    throw new AuthModuleError(
      `--auth ${modulePath}: cannot load it (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  const auth = loaded.default;
  if (typeof auth !== 'object' || auth === null || typeof (auth as { prepare?: unknown }).prepare !== 'function') {
    throw new AuthModuleError(
      `--auth ${modulePath}: its default export must be an object with a prepare(request, context) function (see CheckAuth of contract-first/check)`,
    );
  }
  return auth as CheckAuth;
}

/** `Name: value` of `--header`; undefined when there is no colon or no name. */
export function parseHeader(text: string): readonly [string, string] | undefined {
  const colon = text.indexOf(':');
  if (colon <= 0) return undefined;
  const name = text.slice(0, colon).trim();
  return name === '' ? undefined : [name, text.slice(colon + 1).trim()];
}

export interface Credentials {
  readonly headers: readonly (readonly [string, string])[];
  readonly auth: CheckAuth | undefined;
}

const withHeader = (
  headers: Readonly<Record<string, string>>,
  name: string,
  value: string,
): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase())),
  [name]: value,
});

/** `after` with whatever differs from `before` (headers, query values) replaced by `<credential>`. */
function hideChanges(before: OutgoingRequest, after: OutgoingRequest): OutgoingRequest {
  const beforeHeaders = new Map(Object.entries(before.headers).map(([name, value]) => [name.toLowerCase(), value]));
  const headers = Object.fromEntries(
    Object.entries(after.headers).map(([name, value]) => [
      name,
      beforeHeaders.get(name.toLowerCase()) === value ? value : HIDDEN,
    ]),
  );
  let url = after.url;
  try {
    const was = new URL(before.url);
    const now = new URL(after.url);
    const changed = [...now.searchParams.entries()].filter(
      ([name, value]) => !was.searchParams.getAll(name).includes(value),
    );
    if (changed.length > 0) {
      const names = new Set(changed.map(([name]) => name));
      const search = [...now.searchParams.entries()]
        .map(([name, value]) => `${encodeURIComponent(name)}=${names.has(name) ? HIDDEN : encodeURIComponent(value)}`)
        .join('&');
      url = `${now.origin}${now.pathname}?${search}`;
    }
  } catch {
    // A URL that does not parse is shown as it is.
  }
  return { ...after, headers, url };
}

/** The request with the credentials added: `--header`s first, then the `--auth` module. */
export async function withCredentials(
  request: OutgoingRequest,
  credentials: Credentials,
  context: AuthContext,
): Promise<PreparedRequest> {
  let headers: Record<string, string> = { ...request.headers };
  for (const [name, value] of credentials.headers) headers = withHeader(headers, name, value);
  const typed: OutgoingRequest = { ...request, headers };
  if (credentials.auth === undefined) return { sent: typed, shown: typed };
  const sent = await credentials.auth.prepare(typed, context);
  return { sent, shown: hideChanges(typed, sent) };
}

/**
 * Whether the credentials (`--header`, `--auth`) set `parameter` to another value than the
 * checker gave it: a request made invalid in that parameter is then no longer invalid (an `--auth`
 * module that signs a timestamp header writes its own), and is not sent as an invalid one.
 */
export function credentialsSetParameter(
  before: OutgoingRequest,
  after: OutgoingRequest,
  parameter: { readonly in: string; readonly name: string },
): boolean {
  const header = (request: OutgoingRequest, name: string): string | undefined =>
    Object.entries(request.headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
  switch (parameter.in) {
    case 'header':
      return header(before, parameter.name) !== header(after, parameter.name);
    case 'query':
      return (
        new URL(before.url).searchParams.getAll(parameter.name).join('\u0000') !==
        new URL(after.url).searchParams.getAll(parameter.name).join('\u0000')
      );
    case 'cookie':
      return header(before, 'cookie') !== header(after, 'cookie');
    default:
      return before.url !== after.url;
  }
}
