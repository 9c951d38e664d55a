import fc from 'fast-check';
import { pointerToken, referencedPointer, resolveLocal } from '../runtime/openapi-refs.js';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { declaredValue, mediaExample, type Found, type RejectedExamples } from '../codegen/examples.js';
import { Schemas } from '../check/schemas.js';
import { valuesOf, type Channel } from '../check/values.js';

/**
 * A request to an operation of any document built from what the document itself gives: each
 * required parameter from its example (or its schema's example, default, first enum value or
 * constant), the body from the request body's example, and the credentials the caller gives;
 * examples in `rejected` (they do not match their schema) are passed over. With `draw`, a value
 * the document gives no example of is drawn from its schema as the contract checker draws request
 * values (check/values.ts), the same on every run, and kept only when valid against the schema.
 * Undefined when a required value has neither an example nor a valid drawn value.
 */
export interface SampleRequest {
  readonly method: string;
  /** The path with its parameters filled in, and the query string. */
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

type Json = Record<string, unknown>;

function parameterValue(document: OpenApiDocument, parameter: Json, rejected: RejectedExamples | undefined): Found {
  const declared = declaredValue(document, parameter, rejected);
  return declared.found || parameter['schema'] === undefined
    ? declared
    : valueOfType(resolveLocal<Json>(document, parameter['schema'] as Json));
}

/** Formats whose values this can write without an example. */
const FORMATTED: Readonly<Record<string, string>> = {
  uuid: '00000000-0000-4000-8000-000000000000',
  date: '2024-01-31',
  'date-time': '2024-01-31T12:00:00Z',
  email: 'someone@example.com',
  uri: 'https://example.com/',
};

/** A value of a plain schema's type (within its minimum), where no example is given; none for patterns or objects. */
function valueOfType(schema: Json): Found {
  const type = Array.isArray(schema['type']) ? schema['type'].find((t) => t !== 'null') : schema['type'];
  if (type === 'integer' || type === 'number') {
    const minimum = typeof schema['minimum'] === 'number' ? schema['minimum'] : 1;
    return { found: true, value: Math.max(minimum, 1) };
  }
  if (type === 'boolean') return { found: true, value: true };
  if (type === 'string' && schema['pattern'] === undefined) {
    const format = typeof schema['format'] === 'string' ? schema['format'] : undefined;
    if (format === undefined) return { found: true, value: 'sample' };
    const value = FORMATTED[format];
    return value === undefined ? { found: false, value: undefined } : { found: true, value };
  }
  return { found: false, value: undefined };
}

/** A parameter's value as text, in its style's simplest form (lists comma-separated). */
const asText = (value: unknown): string => (Array.isArray(value) ? value.map(String).join(',') : String(value));

/** What a request carries for one security scheme: headers, query parameters, cookies. */
export interface CredentialParts {
  readonly header?: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  readonly cookie?: Readonly<Record<string, string>>;
}

/** The operation a request is for: the route table's method and path. */
export interface SampleRoute {
  readonly method: string;
  readonly path: string;
}

const basicCredentials = Buffer.from('user:password').toString('base64');

/**
 * Credentials of the right shape for each scheme of `requirement`, which a server that checks only
 * that they are there accepts (`npm run serve`); undefined for one no request can carry here (a
 * client certificate) or a scheme the document does not define.
 */
export function presentCredentials(
  requirement: Readonly<Record<string, readonly string[]>> | undefined,
  securitySchemes: Readonly<Record<string, { type: string; scheme?: string; in?: string; name?: string }>>,
): Record<string, CredentialParts> | undefined {
  const parts: Record<string, CredentialParts> = {};
  for (const name of Object.keys(requirement ?? {})) {
    const scheme = securitySchemes[name];
    if (scheme === undefined) return undefined;
    if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'basic')
      parts[name] = { header: { Authorization: `Basic ${basicCredentials}` } };
    else if (scheme.type === 'http' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect')
      parts[name] = { header: { Authorization: 'Bearer sample-token' } };
    else if (
      scheme.type === 'apiKey' &&
      scheme.name !== undefined &&
      (scheme.in === 'header' || scheme.in === 'query' || scheme.in === 'cookie')
    )
      parts[name] = { [scheme.in]: { [scheme.name]: 'sample-key' } };
    else return undefined;
  }
  return parts;
}

export function sampleRequest(
  document: OpenApiDocument,
  operation: SampleRoute,
  credentials: Readonly<Record<string, CredentialParts>>,
  rejected?: RejectedExamples,
  options: { readonly draw?: boolean } = {},
): SampleRequest | undefined {
  const paths = (document as { paths: Record<string, Json> }).paths;
  const itemPointer = referencedPointer(document, `#/paths/${pointerToken(operation.path)}`, paths[operation.path]);
  const item = resolveLocal<Json>(document, paths[operation.path] ?? {});
  const operationPointer = referencedPointer(document, `${itemPointer}/${operation.method}`, item[operation.method]);
  const declared = resolveLocal<Json>(document, (item[operation.method] ?? {}) as Json);
  const parameters = new Map<string, { parameter: Json; pointer: string }>();
  for (const [at, list] of [
    [`${itemPointer}/parameters`, (item['parameters'] ?? []) as Json[]],
    [`${operationPointer}/parameters`, (declared['parameters'] ?? []) as Json[]],
  ] as const) {
    list.forEach((p, index) => {
      const parameter = resolveLocal<Json>(document, p);
      parameters.set(`${String(parameter['in'])} ${String(parameter['name'])}`, {
        parameter,
        pointer: referencedPointer(document, `${at}/${index}`, p),
      });
    });
  }
  const drawn = (pointer: string, channel: Channel, role: 'parameter' | 'request'): Found =>
    options.draw === true ? drawnValue(document, pointer, channel, role) : { found: false, value: undefined };
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const { parameter, pointer } of parameters.values()) {
    const required = parameter['required'] === true || parameter['in'] === 'path';
    if (!required) continue;
    const given = parameterValue(document, parameter, rejected);
    const channel: Channel = parameter['in'] === 'path' ? 'path' : parameter['in'] === 'header' ? 'header' : 'text';
    const { found, value } =
      given.found || parameter['schema'] === undefined ? given : drawn(`${pointer}/schema`, channel, 'parameter');
    if (!found || (typeof value === 'object' && value !== null && !Array.isArray(value))) return undefined;
    const name = String(parameter['name']);
    switch (parameter['in']) {
      case 'path':
        path = path.replaceAll(`{${name}}`, encodeURIComponent(asText(value)));
        break;
      case 'query':
        query.append(name, asText(value));
        break;
      case 'header':
        headers[name] = asText(value);
        break;
      case 'cookie':
        cookies.push(`${name}=${encodeURIComponent(asText(value))}`);
        break;
    }
  }

