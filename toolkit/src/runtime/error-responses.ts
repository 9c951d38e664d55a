import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { sample } from 'openapi-sampler';
import { isReference, pointerToken, referencedPointer, resolveLocal } from './openapi-refs.js';
import { isJsonMediaType } from './send-result.js';

/**
 * The contract server's own error responses (to a request off the contract, credentials missing or
 * rejected, a path or method it does not serve, a handler that failed), as the document declares
 * the operation's response for that status: its code, else its range (`4XX`), else `default`.
 *
 * - A JSON response (`application/json`, `application/problem+json`, any `+json`) gets a body valid
 *   against the declared schema: the document's example of that response when it is valid, else a
 *   value drawn from the schema (openapi-sampler: examples, defaults, `const`, first enum values,
 *   formats, patterns), with the reason written into the property meant for it (`message`,
 *   `detail`, `error_description`, `title`, `error`...), the status into an integer `status` or
 *   `code`, and the status's reason phrase into `title` beside a `detail`. The body is checked
 *   against the schema once, when the operation first responds with the status: one that the
 *   reason would make invalid keeps the example's or the drawn value, and one that stays invalid is
 *   logged with its schema's location.
 * - A text response carries the reason alone, in the declared text media type.
 * - A response declared without content is sent without a body.
 * - The declared response headers that are `required` are sent, from their example or schema.
 * - Where the operation declares nothing for the status (or the request matched no operation): an
 *   RFC 9457 problem details object, `application/problem+json`:
 *   `{ "type": "about:blank", "title": <reason phrase>, "status", "detail": <the reason> }`.
 */
export type ErrorResponseForm =
  | { readonly kind: 'json'; readonly mediaType: string }
  | { readonly kind: 'text'; readonly mediaType: string }
  | { readonly kind: 'empty' };

/** What one of the server's own error responses says: its status and its reason. */
export interface ErrorResponseReason {
  readonly status: number;
  /** What is wrong, in words for the client. */
  readonly message: string;
  /** The value rejected (`query.limit`, `body.items.0.name`), when it is one. */
  readonly field?: string;
}

/** How the server sends its own error response for one status of one operation. */
export interface ErrorResponsePlan {
  readonly form: ErrorResponseForm;
  /** Headers the declared response requires, with values valid against their schemas. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body, for a `json` form. */
  readonly body: (reason: ErrorResponseReason) => unknown;
}

type Json = Record<string, unknown>;

/** The properties, in order of preference, that carry the reason of an error in the error shapes in use. */
const REASON_PROPERTIES = [
  'message',
  'detail',
  'error_description',
  'errorMessage',
  'description',
  'title',
  'error',
  'msg',
  'reason',
] as const;

const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** The reason, with the value it is about when the body has no place of its own for it. */
function sentence({ message, field }: ErrorResponseReason): string {
  return field === undefined || message.includes(field) ? message : `${field}: ${message}`;
}

/** RFC 9457 problem details, where the document declares no response for the status. */
const PROBLEM: ErrorResponsePlan = {
  form: { kind: 'json', mediaType: PROBLEM_MEDIA_TYPE },
  headers: {},
  body: (reason) => ({
    type: 'about:blank',
    title: STATUS_CODES[reason.status] ?? 'Error',
    status: reason.status,
    detail: sentence(reason),
  }),
};

/**
 * The plans of a bundled document's error responses, by operation and status, each made when
 * first needed and kept. `log` hears of a declared error response whose schema no body made here
 * satisfies.
 */
export function errorResponsePlans(
  apiSpec: string,
  log: (line: string) => void = () => undefined,
): (route: { readonly path: string; readonly method: string } | undefined, status: number) => ErrorResponsePlan {
  const document = JSON.parse(readFileSync(apiSpec, 'utf8')) as Json;
  const paths = (document['paths'] ?? {}) as Record<string, Record<string, Json> | undefined>;
  let ajv: Ajv2020 | undefined;
  const validatorAt = (pointer: string): ValidateFunction | undefined => {
    try {
      ajv ??= documentValidator(document);
      const fragment = pointer
        .split('/')
        .map((token, index) => (index === 0 ? token : encodeURIComponent(token)))
        .join('/');
      return ajv.getSchema(`${DOCUMENT_ID}${fragment}`) ?? undefined;
    } catch {
      return undefined;
    }
  };
  const plans = new Map<string, ErrorResponsePlan>();
  return (route, status) => {
    if (route === undefined) return PROBLEM;
    const method = route.method.toLowerCase();
    const key = `${method} ${route.path} ${status}`;
    let plan = plans.get(key);
    if (plan === undefined) {
      plan = planFor(document, paths, route.path, method, status, validatorAt, log);
      plans.set(key, plan);
    }
    return plan;
  };
}

