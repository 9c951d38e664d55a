import type { OperationSpec, ResponseSpec } from './document.js';
import { essence, isJsonType, mediaMatches } from './media.js';
import type { Outcome } from './requests.js';
import type { PluginKind } from './plugin.js';
import type { Schemas } from './schemas.js';

/**
 * The checks on one response, against what the document declares for its operation: no 5xx, a
 * declared status, a declared Content-Type, a body and headers that match their schemas, a 4xx to
 * an invalid request or one without credentials, a 401 or 403 to one with a wrong credential, a
 * created object that can be read. Each problem
 * is a verdict with a key part (`detail`) that is the same every time the same thing breaks, so
 * that each distinct failure is reported once.
 */

export const FINDING_KINDS = [
  'server-error',
  'undeclared-status',
  'content-type',
  'response-body',
  'response-header',
  'accepted-invalid',
  'accepted-without-credentials',
  'ignored-auth',
  'created-not-found',
  'hang',
  'network',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export interface Verdict<Kind extends string = FindingKind | PluginKind> {
  /** The checker's own kinds, or a plug-in's (plugin.ts). */
  readonly kind: Kind;
  readonly status: number | null;
  /** What broke, the same for every response that breaks it the same way (a schema path, a header name, a constraint). */
  readonly detail: string;
  readonly message: string;
}

/** What a request was meant to be, which says what a right response to it is. */
export type Intent =
  | { readonly kind: 'valid' }
  | {
      readonly kind: 'invalid';
      readonly constraint: string;
      readonly description: string;
      readonly parameter?: { readonly in: string; readonly name: string };
    }
  | { readonly kind: 'no-credentials' }
  /** A request whose credential for `scheme` was made wrong (`change` says how); every other part is valid. */
  | { readonly kind: 'wrong-credentials'; readonly scheme: string; readonly change: string }
  /** The first read of an object a previous request created. */
  | { readonly kind: 'read-after-create'; readonly created: string }
  /** A plug-in's request (plugin.ts): judged against the document only when the plug-in asks. */
  | { readonly kind: 'plugin'; readonly againstDocument: boolean };

/** The response the document declares for `status`: the code itself, else its range (`4XX`), else `default`. */
export function declaredResponse(operation: OperationSpec, status: number): ResponseSpec | undefined {
  const code = String(status);
  const range = `${code[0] ?? ''}XX`;
  return (
    operation.responses.find((response) => response.key === code) ??
    operation.responses.find((response) => response.key.toUpperCase() === range) ??
    operation.responses.find((response) => response.key === 'default')
  );
}

/** Statuses whose responses carry no body (RFC 9110, 6.4.1), and responses to HEAD. */
const bodiless = (status: number, method: string): boolean =>
  method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200);

const shortText = (text: string): string => (text.length > 120 ? `${text.slice(0, 117)}...` : text);

function judgeContent(
  operation: OperationSpec,
  response: ResponseSpec,
  status: number,
  headers: Readonly<Record<string, string>>,
  body: string,
  schemas: Schemas,
): Verdict<FindingKind>[] {
  const verdicts: Verdict<FindingKind>[] = [];
  const contentType = headers['content-type'];
  const where = `${response.key} response`;
  if (bodiless(status, operation.method)) return verdicts;
  if (body.length === 0) {
    // An empty response where every declared payload is JSON with a schema matches none of them.
    if (response.media.length > 0 && response.media.every((m) => isJsonType(m.type) && m.schemaPointer !== undefined)) {
      verdicts.push({
        kind: 'response-body',
        status,
        detail: `${response.key} empty`,
        message: `the body is empty; the ${where} declares ${response.media.map((m) => m.type).join(', ')}`,
      });
    }
    return verdicts;
  }
  if (response.media.length === 0) {
    verdicts.push({
      kind: 'content-type',
      status,
      detail: `${response.key} no content`,
      message: `the ${where} declares no content, but the response has a ${contentType ?? 'untyped'} body of ${Buffer.byteLength(body)} bytes`,
    });
    return verdicts;
  }
  if (contentType === undefined) {
    verdicts.push({
      kind: 'content-type',
      status,
      detail: `${response.key} missing`,
      message: `the response has a body but no Content-Type; the ${where} declares ${response.media.map((m) => m.type).join(', ')}`,
    });
    return verdicts;
  }
  const media = response.media.find((m) => mediaMatches(m.type, contentType));
  if (media === undefined) {
    verdicts.push({
      kind: 'content-type',
      status,
      detail: `${response.key} ${essence(contentType)}`,
      message: `Content-Type ${contentType} is not declared for the ${where} (it declares ${response.media.map((m) => m.type).join(', ')})`,
    });
    return verdicts;
  }
  if (media.schemaPointer === undefined || !isJsonType(contentType)) return verdicts;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    verdicts.push({
      kind: 'response-body',
      status,
      detail: `${response.key} not JSON`,
      message: `the body is not JSON (${error instanceof Error ? error.message : String(error)}): ${shortText(body)}`,
    });
    return verdicts;
  }
  const problem = schemas.problem('response', media.schemaPointer, parsed);
  if (problem !== undefined) {
    verdicts.push({
      kind: 'response-body',
      status,
      detail: `${response.key} ${problem.schemaPath}`,
      message: `${problem.message} (schema ${media.schemaPointer}${problem.schemaPath.slice(1)})`,
    });
  }
  return verdicts;
}

