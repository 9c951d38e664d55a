import fc, { type Arbitrary } from 'fast-check';
import type { MediaSpec, OperationSpec, ParameterSpec } from './document.js';
import { isFormType, isJsonType } from './media.js';
import type { Schemas } from './schemas.js';
import { cookiePair, formBody, headerText, pathText, queryPairs } from './serialize.js';
import { CROSS_SHRINK, valuesOf, type Channel } from './values.js';

/**
 * The requests of one operation: what fast-check generates (a value for each parameter, a body in
 * one of the media types the checker writes) and the HTTP request built from it. A generated
 * request is valid when each value matches its schema, as the document reads requests (schemas.ts);
 * one that does not is not sent as valid.
 */

/** One request's values, before they are written on the wire. */
export interface GeneratedRequest {
  /** By position in the operation's parameters; undefined: not sent. */
  readonly parameters: readonly unknown[];
  /** The body: which of the plan's media types and its value; undefined: no body. */
  readonly body: { readonly media: number; readonly value: unknown } | undefined;
}

/** A request as it goes on the wire; `url` is absolute. */
export interface OutgoingRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
  /**
   * For requests a plug-in writes byte by byte (plugin.ts), sent in place of what `url`, `headers`
   * and `body` say, which reports still show: the request target exactly as written (no URL
   * normalization: `..` and malformed escapes stay), headers in order with repeats (values as
   * latin1 text, Host included when wanted), the body's exact bytes.
   */
  readonly target?: string;
  readonly headerList?: readonly (readonly [string, string])[];
  readonly bodyBytes?: Uint8Array;
}

/** A body media type the checker writes. */
export interface BodyMedia {
  readonly media: MediaSpec;
  readonly form: boolean;
}

export interface OperationPlan {
  readonly operation: OperationSpec;
  readonly bodyMedia: readonly BodyMedia[];
  /** Undefined when some required value cannot be generated (the notes say which). */
  readonly valid: Arbitrary<GeneratedRequest> | undefined;
  readonly notes: readonly string[];
}

const channelOf = (parameter: ParameterSpec): Channel =>
  parameter.in === 'header' ? 'header' : parameter.in === 'path' ? 'path' : 'text';

/** Each required value generated from its schema, optional ones half the time, the document's examples mixed in. */
export function planOperation(document: object, operation: OperationSpec): OperationPlan {
  const notes: string[] = [];
  const parameterArbitraries: Arbitrary<unknown>[] = [];
  let drawable = true;
  for (const parameter of operation.parameters) {
    const schema = parameter.schemaPointer === undefined ? {} : { $ref: parameter.schemaPointer };
    const channel = parameter.contentType !== undefined ? 'body' : channelOf(parameter);
    let values = valuesOf(document, schema, { channel, direction: 'request' });
    if (values !== undefined && parameter.examples.length > 0)
      values = fc.oneof(
        CROSS_SHRINK,
        { weight: 4, arbitrary: values },
        { weight: 1, arbitrary: fc.constantFrom(...parameter.examples) },
      );
    // OpenAPI 3.1 (Parameter Object, allowEmptyValue): a query parameter takes no empty value unless it says so.
    if (
      values !== undefined &&
      parameter.in === 'query' &&
      parameter.contentType === undefined &&
      !parameter.allowEmptyValue
    ) {
      // Written as the request will be: no pair at all, or one with nothing after its `=`.
      values = values.filter((value) => {
        const pairs = queryPairs(parameter, value);
        return pairs.length > 0 && !pairs.some((pair) => pair.endsWith('='));
      });
    }
    if (values === undefined) {
      notes.push(`${parameter.pointer}: no value can be generated from the schema of parameter ${parameter.name}`);
      if (parameter.required) drawable = false;
      parameterArbitraries.push(fc.constant(undefined));
      continue;
    }
    parameterArbitraries.push(parameter.required ? values : fc.option(values, { nil: undefined, freq: 2 }));
  }

  const bodyMedia: BodyMedia[] = [];
  const bodyArbitraries: Arbitrary<{ media: number; value: unknown }>[] = [];
  for (const media of operation.requestBody?.media ?? []) {
    const json = isJsonType(media.type);
    const form = isFormType(media.type);
    if (!json && !form) {
      notes.push(`${media.pointer}: media type not generated`);
      continue;
    }
    let values = valuesOf(document, media.schemaPointer === undefined ? {} : { $ref: media.schemaPointer }, {
      channel: 'body',
      direction: 'request',
    });
    if (values !== undefined && media.examples.length > 0)
      values = fc.oneof(
        CROSS_SHRINK,
        { weight: 4, arbitrary: values },
        { weight: 1, arbitrary: fc.constantFrom(...media.examples) },
      );
    if (values === undefined) {
      notes.push(`${media.pointer}: no value can be generated from its schema`);
      continue;
    }
    const index = bodyMedia.length;
    bodyMedia.push({ media, form });
    bodyArbitraries.push(values.map((value) => ({ media: index, value })));
  }
  const requestBody = operation.requestBody;
  let body: Arbitrary<{ media: number; value: unknown } | undefined>;
  if (bodyArbitraries.length === 0) {
    if (requestBody?.required === true) {
      notes.push(
        `${requestBody.pointer}: the operation requires a body in a media type the checker does not write: operation not checked`,
      );
      drawable = false;
    }
    body = fc.constant(undefined);
  } else {
    const any =
      bodyArbitraries.length === 1
        ? (bodyArbitraries[0] as Arbitrary<{ media: number; value: unknown }>)
        : fc.oneof(...bodyArbitraries);
    // An optional body is left out one time in ten.
    body = requestBody?.required === true ? any : fc.option(any, { nil: undefined, freq: 10 });
  }
  const valid = drawable ? fc.record({ parameters: fc.tuple(...parameterArbitraries), body }) : undefined;
  return { operation, bodyMedia, valid, notes };
}

