import type { GeneratedRequest, OperationPlan, OutgoingRequest } from './cases.js';
import type { ParameterSpec } from './document.js';
import { mediaMatches } from './media.js';
import type { Schemas } from './schemas.js';
import { scalarText, wireImage } from './serialize.js';
import { ANY, flatten, mergeShapes, sameJson, type JsonType, type Shape } from './shape.js';
import { patternRegExp } from './values.js';

/**
 * Invalid requests, one constraint broken at a time, from a valid one: a required parameter or
 * body property left out, a value of the wrong type, a number out of its range, a string too long,
 * too short or off its pattern, a value outside its enum, an unknown property of a closed object,
 * a body that is not JSON, one sent as a media type the operation does not take, a required body
 * left out. Each is confirmed invalid against the document (schemas.ts) before it is offered: a
 * change the schema allows after all (another branch of a `oneOf` takes it) is passed over.
 */

/** A broken request: the values to build it from, and what happens to it on the wire after. */
export interface InvalidRequest {
  readonly generated: GeneratedRequest;
  /** Changes to the built request (a body that is not JSON, another Content-Type). */
  readonly rewrite: ((request: OutgoingRequest) => OutgoingRequest) | undefined;
  /** The constraint broken, the same for every request that breaks it (`body /items/*\/price minimum`). */
  readonly constraint: string;
  /** The constraint broken with this request's values (`body /items/0/price: minimum 0, sent -1`). */
  readonly description: string;
  /** The parameter broken, when it is one: credentials added after (`--header`, `--auth`) may set it again. */
  readonly parameter?: { readonly in: string; readonly name: string };
}

/** How far into a body mutations go, and how many are listed for one request. */
const MAX_DEPTH = 5;
const MAX_CANDIDATES = 400;

/** A value changed at one place. */
interface ValueChange {
  readonly path: readonly (string | number)[];
  readonly keyword: string;
  readonly detail: string;
  /** The whole value after the change. */
  readonly value: unknown;
}