function planFor(
  document: Json,
  paths: Record<string, Record<string, Json> | undefined>,
  path: string,
  method: string,
  status: number,
  validatorAt: (pointer: string) => ValidateFunction | undefined,
  log: (line: string) => void,
): ErrorResponsePlan {
  const responses = (paths[path]?.[method]?.['responses'] ?? {}) as Record<string, unknown>;
  const code = [String(status), `${String(status)[0]}XX`, 'default'].find((name) => responses[name] !== undefined);
  if (code === undefined) return PROBLEM;
  let declared: Json;
  try {
    declared = resolveLocal<Json>(document, responses[code] as Json);
  } catch {
    return PROBLEM;
  }
  const headers = requiredHeaders(document, declared);
  const content = (declared['content'] ?? {}) as Record<string, Json | undefined>;
  const mediaTypes = Object.keys(content);
  if (mediaTypes.length === 0) return { form: { kind: 'empty' }, headers, body: () => undefined };
  const json = mediaTypes.find(isJsonMediaType);
  if (json === undefined) {
    const text = mediaTypes.find((mediaType) => mediaType.toLowerCase().startsWith('text/'));
    if (text === undefined) return PROBLEM;
    return { form: { kind: 'text', mediaType: text }, headers, body: () => undefined };
  }
  const mediaTypeObject = content[json] ?? {};
  const schema = mediaTypeObject['schema'];
  const location = referencedPointer(
    document,
    `#/paths/${pointerToken(path)}/${method}/responses/${pointerToken(code)}`,
    responses[code],
  );
  if (schema === undefined || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0)) {
    // Any JSON value is valid: the problem details object says the most.
    return { form: { kind: 'json', mediaType: json }, headers, body: PROBLEM.body };
  }
  const schemaPointer = isReference(schema) ? schema.$ref : `${location}/content/${pointerToken(json)}/schema`;
  const validate = validatorAt(schemaPointer);
  const valid = (value: unknown): boolean => validate === undefined || validate(value) === true;
  const template = templateOf(document, mediaTypeObject, schema, valid);
  const slots = slotsOf(document, schema);
  const fill = (reason: ErrorResponseReason, withReason: boolean): unknown => {
    const { value } = template;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const body: Json = { ...(value as Json) };
    if (slots.status !== undefined) body[slots.status] = reason.status;
    if (withReason && slots.reason !== undefined) {
      const limit = slots.reasonMaxLength;
      const text = sentence(reason);
      body[slots.reason] = limit === undefined || text.length <= limit ? text : text.slice(0, Math.max(0, limit));
      if (slots.reason === 'detail' && slots.title) body['title'] = STATUS_CODES[reason.status] ?? 'Error';
    }
    return body;
  };
  const probe: ErrorResponseReason = { status, message: 'The request is invalid.' };
  let withReason = true;
  if (!valid(fill(probe, true))) {
    withReason = false;
    if (!valid(fill(probe, false)))
      log(
        `the error response ${status} of ${method.toUpperCase()} ${path} is sent off its schema (${schemaPointer}): no body made from its example or schema is valid`,
      );
  }
  return {
    form: { kind: 'json', mediaType: json },
    headers,
    body: (reason) => fill(reason, withReason),
  };
}

/** The document's example of the response when valid, else a value drawn from the schema. */
function templateOf(
  document: Json,
  mediaTypeObject: Json,
  schema: unknown,
  valid: (value: unknown) => boolean,
): { value: unknown } {
  for (const example of examplesOf(document, mediaTypeObject)) if (valid(example)) return { value: example };
  for (const enablePatterns of [true, false]) {
    try {
      const drawn = sample(
        schema as never,
        { skipNonRequired: true, skipWriteOnly: true, quiet: true, enablePatterns },
        document,
      );
      if (valid(drawn)) return { value: drawn };
    } catch {
      // A schema the sampler cannot draw from: the next way, or the plain value below.
    }
  }
  try {
    return { value: sample(schema as never, { skipWriteOnly: true, quiet: true }, document) };
  } catch {
    return { value: {} };
  }
}

