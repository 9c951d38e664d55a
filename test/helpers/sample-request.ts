import { resolveLocal } from '../../server/toolkit/openapi-refs.js';
import type { OpenApiDocument } from '../../scripts/codegen/bundle.js';
import { declaredValue, mediaExample, type Found } from '../../scripts/codegen/examples.js';
import type { OperationInfo } from '../../scripts/codegen/operations.js';

/**
 * A request to an operation of any document built from what the document itself gives: each
 * required parameter from its example (or its schema's example, default, first enum value or
 * constant), the body from the request body's example, and credentials for the first security
 * alternative. Undefined when the document leaves a required value without an example, or asks
 * for credentials no request can carry here (a client certificate).
 */
export interface SampleRequest {
  readonly method: string;
  /** The path with its parameters filled in, and the query string. */
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

type Json = Record<string, unknown>;

function parameterValue(document: OpenApiDocument, parameter: Json): Found {
  const declared = declaredValue(document, parameter);
  return declared.found || parameter['schema'] === undefined ? declared : valueOfType(resolveLocal<Json>(document, parameter['schema'] as Json));
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

const basicCredentials = Buffer.from('user:password').toString('base64');

export function sampleRequest(document: OpenApiDocument, operation: OperationInfo, securitySchemes: Readonly<Record<string, { type: string; scheme?: string; in?: string; name?: string }>>): SampleRequest | undefined {
  const paths = (document as { paths: Record<string, Json> }).paths;
  const item = resolveLocal<Json>(document, paths[operation.path] ?? {});
  const declared = resolveLocal<Json>(document, (item[operation.method] ?? {}) as Json);
  const parameters = new Map<string, Json>();
  for (const p of [...((item['parameters'] ?? []) as Json[]), ...((declared['parameters'] ?? []) as Json[])]) {
    const parameter = resolveLocal<Json>(document, p);
    parameters.set(`${String(parameter['in'])} ${String(parameter['name'])}`, parameter);
  }
  let path = operation.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const parameter of parameters.values()) {
    const required = parameter['required'] === true || parameter['in'] === 'path';
    if (!required) continue;
    const { found, value } = parameterValue(document, parameter);
    if (!found) return undefined;
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
  const requestBody = declared['requestBody'] === undefined ? undefined : resolveLocal<Json>(document, declared['requestBody'] as Json);
  if (requestBody !== undefined) {
    const content = (requestBody['content'] ?? {}) as Record<string, Json>;
    const usable = Object.entries(content).find(([type, media]) => /json|x-www-form-urlencoded|^text\//.test(type) && mediaExample(document, media).found);
    if (usable === undefined) {
      if (requestBody['required'] === true) return undefined;
    } else {
      const [type, media] = usable;
      const { value } = mediaExample(document, media);
      headers['Content-Type'] = type;
      body = /json/.test(type)
        ? JSON.stringify(value)
        : type === 'application/x-www-form-urlencoded'
          ? new URLSearchParams(Object.entries(value as Json).map(([k, v]): [string, string] => [k, asText(v)])).toString()
          : String(value);
    }
  }

  const [requirement] = operation.security;
  for (const name of Object.keys(requirement ?? {})) {
    const scheme = securitySchemes[name];
    if (scheme === undefined) return undefined;
    if (scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'basic') headers['Authorization'] = `Basic ${basicCredentials}`;
    else if (scheme.type === 'http' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect') headers['Authorization'] = 'Bearer sample-token';
    else if (scheme.type === 'apiKey' && scheme.in === 'header' && scheme.name !== undefined) headers[scheme.name] = 'sample-key';
    else if (scheme.type === 'apiKey' && scheme.in === 'query' && scheme.name !== undefined) query.append(scheme.name, 'sample-key');
    else if (scheme.type === 'apiKey' && scheme.in === 'cookie' && scheme.name !== undefined) cookies.push(`${scheme.name}=sample-key`);
    else return undefined;
  }
  if (cookies.length > 0) headers['Cookie'] = cookies.join('; ');
  const search = query.toString();
  return { method: operation.method.toUpperCase(), target: `${path}${search === '' ? '' : `?${search}`}`, headers, body };
}
