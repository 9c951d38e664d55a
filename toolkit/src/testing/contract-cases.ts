/**
 * Contract tests of any document, built from the document itself: for each operation a valid
 * request made of its examples, or of values drawn from its schemas where it gives none
 * (sample-request.ts), and how the server must respond to it, to the
 * same request with a parameter the operation does not declare, and to one without credentials.
 * A project's test/contract.test.ts sends them to its own server; what each case expects is here.
 */
import { readFileSync } from 'node:fs';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { readDocument } from '../codegen/operations.js';
import { workAroundMistakes } from '../codegen/mistakes.js';
import { sampleRequest, type CredentialParts, type SampleRequest } from './sample-request.js';

export type { CredentialParts, SampleRequest };

/** What the tests send for each scheme whose verifier is written (test/credentials.ts). */
export type TestCredentials<Schemes> = { readonly [Name in keyof Schemes]?: CredentialParts };

/** What a case reads of a route of the generated route table. */
export interface CaseRoute {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly security: ReadonlyArray<Readonly<Record<string, readonly string[]>>>;
}

export interface ContractCase {
  readonly operationId: string;
  /** `GET /pets/{id}`. */
  readonly title: string;
  /** A valid request, with credentials where the tests have them; or why there is none. */
  readonly request: SampleRequest | { readonly skip: string };
  /**
   * Whether the request can get through security: `open` (the operation needs none, or the tests
   * hold a credential of a scheme that has a verifier), `no-verifier` (every alternative needs a
   * scheme whose verifier is not written: the server must respond with 401), `no-credential` (a
   * verifier is written but test/credentials.ts gives nothing to send it), or `unmeetable` (every
   * alternative names a scheme the document does not define: the server rejects every request with 403).
   */
  readonly access: 'open' | 'no-verifier' | 'no-credential' | 'unmeetable';
  /** The same request without any credential, for an operation that needs one (401). */
  readonly anonymous: SampleRequest | undefined;
  /** The response keys the operation declares: `200`, `4XX`, `default`. */
  readonly declared: readonly string[];
}

/** Whether `status` is one the operation declares. */
export function declares(contractCase: Pick<ContractCase, 'declared'>, status: number): boolean {
  return contractCase.declared.some(
    (key) => key === String(status) || key === 'default' || (key.endsWith('XX') && key[0] === String(status)[0]),
  );
}

/** The same request with one query parameter more, which the operation does not declare: 400. */
export function withUndeclaredParameter(request: SampleRequest): SampleRequest {
  return {
    ...request,
    target: `${request.target}${request.target.includes('?') ? '&' : '?'}not_a_parameter_of_the_operation=1`,
  };
}

interface CaseOptions {
  /** The bundled document (generated/openapi.json). */
  readonly document: string;
  readonly routes: readonly CaseRoute[];
  /** The schemes that have a verifier (server/security.ts). */
  readonly verified: ReadonlySet<string>;
  readonly credentials: Readonly<Record<string, CredentialParts | undefined>>;
}

/** One case per route, in the route table's order. */
export function contractCases(options: CaseOptions): ContractCase[] {
  // The examples that do not match their schema are passed over, as the generator's stubs pass them over.
  const { document, rejectedExamples } = workAroundMistakes(
    JSON.parse(readFileSync(options.document, 'utf8')) as OpenApiDocument,
  );
  // The server mounts the paths under the path of the document's first server (generated/server.ts's expressPaths).
  const base = readDocument(document).serverBases[0] ?? '';
  const under = (request: SampleRequest | undefined): SampleRequest | undefined =>
    request === undefined ? undefined : { ...request, target: `${base}${request.target}` };
  const paths = (document.paths ?? {}) as Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  const defined = new Set(Object.keys((document.components?.['securitySchemes'] ?? {}) as Record<string, unknown>));
  return options.routes.map((route): ContractCase => {
    const declared = Object.keys(paths[route.path]?.[route.method]?.responses ?? {});
    const alternatives = route.security;
    const needsCredential =
      alternatives.length > 0 && !alternatives.some((requirement) => Object.keys(requirement).length === 0);
    // The first alternative the tests can meet: every scheme in it verified and given a credential.
    const usable = alternatives.find((requirement) =>
      Object.keys(requirement).every((name) => options.verified.has(name) && options.credentials[name] !== undefined),
    );
    const unmeetable =
      needsCredential &&
      alternatives.every((requirement) => Object.keys(requirement).some((name) => !defined.has(name)));
    const access: ContractCase['access'] = unmeetable
      ? 'unmeetable'
      : !needsCredential || usable !== undefined
        ? 'open'
        : alternatives.some((requirement) => Object.keys(requirement).every((name) => options.verified.has(name)))
          ? 'no-credential'
          : 'no-verifier';
    const chosen = needsCredential ? (usable ?? alternatives[0] ?? {}) : {};
    const given = Object.fromEntries(Object.keys(chosen).map((name) => [name, options.credentials[name] ?? {}]));
    const request = under(sampleRequest(document, route, given, rejectedExamples, { draw: true }));
    const anonymous = needsCredential
      ? under(sampleRequest(document, route, {}, rejectedExamples, { draw: true }))
      : undefined;
    return {
      operationId: route.operationId,
      title: `${route.method.toUpperCase()} ${route.path}`,
      request: request ?? {
        skip: 'a value the request needs has no example in the document, and none drawn from its schema is valid',
      },
      access,
      anonymous: anonymous ?? undefined,
      declared,
    };
  });
}