function judgeHeaders(
  response: ResponseSpec,
  status: number,
  headers: Readonly<Record<string, string>>,
  schemas: Schemas,
): Verdict<FindingKind>[] {
  const verdicts: Verdict<FindingKind>[] = [];
  for (const header of response.headers) {
    // A response's Content-Type header definition is ignored (Response Object, `headers`).
    if (header.name.toLowerCase() === 'content-type') continue;
    const value = headers[header.name.toLowerCase()];
    if (value === undefined) {
      if (header.required)
        verdicts.push({
          kind: 'response-header',
          status,
          detail: `${header.name} missing`,
          message: `required header ${header.name} of the ${response.key} response is missing`,
        });
      continue;
    }
    const problem = schemas.problem(
      'parameter',
      header.schemaPointer,
      value.includes(',') && !schemasTakeString(schemas, header.schemaPointer, value)
        ? value.split(',').map((part) => part.trim())
        : value,
    );
    if (problem !== undefined) {
      verdicts.push({
        kind: 'response-header',
        status,
        detail: `${header.name} ${problem.schemaPath}`,
        message: `header ${header.name}: ${shortText(value)}: ${problem.message.replace(/^\/ /, '')}`,
      });
    }
  }
  return verdicts;
}

/** Whether a header's whole text matches its schema (a date with a comma is one value, not a list). */
const schemasTakeString = (schemas: Schemas, pointer: string | undefined, value: string): boolean =>
  schemas.valid('parameter', pointer, value);

/** Every check on one response to a request of `operation` meant as `intent`. */
export function judge(
  operation: OperationSpec,
  outcome: Outcome,
  intent: Intent,
  schemas: Schemas,
  timeoutMs: number,
): Verdict<FindingKind>[] {
  if (outcome.kind === 'unsendable') return [];
  if (outcome.kind === 'hang')
    return [{ kind: 'hang', status: null, detail: 'hang', message: `no response within ${timeoutMs} ms` }];
  if (outcome.kind === 'network')
    return [
      { kind: 'network', status: null, detail: outcome.message, message: `the connection failed: ${outcome.message}` },
    ];
  const { status, headers, body } = outcome.response;
  const verdicts: Verdict<FindingKind>[] = [];
  if (status >= 500)
    verdicts.push({
      kind: 'server-error',
      status,
      detail: '',
      message: `responded with ${status}: ${shortText(body)}`,
    });
  if (intent.kind === 'plugin' && !intent.againstDocument) return verdicts;
  if (intent.kind === 'invalid' && status >= 200 && status < 300) {
    verdicts.push({
      kind: 'accepted-invalid',
      status,
      detail: intent.constraint,
      message: `responded with ${status} to an invalid request: ${intent.description}`,
    });
  }
  if (intent.kind === 'no-credentials' && status >= 200 && status < 300) {
    verdicts.push({
      kind: 'accepted-without-credentials',
      status,
      detail: '',
      message: `responded with ${status} to a request without the credentials its security requires`,
    });
  }
  // RFC 9110, 15.5.2 and 15.5.4: a credential the server does not accept gets 401, or 403.
  if (intent.kind === 'wrong-credentials' && status !== 401 && status !== 403) {
    verdicts.push({
      kind: 'ignored-auth',
      status,
      detail: `${intent.scheme} ${intent.change}`,
      message: `responded with ${status} to a request whose ${intent.scheme} credential was wrong (${intent.change}); a wrong credential gets 401 or 403`,
    });
  }
  if (intent.kind === 'read-after-create' && status === 404) {
    verdicts.push({
      kind: 'created-not-found',
      status,
      detail: '',
      message: `responded with 404 to a read of what was just created: ${intent.created}`,
    });
  }
  const response = declaredResponse(operation, status);
  // An operation that declares no response at all (OpenAPI 3.1 allows it) promises no status.
  if (response === undefined && operation.responses.length === 0) return verdicts;
  if (response === undefined) {
    verdicts.push({
      kind: 'undeclared-status',
      status,
      detail: '',
      message: `status ${status} is not declared (the operation declares ${operation.responses.map((r) => r.key).join(', ') || 'no response'})`,
    });
    return verdicts;
  }
  verdicts.push(
    ...judgeContent(operation, response, status, headers, body, schemas),
    ...judgeHeaders(response, status, headers, schemas),
  );
  return verdicts;
}