/** Why a generated request is not valid per the document; undefined when it is. */
export function invalidity(plan: OperationPlan, generated: GeneratedRequest, schemas: Schemas): string | undefined {
  const { operation } = plan;
  for (const [index, parameter] of operation.parameters.entries()) {
    const value = generated.parameters[index];
    if (value === undefined) {
      if (parameter.required) return `${parameter.in} parameter ${parameter.name} is missing`;
      continue;
    }
    const problem = schemas.problem('request', parameter.schemaPointer, value);
    if (problem !== undefined) return `${parameter.in} parameter ${parameter.name}: ${problem.message}`;
  }
  if (generated.body === undefined)
    return operation.requestBody?.required === true ? 'the required body is missing' : undefined;
  const media = plan.bodyMedia[generated.body.media];
  if (media === undefined) return 'no such media type';
  const problem = schemas.problem('request', media.media.schemaPointer, generated.body.value);
  return problem === undefined ? undefined : `body: ${problem.message}`;
}

/**
 * The path a document's path key is requested at: a `#` or `?` in it starts the URL's fragment or
 * query (some documents use `/pets#byTag` to list one path twice), so the path ends there.
 */
export const requestPath = (documentPath: string): string => documentPath.split(/[#?]/)[0] ?? documentPath;

/** Characters a header value may not hold (Node rejects them; RFC 9110, 5.5). */
const BAD_HEADER = /[^\t\x20-\x7e\x80-\xff]/;

/** What the wire form of a body is: text and its Content-Type. */
export function bodyText(media: BodyMedia, value: unknown): string {
  return media.form ? formBody(value) : JSON.stringify(value);
}

/**
 * The HTTP request of a generated one, at `baseUrl` (the document's paths are appended to it); a
 * string saying why when it cannot be sent (a header value HTTP cannot carry, a path segment `.`).
 */
export function buildRequest(
  plan: OperationPlan,
  generated: GeneratedRequest,
  baseUrl: string,
): OutgoingRequest | string {
  const { operation } = plan;
  let path = requestPath(operation.path);
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [index, parameter] of operation.parameters.entries()) {
    const value = generated.parameters[index];
    if (value === undefined) continue;
    switch (parameter.in) {
      case 'path': {
        const text = pathText(parameter, value);
        // `.` and `..` are removed from paths by URL normalization: the request would go elsewhere.
        if (text === '.' || text === '..' || text === '') return `path parameter ${parameter.name} is '${text}'`;
        path = path.replaceAll(`{${parameter.name}}`, text);
        break;
      }
      case 'query':
        query.push(...queryPairs(parameter, value));
        break;
      case 'header': {
        const text = headerText(parameter, value);
        if (BAD_HEADER.test(text)) return `header ${parameter.name} holds characters HTTP cannot carry`;
        headers[parameter.name] = text;
        break;
      }
      case 'cookie':
        cookies.push(cookiePair(parameter, value));
        break;
    }
  }
  if (cookies.length > 0) headers['Cookie'] = cookies.join('; ');
  let body: string | null = null;
  if (generated.body !== undefined) {
    const media = plan.bodyMedia[generated.body.media];
    if (media !== undefined) {
      headers['Content-Type'] = media.media.type;
      body = bodyText(media, generated.body.value);
    }
  }
  const search = query.length === 0 ? '' : `?${query.join('&')}`;
  return { method: operation.method, url: `${baseUrl.replace(/\/+$/, '')}${path}${search}`, headers, body };
}