/** The media type's `example`, then each of its `examples` (through references). */
function examplesOf(document: Json, mediaTypeObject: Json): unknown[] {
  const found: unknown[] = [];
  if (mediaTypeObject['example'] !== undefined) found.push(mediaTypeObject['example']);
  const examples = (mediaTypeObject['examples'] ?? {}) as Record<string, unknown>;
  for (const example of Object.values(examples)) {
    try {
      const value = resolveLocal<Json>(document, example as Json)['value'];
      if (value !== undefined) found.push(value);
    } catch {
      // A dangling example is the document's to fix; the schema still gives a body.
    }
  }
  return found;
}

interface Slots {
  readonly reason?: string;
  readonly reasonMaxLength?: number;
  readonly status?: string;
  /** A `title` beside the reason in `detail`, RFC 9457's pair. */
  readonly title: boolean;
}

/** Where the reason and the status go in bodies of `schema`: properties it declares, through `allOf` and references. */
function slotsOf(document: Json, schema: unknown): Slots {
  const properties = new Map<string, Json>();
  const visit = (node: unknown, depth: number): void => {
    if (depth > 20 || typeof node !== 'object' || node === null) return;
    let resolved: Json;
    try {
      resolved = resolveLocal<Json>(document, node as Json);
    } catch {
      return;
    }
    for (const [name, property] of Object.entries((resolved['properties'] ?? {}) as Record<string, unknown>)) {
      if (properties.has(name)) continue;
      try {
        properties.set(name, resolveLocal<Json>(document, property as Json));
      } catch {
        // An unresolvable property carries nothing of ours.
      }
    }
    for (const member of (resolved['allOf'] ?? []) as unknown[]) visit(member, depth + 1);
  };
  visit(schema, 0);
  const takes = (property: Json | undefined, type: 'string' | 'integer'): boolean => {
    if (property === undefined || property['enum'] !== undefined || property['const'] !== undefined) return false;
    const types = property['type'];
    const listed = Array.isArray(types) ? (types as unknown[]) : types === undefined ? [] : [types];
    if (type === 'string')
      return (
        (listed.length === 0 || listed.includes('string')) &&
        property['format'] === undefined &&
        property['pattern'] === undefined
      );
    return listed.includes('integer') || listed.includes('number');
  };
  const reason = REASON_PROPERTIES.find((name) => takes(properties.get(name), 'string'));
  const status = ['status', 'code', 'statusCode', 'status_code'].find((name) => takes(properties.get(name), 'integer'));
  const maxLength = reason === undefined ? undefined : properties.get(reason)?.['maxLength'];
  return {
    ...(reason === undefined ? {} : { reason }),
    ...(typeof maxLength === 'number' ? { reasonMaxLength: maxLength } : {}),
    ...(status === undefined ? {} : { status }),
    title: reason === 'detail' && takes(properties.get('title'), 'string'),
  };
}

/** The declared response's required headers, each with a value from its example or schema. */
function requiredHeaders(document: Json, declared: Json): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, header] of Object.entries((declared['headers'] ?? {}) as Record<string, unknown>)) {
    let resolved: Json;
    try {
      resolved = resolveLocal<Json>(document, header as Json);
    } catch {
      continue;
    }
    if (resolved['required'] !== true || name.toLowerCase() === 'content-type') continue;
    let value: unknown = resolved['example'];
    if (value === undefined) {
      try {
        value = sample((resolved['schema'] ?? { type: 'string' }) as never, { quiet: true }, document);
      } catch {
        value = '';
      }
    }
    headers[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return headers;
}

/** The document's id for Ajv: references inside it resolve against it. */
const DOCUMENT_ID = 'https://openapi.invalid/error-responses.json';

/** Ajv over the whole document, each schema asked for by its JSON pointer (2020-12, formats checked). */
function documentValidator(document: Json): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, logger: false, validateSchema: false, allErrors: false });
  addFormatsModule.default(ajv, { mode: 'fast' });
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}