const pointerOf = (path: readonly (string | number)[]): string =>
  path.map((token) => `/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
/** The same place for every item of a list: the constraint, not the instance. */
const genericPointer = (path: readonly (string | number)[]): string =>
  path
    .map((token) => (typeof token === 'number' ? '/*' : `/${token.replaceAll('~', '~0').replaceAll('/', '~1')}`))
    .join('');

function replaceAt(root: unknown, path: readonly (string | number)[], next: (old: unknown) => unknown): unknown {
  if (path.length === 0) return next(root);
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[head as number] = replaceAt(root[head as number], rest, next);
    return copy;
  }
  const object = { ...(root as Record<string, unknown>) };
  object[head as string] = replaceAt(object[head as string], rest, next);
  return object;
}

const REMOVE = Symbol('remove');
/** The value with the property at `path` left out. */
const withoutAt = (root: unknown, path: readonly (string | number)[], name: string): unknown =>
  replaceAt(root, path, (old) =>
    Object.fromEntries(Object.entries(old as Record<string, unknown>).filter(([key]) => key !== name)),
  );

const jsonTypeOf = (value: unknown): JsonType =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : typeof value === 'number'
        ? Number.isInteger(value)
          ? 'integer'
          : 'number'
        : (typeof value as JsonType);

const typeAllowed = (types: readonly JsonType[], value: unknown): boolean => {
  const type = jsonTypeOf(value);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
};

const preview = (value: unknown): string => {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

/** Strings that break most patterns. */
const OFF_PATTERN = ['', ' ', '!', '~~~', '\u0000', '0', 'a', 'ZZZZ', '-1', 'not matching'];

/**
 * Whether the schemas give a default. A required value left out that has one is not broken: the
 * schema says what is assumed when it is not provided, and validators fill it in
 * (express-openapi-validator does, with Ajv's `useDefaults`), so a server may take the request.
 */
const hasDefault = (document: object, schemas: readonly unknown[]): boolean =>
  schemas.some((schema) => flatten(document, schema).hasDefault);

/** Every one-place change of `value` (of `schema`) that may break one constraint. */
function valueChanges(
  document: object,
  schemas: readonly unknown[],
  value: unknown,
  path: readonly (string | number)[],
  out: ValueChange[],
  depth: number,
  text: boolean,
): void {
  if (depth > MAX_DEPTH || out.length >= MAX_CANDIDATES) return;
  const shape: Shape = schemas.map((schema) => flatten(document, schema)).reduce(mergeShapes, ANY);
  if (shape.never) return;
  const at = (keyword: string, detail: string, changed: unknown): void => {
    out.push({ path, keyword, detail, value: changed });
  };
  const types = shape.types;
  // On the wire a parameter is text: a string schema takes any, whatever it was generated as.
  if (types !== undefined && types.length > 0 && !(text && types.includes('string'))) {
    const wrong = ['not-a-number', 12345, 1.5, true, null, {}, []].find((candidate) => !typeAllowed(types, candidate));
    if (wrong !== undefined) at('type', `must be ${types.join(' or ')}, sent ${preview(wrong)}`, wrong);
  }
  if (shape.constant !== undefined) {
    const constant = shape.constant.value;
    const other =
      typeof constant === 'string'
        ? `${constant}-other`
        : typeof constant === 'number'
          ? constant + 1
          : 'not-the-constant';
    at('const', `must be ${preview(constant)}, sent ${preview(other)}`, other);
  }
  if (shape.enumValues !== undefined && shape.enumValues.length > 0) {
    const first = shape.enumValues[0];
    const candidates = [
      typeof first === 'string' ? `${first}-not-listed` : undefined,
      typeof first === 'number'
        ? Math.max(...shape.enumValues.filter((v): v is number => typeof v === 'number')) + 1
        : undefined,
      'not-listed',
      987654,
    ];
    const outside = candidates.find(
      (candidate) => candidate !== undefined && !shape.enumValues?.some((allowed) => sameJson(allowed, candidate)),
    );
    if (outside !== undefined)
      at('enum', `must be one of ${preview(shape.enumValues)}, sent ${preview(outside)}`, outside);
  }
  if (typeof value === 'string') {
    const chars = [...value];
    if (shape.minLength !== undefined && shape.minLength > 0) {
      const shorter = chars.slice(0, shape.minLength - 1).join('');
      at('minLength', `at least ${shape.minLength} characters, sent ${shorter.length}`, shorter);
    }
    if (shape.maxLength !== undefined) {
      const longer = value + 'x'.repeat(Math.max(1, shape.maxLength + 1 - chars.length));
      at('maxLength', `at most ${shape.maxLength} characters, sent ${[...longer].length}`, longer);
    }
    for (const pattern of shape.patterns) {
      const regex = patternRegExp(pattern);
      const off =
        regex === undefined ? undefined : [...OFF_PATTERN, `${value}\n!`].find((candidate) => !regex.test(candidate));
      if (off !== undefined) at('pattern', `must match ${pattern}, sent ${preview(off)}`, off);
    }
    if (shape.format !== undefined && !['binary', 'password'].includes(shape.format))
      at('format', `must be a ${shape.format}, sent "not-a-${shape.format}"`, `not-a-${shape.format}`);
  }
  if (typeof value === 'number') {
    if (shape.minimum !== undefined)
      at('minimum', `at least ${shape.minimum}, sent ${shape.minimum - 1}`, shape.minimum - 1);
    if (shape.exclusiveMinimum !== undefined)
      at(
        'exclusiveMinimum',
        `more than ${shape.exclusiveMinimum}, sent ${shape.exclusiveMinimum}`,
        shape.exclusiveMinimum,
      );
    if (shape.maximum !== undefined)
      at('maximum', `at most ${shape.maximum}, sent ${shape.maximum + 1}`, shape.maximum + 1);
    if (shape.exclusiveMaximum !== undefined)
      at(
        'exclusiveMaximum',
        `less than ${shape.exclusiveMaximum}, sent ${shape.exclusiveMaximum}`,
        shape.exclusiveMaximum,
      );
    if (shape.multipleOf !== undefined) {
      const off = value + (Number.isInteger(shape.multipleOf) && shape.multipleOf > 1 ? 1 : shape.multipleOf / 2);
      at('multipleOf', `a multiple of ${shape.multipleOf}, sent ${off}`, off);
    }
    if (shape.format === 'int32') at('format', `an int32, sent ${2 ** 31}`, 2 ** 31);
  }
  if (Array.isArray(value)) {
    if (shape.minItems !== undefined && shape.minItems > 0)
      at(
        'minItems',
        `at least ${shape.minItems} items, sent ${shape.minItems - 1}`,
        value.slice(0, shape.minItems - 1),
      );
    if (shape.maxItems !== undefined && value.length > 0) {
      const longer = [...value];
      while (longer.length <= shape.maxItems) longer.push(value[longer.length % value.length]);
      at('maxItems', `at most ${shape.maxItems} items, sent ${longer.length}`, longer);
    }
    if (shape.uniqueItems && value.length > 0)
      at('uniqueItems', `items must be unique, sent ${preview(value[0])} twice`, [...value, value[0]]);
    value.slice(0, 2).forEach((item, index) => {
      const itemSchemas = shape.prefixItems[index] ?? shape.items;
      if (itemSchemas.length > 0) valueChanges(document, itemSchemas, item, [...path, index], out, depth + 1, text);
    });
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    for (const name of shape.required) {
      if (name in object && !hasDefault(document, shape.properties.get(name) ?? []))
        out.push({ path, keyword: 'required', detail: `required property ${name} left out`, value: REMOVE_MARK(name) });
    }
    if (shape.noExtras || shape.allowedNames !== undefined) {
      let name = 'unexpectedProperty';
      while (shape.properties.has(name) || shape.allowedNames?.has(name) === true) name = `${name}_`;
      at(
        shape.noExtras && shape.allowedNames === undefined ? 'unevaluatedProperties' : 'additionalProperties',
        `no property ${name} is allowed, sent one`,
        { ...object, [name]: 'x' },
      );
    }
    for (const [name, inner] of Object.entries(object)) {
      const propertySchemas = shape.properties.get(name);
      if (propertySchemas !== undefined)
        valueChanges(document, propertySchemas, inner, [...path, name], out, depth + 1, text);
    }
  }
}

/** A change that leaves out a property: its value is computed against the root by `applyChange`. */
interface Removal {
  readonly [REMOVE]: string;
}
const REMOVE_MARK = (name: string): Removal => ({ [REMOVE]: name });
const isRemoval = (value: unknown): value is Removal => typeof value === 'object' && value !== null && REMOVE in value;

/** The whole value after `change`. */
function applyChange(root: unknown, change: ValueChange): unknown {
  return isRemoval(change.value)
    ? withoutAt(root, change.path, change.value[REMOVE])
    : replaceAt(root, change.path, () => change.value);
}

/** Media types a body can be sent as that the operation does not take. */
const OTHER_MEDIA_TYPES = ['text/plain', 'application/xml', 'application/octet-stream', 'image/png'];

interface Candidate {
  readonly build: () => InvalidRequest | undefined;
}

function parameterLabel(parameter: ParameterSpec): string {
  return `${parameter.in} parameter ${parameter.name}`;
}

/** Every candidate broken request of `generated`, in a fixed order; each confirms itself or gives nothing. */
function candidates(document: object, plan: OperationPlan, generated: GeneratedRequest, schemas: Schemas): Candidate[] {
  const list: Candidate[] = [];
  const { operation } = plan;
  operation.parameters.forEach((parameter, index) => {
    const value = generated.parameters[index];
    const withValue = (next: unknown): GeneratedRequest => ({
      ...generated,
      parameters: generated.parameters.map((old, i) => (i === index ? next : old)),
    });
    if (
      parameter.required &&
      parameter.in !== 'path' &&
      !(parameter.schemaPointer !== undefined && hasDefault(document, [{ $ref: parameter.schemaPointer }]))
    ) {
      list.push({
        build: () => ({
          generated: withValue(undefined),
          rewrite: undefined,
          constraint: `${parameter.in} ${parameter.name} required`,
          description: `required ${parameterLabel(parameter)} left out`,
          parameter: { in: parameter.in, name: parameter.name },
        }),
      });
    }
    if (value === undefined || parameter.schemaPointer === undefined) return;
    const changes: ValueChange[] = [];
    valueChanges(
      document,
      [{ $ref: parameter.schemaPointer }],
      value,
      [],
      changes,
      0,
      parameter.contentType === undefined,
    );
    for (const change of changes) {
      list.push({
        build: () => {
          const next = applyChange(value, change);
          // A server reads a parameter from text: the change must show there (a string schema takes `12345`).
          const stillValid =
            parameter.contentType === undefined
              ? schemas.valid('parameter', parameter.schemaPointer, wireImage(next))
              : schemas.valid('request', parameter.schemaPointer, next);
          if (stillValid) return undefined;
          if (parameter.in === 'path' && ['', '.', '..'].includes(scalarText(next))) return undefined;
          const where = change.path.length === 0 ? '' : ` ${pointerOf(change.path)}`;
          return {
            generated: withValue(next),
            rewrite: undefined,
            constraint: `${parameter.in} ${parameter.name}${genericPointer(change.path)} ${change.keyword}`,
            description: `${parameterLabel(parameter)}${where}: ${change.keyword}: ${change.detail}`,
            parameter: { in: parameter.in, name: parameter.name },
          };
        },
      });
    }
  });

  const body = generated.body;
  const media = body === undefined ? undefined : plan.bodyMedia[body.media];
  if (body !== undefined && media !== undefined) {
    const changes: ValueChange[] = [];
    if (media.media.schemaPointer !== undefined)
      valueChanges(document, [{ $ref: media.media.schemaPointer }], body.value, [], changes, 0, media.form);
    for (const change of changes) {
      list.push({
        build: () => {
          const next = applyChange(body.value, change);
          const confirmed = media.form
            ? !schemas.valid('parameter', media.media.schemaPointer, formImage(next))
            : !schemas.valid('request', media.media.schemaPointer, next);
          if (!confirmed) return undefined;
          return {
            generated: { ...generated, body: { media: body.media, value: next } },
            rewrite: undefined,
            constraint: `body${genericPointer(change.path)} ${change.keyword}`,
            description: `body ${pointerOf(change.path) || '/'}: ${change.keyword}: ${change.detail}`,
          };
        },
      });
    }
    if (!media.form) {
      list.push({
        build: () => ({
          generated,
          rewrite: (request) => ({ ...request, body: `${request.body ?? ''}`.slice(0, -1) + '{"' }),
          constraint: 'body malformed JSON',
          description: 'body: not JSON (its end cut off and `{"` added)',
        }),
      });
    }
    const declared = operation.requestBody?.media.map((m) => m.type) ?? [];
    const other = OTHER_MEDIA_TYPES.find((type) => !declared.some((d) => mediaMatches(d, type)));
    if (other !== undefined) {
      list.push({
        build: () => ({
          generated,
          rewrite: (request) => ({
            ...request,
            headers: { ...withoutHeader(request.headers, 'content-type'), 'Content-Type': other },
          }),
          constraint: 'body content-type',
          description: `body sent as ${other}, which the operation does not take (it takes ${declared.join(', ')})`,
        }),
      });
    }
  }
  if (operation.requestBody?.required === true && body !== undefined) {
    list.push({
      build: () => ({
        generated: { ...generated, body: undefined },
        rewrite: undefined,
        constraint: 'body required',
        description: 'the required body left out',
      }),
    });
  }
  return list;
}

