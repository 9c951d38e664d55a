import { resolveLocal, type OpenApiDocument, type OperationObject, type PathItem } from './bundle.js';

/**
 * What a document gives as examples: of a media type, a parameter or a header, and of an
 * operation's first success response. The scaffolded stubs respond with them, and the tools that
 * build requests or responses from a document read them the same way. Examples that do not match
 * their schema (mistakes.ts finds them) are passed over for the next one.
 */

type Json = Record<string, unknown>;

/**
 * The examples that do not match their schema, by the object that holds them: `example`, or
 * `examples/<name>` (`examples/<index>` on a schema).
 */
export type RejectedExamples = WeakMap<object, ReadonlySet<string>>;

const NONE_REJECTED: RejectedExamples = new WeakMap();

export interface Found {
  readonly found: boolean;
  readonly value: unknown;
}

const NOTHING: Found = { found: false, value: undefined };

/**
 * The first example an object gives that is not rejected: its `example`, else the first value of
 * its `examples` (a list on a Schema Object, a map of Example Objects, possibly by reference,
 * elsewhere).
 */
export function exampleOf(document: OpenApiDocument, holder: Json, rejected: RejectedExamples = NONE_REJECTED): Found {
  const off = rejected.get(holder);
  if ('example' in holder && off?.has('example') !== true) return { found: true, value: holder['example'] };
  const examples = holder['examples'];
  if (Array.isArray(examples)) {
    const index = examples.findIndex((_, i) => off?.has(`examples/${i}`) !== true);
    return index < 0 ? NOTHING : { found: true, value: examples[index] };
  }
  if (typeof examples === 'object' && examples !== null) {
    for (const [name, declared] of Object.entries(examples)) {
      const example = resolveLocal<Json>(document, declared as Json);
      if ('value' in example && off?.has(`examples/${name}`) !== true) return { found: true, value: example['value'] };
    }
  }
  return NOTHING;
}

const schemaOf = (document: OpenApiDocument, holder: Json): Json =>
  holder['schema'] === undefined ? {} : resolveLocal<Json>(document, holder['schema'] as Json);

/** A media type's example, else its schema's. */
export function mediaExample(
  document: OpenApiDocument,
  media: Json,
  rejected: RejectedExamples = NONE_REJECTED,
): Found {
  const own = exampleOf(document, media, rejected);
  return own.found ? own : exampleOf(document, schemaOf(document, media), rejected);
}

/**
 * A value the document gives a parameter or a header: its example, its schema's example, its
 * schema's default, constant or first enum value.
 */
export function declaredValue(
  document: OpenApiDocument,
  holder: Json,
  rejected: RejectedExamples = NONE_REJECTED,
): Found {
  const own = exampleOf(document, holder, rejected);
  if (own.found) return own;
  const schema = schemaOf(document, holder);
  const fromSchema = exampleOf(document, schema, rejected);
  if (fromSchema.found) return fromSchema;
  if ('default' in schema) return { found: true, value: schema['default'] };
  if ('const' in schema) return { found: true, value: schema['const'] };
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return { found: true, value: schema['enum'][0] };
  return NOTHING;
}

/** The schema type of a parameter or a header (the first one that is not `null`). */
export function schemaType(document: OpenApiDocument, holder: Json): string | undefined {
  const type = schemaOf(document, holder)['type'];
  const first = Array.isArray(type) ? type.find((t) => t !== 'null') : type;
  return typeof first === 'string' ? first : undefined;
}

export interface SuccessExample {
  readonly status: number;
  /** The media type of the response; undefined for a response without content. */
  readonly contentType: string | undefined;
  /** Whether the document gives an example body (always, for a response without content). */
  readonly hasValue: boolean;
  readonly value: unknown;
  /** The response's required headers, each with the value the document gives it, or one of its type. */
  readonly headers: Readonly<Record<string, string>>;
}

function requiredHeaders(
  document: OpenApiDocument,
  response: Json,
  rejected: RejectedExamples,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, declared] of Object.entries((response['headers'] ?? {}) as Record<string, Json>)) {
    const header = resolveLocal<Json>(document, declared);
    if (header['required'] !== true || name.toLowerCase() === 'content-type') continue;
    const { found, value } = declaredValue(document, header, rejected);
    const type = schemaType(document, header);
    headers[name] = found
      ? String(value)
      : type === 'integer' || type === 'number'
        ? '0'
        : type === 'boolean'
          ? 'true'
          : 'example';
  }
  return headers;
}

/**
 * The operation's first success response (200–299, or `2XX` as 200) with the example of its first
 * media type that has one, and its required headers; undefined when it declares no success.
 */
export function successExample(
  document: OpenApiDocument,
  path: string,
  method: string,
  rejected: RejectedExamples = NONE_REJECTED,
): SuccessExample | undefined {
  const item = resolveLocal<PathItem>(document, (document.paths ?? {})[path] ?? {});
  const operation = (item as Record<string, unknown>)[method] as OperationObject | undefined;
  for (const [key, value] of Object.entries(operation?.responses ?? {})) {
    const status = /^2[0-9][0-9]$/.test(key) ? Number(key) : key.toUpperCase() === '2XX' ? 200 : undefined;
    if (status === undefined) continue;
    const response = resolveLocal<Json>(document, value as Json);
    const headers = requiredHeaders(document, response, rejected);
    const content = (response['content'] ?? {}) as Record<string, Json>;
    const types = Object.keys(content);
    if (types.length === 0) return { status, contentType: undefined, value: undefined, hasValue: true, headers };
    for (const type of types) {
      const example = mediaExample(document, content[type] ?? {}, rejected);
      if (example.found) return { status, contentType: type, value: example.value, hasValue: true, headers };
    }
    return { status, contentType: types[0], value: undefined, hasValue: false, headers };
  }
  return undefined;
}
