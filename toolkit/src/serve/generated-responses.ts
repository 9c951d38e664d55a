import fc from 'fast-check';
import { isJsonMediaType } from '../runtime/send-result.js';
import type { OpenApiDocument } from '../codegen/bundle.js';
import type { OperationInfo } from '../codegen/operations.js';
import {
  atPointer,
  follow,
  readOperations,
  type MediaSpec,
  type OperationSpec,
  type ResponseSpec,
} from '../check/document.js';
import { Schemas } from '../check/schemas.js';
import { valuesOf } from '../check/values.js';

/**
 * What `npm run serve` responds with for an operation whose document gives no example of a success
 * response, where a stub would respond with 501: a value generated from the schema of its first
 * success response (else of its `2XX` or `default` one, sent as 200) by the checker's value
 * generator (check/values.ts), kept only when it matches that schema, generated when first needed
 * and the same value on every call; a response without content is sent without a body, and one in
 * a media type other than JSON as text or bytes (otherResponse). An operation that declares no
 * responses gets 200 without a body. Undefined where nothing can be generated (a response with
 * required headers): the stub's 501 stands then. The document is read as the checker reads it
 * (check/document.ts).
 */
export interface GeneratedResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string;
}

/**
 * A value generated from the schema at `pointer` that matches it; undefined where none is found.
 * Values with every property first, else the smallest (required properties only): in a large schema
 * one of many optional properties generated off it (a value two `oneOf` branches both take) spoils the whole.
 */
export function generatedValue(document: OpenApiDocument, schemas: Schemas, pointer: string, seed: number): unknown {
  for (const minimal of [false, true]) {
    const arbitrary = valuesOf(
      document,
      { $ref: pointer },
      { channel: 'body', direction: 'response', ordinary: true, minimal },
    );
    const found =
      arbitrary === undefined
        ? undefined
        : fc.sample(arbitrary, { numRuns: 50, seed }).find((value) => schemas.valid('response', pointer, value));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The smallest images of their kind, 1×1 and transparent, so that a client that shows them can. */
const IMAGES: Readonly<Record<string, string>> = {
  'image/png': 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAAC0lEQVR42mNgAAIAAAUAAen63NgAAAAASUVORK5CYII=',
  'image/gif': 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7',
};

/**
 * A response in the first media type other than JSON: text (`text/…`, or a string schema that is
 * not `format: binary`) generated from its schema, else bytes: a 1×1 image for PNG and GIF, else 16
 * bytes generated from the seed. A wildcard type (`image/*`) is sent as `application/octet-stream`.
 */
function otherResponse(
  document: OpenApiDocument,
  schemas: Schemas,
  media: MediaSpec,
  seed: number,
): { body: string | Buffer; contentType: string } | undefined {
  const contentType = media.type.includes('*') ? 'application/octet-stream' : media.type;
  let declared: Record<string, unknown> | undefined;
  try {
    declared =
      media.schemaPointer === undefined
        ? undefined
        : follow(document, atPointer(document, media.schemaPointer), media.schemaPointer).value;
  } catch {
    // A schema that is not an object (`true`) says nothing of the bytes.
  }
  const binary =
    declared?.['format'] === 'binary' ||
    declared?.['contentEncoding'] !== undefined ||
    declared?.['contentMediaType'] !== undefined;
  if (!binary && (/^text\//i.test(media.type) || declared?.['type'] === 'string')) {
    const text =
      media.schemaPointer === undefined ? 'ok' : generatedValue(document, schemas, media.schemaPointer, seed);
    return typeof text === 'string' ? { body: text, contentType } : undefined;
  }
  const image = IMAGES[contentType.toLowerCase()];
  const bytes =
    image === undefined
      ? Buffer.from(fc.sample(fc.uint8Array({ minLength: 16, maxLength: 16 }), { numRuns: 1, seed })[0] ?? [])
      : Buffer.from(image, 'base64');
  return { body: bytes, contentType };
}

/** An operation's success response: the first success code it declares; else its `2XX` or `default` response. */
export function successResponseOf(spec: OperationSpec): ResponseSpec | undefined {
  return (
    spec.responses.filter((response) => /^2\d\d$/.test(response.key)).sort((a, b) => a.key.localeCompare(b.key))[0] ??
    spec.responses.find((response) => response.key.toUpperCase() === '2XX') ??
    spec.responses.find((response) => response.key === 'default')
  );
}

/** The responses serve generates, each generated the first time it is asked for and kept. */
export interface GeneratedResponses {
  get(operationKey: string): GeneratedResponse | undefined;
}

export function generatedResponses(
  document: OpenApiDocument,
  operations: readonly OperationInfo[],
  seed = 1,
): GeneratedResponses {
  let read: ReadonlyMap<string, OperationSpec> | undefined;
  let schemas: Schemas | undefined;
  const byKey = new Map(operations.map((operation) => [operation.key, operation]));
  const responses = new Map<string, GeneratedResponse | undefined>();
  const responseOf = (operation: OperationInfo): GeneratedResponse | undefined => {
    read ??= new Map(readOperations(document).operations.map((spec) => [`${spec.method} ${spec.path}`, spec]));
    const spec = read.get(`${operation.method.toUpperCase()} ${operation.path}`);
    if (spec === undefined) return undefined;
    if (spec.responses.length === 0) return { status: 200 };
    const success = successResponseOf(spec);
    if (success === undefined || success.headers.some((header) => header.required)) return undefined;
    // A `2XX` or `default` response is sent as 200.
    const status = /^\d+$/.test(success.key) ? Number(success.key) : 200;
    const [first] = success.media;
    if (first === undefined) return { status };
    schemas ??= new Schemas(document);
    const json = success.media.find((media) => isJsonMediaType(media.type));
    if (json === undefined) {
      const other = otherResponse(document, schemas, first, seed);
      return other === undefined ? undefined : { status, ...other };
    }
    if (json.schemaPointer === undefined) return undefined;
    const body = generatedValue(document, schemas, json.schemaPointer, seed);
    return body === undefined ? undefined : { status, body, contentType: json.type };
  };
  const get = (operationKey: string): GeneratedResponse | undefined => {
    if (!responses.has(operationKey)) {
      const operation = byKey.get(operationKey);
      responses.set(operationKey, operation === undefined ? undefined : responseOf(operation));
    }
    return responses.get(operationKey);
  };
  return { get };
}