  let body: string | undefined;
  const requestBody =
    declared['requestBody'] === undefined ? undefined : resolveLocal<Json>(document, declared['requestBody'] as Json);
  if (requestBody !== undefined) {
    const content = (requestBody['content'] ?? {}) as Record<string, Json>;
    const bodyPointer = `${referencedPointer(document, `${operationPointer}/requestBody`, declared['requestBody'])}/content`;
    // Multipart last: its parts carry text only, so another media type is sent where there is one.
    const sendable = Object.entries(content)
      .filter(([type]) => /json|x-www-form-urlencoded|^multipart\/form-data|^text\//.test(type))
      .sort(([a], [b]) => Number(a.startsWith('multipart/')) - Number(b.startsWith('multipart/')));
    const exampled = sendable.find(([, media]) => mediaExample(document, media, rejected).found);
    let usable: { type: string; value: unknown } | undefined =
      exampled === undefined
        ? undefined
        : { type: exampled[0], value: mediaExample(document, exampled[1], rejected).value };
    for (const [type, media] of requestBody['required'] === true ? sendable : []) {
      if (usable !== undefined) break;
      if (media['schema'] === undefined) continue;
      const drawnBody = drawn(`${bodyPointer}/${pointerToken(type)}/schema`, 'body', 'request');
      if (drawnBody.found && (!type.startsWith('multipart/') || multipartBody(drawnBody.value) !== undefined))
        usable = { type, value: drawnBody.value };
    }
    if (usable === undefined) {
      if (requestBody['required'] === true) return undefined;
    } else {
      const { type, value } = usable;
      headers['Content-Type'] = type;
      const multipart = type.startsWith('multipart/') ? multipartBody(value) : undefined;
      if (type.startsWith('multipart/') && multipart === undefined) return undefined;
      if (multipart !== undefined) headers['Content-Type'] = `multipart/form-data; boundary=${MULTIPART_BOUNDARY}`;
      body =
        multipart !== undefined
          ? multipart
          : /json/.test(type)
            ? JSON.stringify(value)
            : type === 'application/x-www-form-urlencoded'
              ? new URLSearchParams(
                  Object.entries(value as Json).map(([k, v]): [string, string] => [k, asText(v)]),
                ).toString()
              : String(value);
    }
  }

  for (const parts of Object.values(credentials)) {
    Object.assign(headers, parts.header);
    for (const [name, value] of Object.entries(parts.query ?? {})) query.append(name, value);
    for (const [name, value] of Object.entries(parts.cookie ?? {}))
      cookies.push(`${name}=${encodeURIComponent(value)}`);
  }
  if (cookies.length > 0) headers['Cookie'] = cookies.join('; ');
  const search = query.toString();
  return {
    method: operation.method.toUpperCase(),
    target: `${path}${search === '' ? '' : `?${search}`}`,
    headers,
    body,
  };
}

/**
 * A sample request with credentials of the right shape for the operation's first security
 * alternative, for a server that checks only that they are there (`npm run serve`); undefined when
 * there is none (see sampleRequest and presentCredentials).
 */
export function sampleRequestWithAnyCredentials(
  document: OpenApiDocument,
  operation: SampleRoute & { readonly security: ReadonlyArray<Readonly<Record<string, readonly string[]>>> },
  securitySchemes: Parameters<typeof presentCredentials>[1],
  rejected?: RejectedExamples,
): SampleRequest | undefined {
  const credentials = presentCredentials(operation.security[0], securitySchemes);
  return credentials === undefined ? undefined : sampleRequest(document, operation, credentials, rejected);
}

/** The boundary of a sample multipart body: text that no drawn value holds. */
const MULTIPART_BOUNDARY = 'contract-first-sample-boundary';

/**
 * An object as a `multipart/form-data` body (RFC 7578) of text parts, one per value (a list's
 * values each a part of the same name); undefined for a value a text part cannot carry (a nested
 * object) or one that is not an object.
 */
function multipartBody(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const parts: string[] = [];
  for (const [name, field] of Object.entries(value as Json)) {
    for (const item of Array.isArray(field) ? field : [field]) {
      if (typeof item === 'object' && item !== null) return undefined;
      const text = String(item);
      if (text.includes(MULTIPART_BOUNDARY) || /["\r\n]/.test(name)) return undefined;
      parts.push(`--${MULTIPART_BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${text}\r\n`);
    }
  }
  return `${parts.join('')}--${MULTIPART_BOUNDARY}--\r\n`;
}

/** Each document's schemas, read once (check/schemas.ts). */
const schemasOf = new WeakMap<object, Schemas>();

/** How many draws a value is looked for in, and the seed: the same values on every run. */
const DRAWS = 50;
const SEED = 1;

/**
 * A value drawn from the schema at `pointer` as the checker draws a request's values (ordinary
 * values, required properties first), valid against the schema; none where no draw is.
 */
function drawnValue(document: object, pointer: string, channel: Channel, role: 'parameter' | 'request'): Found {
  let schemas = schemasOf.get(document);
  if (schemas === undefined) {
    schemas = new Schemas(document);
    schemasOf.set(document, schemas);
  }
  const checked = schemas;
  for (const minimal of [true, false]) {
    const arbitrary = valuesOf(document, { $ref: pointer }, { channel, direction: 'request', ordinary: true, minimal });
    if (arbitrary === undefined) continue;
    const value = fc
      .sample(arbitrary, { numRuns: DRAWS, seed: SEED })
      .find((candidate) => checked.valid(role, pointer, candidate));
    if (value !== undefined) return { found: true, value };
  }
  return { found: false, value: undefined };
}
