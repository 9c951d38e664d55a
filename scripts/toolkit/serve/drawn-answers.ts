import fc from 'fast-check';
import { isJsonMediaType } from '../../../server/toolkit/send-result.js';
import { isReference, type OpenApiDocument } from '../codegen/bundle.js';
import type { OperationInfo } from '../codegen/operations.js';
import { Schemas } from '../check/schemas.js';
import { valuesOf } from '../check/values.js';

/**
 * What `npm run serve` answers for an operation whose document gives no example of a success
 * answer, where a stub would answer 501: a value drawn from the schema of its first success
 * response (else of its `2XX` or `default` one, sent as 200), by the checker's drawing
 * (scripts/toolkit/check/values.ts), kept only when it matches that schema, drawn when first
 * needed and the same value on every call; a response without content is answered without a
 * body, and in a media type other than JSON, text or bytes (otherAnswer). An operation that
 * declares no responses is answered 200 without a body. Undefined where nothing can be drawn (a response with required headers): the
 * stub's 501 stands then.
 */
export interface DrawnAnswer {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string;
}


type Json = Record<string, unknown>;

const escape = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');

/** Follows `$ref`s from `pointer`, returning the object reached and the pointer it sits at. */
function follow(document: OpenApiDocument, pointer: string, value: unknown): { value: Json; pointer: string } | undefined {
  let current = value;
  let at = pointer;
  for (let depth = 0; isReference(current); depth += 1) {
    if (depth > 20 || !current.$ref.startsWith('#/')) return undefined;
    at = current.$ref;
    current = current.$ref
      .slice(2)
      .split('/')
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((node, token) => (typeof node === 'object' && node !== null ? (node as Json)[token] : undefined), document);
  }
  return typeof current === 'object' && current !== null ? { value: current as Json, pointer: at } : undefined;
}

/**
 * A value drawn from the schema at `pointer` that matches it; undefined where none is found. Values
 * with every property first, else the smallest (required properties only): in a large schema one
 * of many optional properties drawn off it (a value two `oneOf` branches both take) spoils the whole.
 */
function drawn(document: OpenApiDocument, schemas: Schemas, pointer: string, seed: number): unknown {
  for (const minimal of [false, true]) {
    const arbitrary = valuesOf(document, { $ref: pointer }, { channel: 'body', direction: 'response', ordinary: true, minimal });
    const found = arbitrary === undefined ? undefined : fc.sample(arbitrary, { numRuns: 50, seed }).find((value) => schemas.valid('response', pointer, value));
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
 * An answer in the first media type other than JSON: text (`text/…`, or a string schema that is
 * not `format: binary`) drawn from its schema, else bytes: a 1×1 image for PNG and GIF, else 16
 * bytes drawn by the seed. A wildcard type (`image/*`) is sent as `application/octet-stream`.
 */
function otherAnswer(document: OpenApiDocument, schemas: Schemas, content: Json, at: string, seed: number): { body: string | Buffer; contentType: string } | undefined {
  const [media] = Object.keys(content);
  if (media === undefined) return undefined;
  const contentType = media.includes('*') ? 'application/octet-stream' : media;
  const schema = (content[media] as Json | undefined)?.['schema'];
  const declared = schema === undefined ? undefined : follow(document, `${at}/${escape(media)}/schema`, schema)?.value;
  const binary = declared?.['format'] === 'binary' || declared?.['contentEncoding'] !== undefined || declared?.['contentMediaType'] !== undefined;
  if (!binary && (/^text\//i.test(media) || declared?.['type'] === 'string')) {
    const text = schema === undefined ? 'ok' : drawn(document, schemas, `${at}/${escape(media)}/schema`, seed);
    return typeof text === 'string' ? { body: text, contentType } : undefined;
  }
  const image = IMAGES[contentType.toLowerCase()];
  const bytes = image === undefined ? Buffer.from(fc.sample(fc.uint8Array({ minLength: 16, maxLength: 16 }), { numRuns: 1, seed })[0] ?? []) : Buffer.from(image, 'base64');
  return { body: bytes, contentType };
}

/** The answers serve draws, each drawn the first time it is asked for and kept. */
export interface DrawnAnswers {
  get(operationKey: string): DrawnAnswer | undefined;
  has(operationKey: string): boolean;
}

export function drawnAnswers(document: OpenApiDocument, operations: readonly OperationInfo[], seed = 1): DrawnAnswers {
  let schemas: Schemas | undefined;
  const byKey = new Map(operations.map((operation) => [operation.key, operation]));
  const answers = new Map<string, DrawnAnswer | undefined>();
  const answer = (operation: OperationInfo): DrawnAnswer | undefined => {
    const operationPointer = `#/paths/${escape(operation.path)}/${operation.method}`;
    const responses = (follow(document, operationPointer, (document.paths as Json | undefined)?.[operation.path])?.value[operation.method] as Json | undefined)?.['responses'] as Json | undefined;
    // The first success code it declares; else its `2XX` or `default` answer, sent as 200.
    const keys = Object.keys(responses ?? {});
    const key = keys.filter((k) => /^2\d\d$/.test(k)).sort()[0] ?? keys.find((k) => k.toUpperCase() === '2XX') ?? keys.find((k) => k === 'default');
    if (keys.length === 0) return { status: 200 };
    if (responses === undefined || key === undefined) return undefined;
    const status = Number(/^\d+$/.test(key) ? key : '200');
    const response = follow(document, `${operationPointer}/responses/${escape(key)}`, responses[key]);
    if (response === undefined) return undefined;
    const headers = (response.value['headers'] ?? {}) as Record<string, unknown>;
    if (Object.values(headers).some((header) => (follow(document, '', header)?.value['required'] ?? false) === true)) return undefined;
    const content = (response.value['content'] ?? {}) as Json;
    if (Object.keys(content).length === 0) return { status };
    schemas ??= new Schemas(document);
    const media = Object.keys(content).find(isJsonMediaType);
    if (media === undefined) {
      const other = otherAnswer(document, schemas, content, `${response.pointer}/content`, seed);
      return other === undefined ? undefined : { status, ...other };
    }
    if ((content[media] as Json | undefined)?.['schema'] === undefined) return undefined;
    const body = drawn(document, schemas, `${response.pointer}/content/${escape(media)}/schema`, seed);
    return body === undefined ? undefined : { status, body, contentType: media };
  };
  const get = (operationKey: string): DrawnAnswer | undefined => {
    if (!answers.has(operationKey)) {
      const operation = byKey.get(operationKey);
      answers.set(operationKey, operation === undefined ? undefined : answer(operation));
    }
    return answers.get(operationKey);
  };
  return { get, has: (operationKey) => get(operationKey) !== undefined };
}