/** A form body's fields as a server reads them: text, lists of text. */
function formImage(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return scalarText(value);
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      Array.isArray(inner) ? inner.map(scalarText) : scalarText(inner),
    ]),
  );
}

export function withoutHeader(headers: Readonly<Record<string, string>>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key.toLowerCase() !== name.toLowerCase()));
}

/**
 * The broken request `choice` picks among those of `generated` (it wraps around), or the next one
 * that is confirmed invalid; with `prefer`, the one that breaks that constraint if `generated` offers
 * it (a failure is shrunk on the constraint that showed it). Undefined when none is confirmed.
 */
export function invalidRequest(
  document: object,
  plan: OperationPlan,
  generated: GeneratedRequest,
  choice: number,
  schemas: Schemas,
  prefer?: string,
): InvalidRequest | undefined {
  const list = candidates(document, plan, generated, schemas);
  let first: InvalidRequest | undefined;
  for (let offset = 0; offset < list.length; offset += 1) {
    const built = list[(choice + offset) % list.length]?.build();
    if (built === undefined) continue;
    if (prefer === undefined || built.constraint === prefer) return built;
    first ??= built;
  }
  return first;
}

/** How many broken requests `generated` offers (for tests and notes). */
export function countCandidates(
  document: object,
  plan: OperationPlan,
  generated: GeneratedRequest,
  schemas: Schemas,
): number {
  return candidates(document, plan, generated, schemas).length;
}
