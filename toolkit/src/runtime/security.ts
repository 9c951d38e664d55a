import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { Request } from 'express';
import type { SecurityHandler } from './openapi-validation.js';
import type { SecurityScheme } from './routes.js';

/**
 * The security schemes of a document, enforced: one verifier per scheme, which a project writes
 * (server/security.ts) and the contract server calls with the credential the request carries, read
 * where the scheme says. A scheme whose verifier is `notConfigured` rejects every request that
 * needs it: an operation is never served open because its check is not written yet.
 *
 * The validator (express-openapi-validator) first checks that the credential is there at all (an
 * API key where the scheme puts it, an Authorization header of the scheme) and responds with 401 when it
 * is not; a verifier that returns false is a 401 too, and one that throws an error with
 * `status: 403` a 403 (a valid credential without the operation's scopes).
 */

/** What a request carries for a scheme of `type` (and, for http, `scheme`). */
export type CredentialOf<S> = S extends { readonly type: 'apiKey' }
  ? { readonly key: string }
  : S extends { readonly type: 'http'; readonly scheme: infer Name }
    ? Lowercase<Name & string> extends 'basic'
      ? { readonly username: string; readonly password: string }
      : { readonly token: string }
    : S extends { readonly type: 'oauth2' | 'openIdConnect' }
      ? { readonly token: string }
      : S extends { readonly type: 'mutualTLS' }
        ? { readonly certificate: PeerCertificate }
        : never;

export interface VerifierContext {
  /** The scopes the operation asks of this scheme (OAuth 2.0, OpenID Connect; empty otherwise). */
  readonly scopes: readonly string[];
  /** The request, for whatever else a verifier reads (a signature over its body, its address). */
  readonly request: Request;
}

/** Whether a credential is good for the operation. */
export type Verifier<Credential> = (credential: Credential, context: VerifierContext) => boolean | Promise<boolean>;

declare const notWritten: unique symbol;
/** A scheme whose verifier is not written yet: every request that needs it is rejected. */
export interface NotConfigured {
  readonly [notWritten]: true;
}
export const notConfigured: NotConfigured = Object.freeze({}) as NotConfigured;

/** One verifier per scheme of `Schemes` (a generated server.ts's `securitySchemes`): a new scheme in the document does not compile until it has one. */
export type Verifiers<Schemes> = {
  readonly [Name in keyof Schemes]: Verifier<CredentialOf<Schemes[Name]>> | NotConfigured;
};

/** A verifier for any scheme, as the contract server holds them. */
export type AnyVerifier = Verifier<never> | NotConfigured;

const isConfigured = (verifier: AnyVerifier | undefined): verifier is Verifier<never> => typeof verifier === 'function';

/** The credential a request carries for `scheme`; undefined when it carries none. */
export function credentialOf(req: Request, scheme: SecurityScheme): unknown {
  switch (scheme.type) {
    case 'apiKey': {
      const name = scheme.name ?? '';
      const value =
        scheme.in === 'header'
          ? req.get(name)
          : scheme.in === 'query'
            ? req.query[name]
            : (req as { cookies?: Record<string, unknown> }).cookies?.[name];
      return typeof value === 'string' ? { key: value } : undefined;
    }
    case 'http': {
      const [given, ...rest] = (req.get('authorization') ?? '').split(' ');
      const token = rest.join(' ').trim();
      if (given?.toLowerCase() !== (scheme.scheme ?? '').toLowerCase() || token === '') return undefined;
      if (given.toLowerCase() !== 'basic') return { token };
      const decoded = Buffer.from(token, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
    }
    case 'oauth2':
    case 'openIdConnect': {
      const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
      return match?.[1] === undefined ? undefined : { token: match[1] };
    }
    case 'mutualTLS': {
      const socket = req.socket as Partial<TLSSocket>;
      return socket.authorized === true && socket.getPeerCertificate !== undefined
        ? { certificate: socket.getPeerCertificate() }
        : undefined;
    }
    default:
      return undefined;
  }
}

/** The schemes of `schemes` that have no verifier in `verifiers`: what a server says at start. */
export function schemesWithoutVerifier(
  schemes: Readonly<Record<string, SecurityScheme>>,
  verifiers: Readonly<Record<string, AnyVerifier>>,
): string[] {
  return Object.keys(schemes).filter((name) => !isConfigured(verifiers[name]));
}

/**
 * The validator's security handlers (one per scheme of the document) that call the project's
 * verifiers; a scheme without one rejects the request.
 */
export function verifyingSecurityHandlers(
  schemes: Readonly<Record<string, SecurityScheme>>,
  verifiers: Readonly<Record<string, AnyVerifier>>,
): Record<string, SecurityHandler> {
  return Object.fromEntries(
    Object.entries(schemes).map(([name, scheme]): [string, SecurityHandler] => {
      const verifier = verifiers[name];
      if (!isConfigured(verifier)) return [name, () => false];
      return [
        name,
        async (req, scopes) => {
          const credential = credentialOf(req, scheme);
          if (credential === undefined) return false;
          return (await (verifier as Verifier<unknown>)(credential, { scopes, request: req })) === true;
        },
      ];
    }),
  );
}
