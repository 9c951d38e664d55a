import fc from 'fast-check';
import { insideBounds } from './bounds.js';
import { buildRequest, invalidity, type GeneratedRequest, type OperationPlan } from './cases.js';
import type { ParameterSpec } from './document.js';
import type { Schemas } from './schemas.js';
import { ANY, flatten, impliedTypes, mergeShapes, type Shape } from './shape.js';
import { valuesOf, type Channel } from './values.js';

/**
 * The edge requests of an operation: valid requests built from the edges of each parameter's and
 * each body property's schema, the same in every run whatever its seed, sent before the random
 * ones. First the request with required values only (every object with its required properties
 * only, every list with its fewest items), then the one with every parameter and every property;
 * then, from the latter, one request per edge of one value (bounds.ts `insideBounds`: `minimum`,
 * `maximum`, exclusive bounds one step inside, `minLength`, `maxLength`, the first and last `enum`
 * values, `minItems`, `maxItems`), the other values as they were. The values around an edge are
 * the document's examples where it gives them (for parameters, and for values that are neither
 * objects nor lists), else values fast-check generates from a fixed seed. Each edge request is
 * checked against the document (an edge that cannot be combined with the other values is not
 * sent) and is sent once.
 */

export interface EdgeRequest {
  /** Which edge, for people: `body /quantity: minimum 0`. */
  readonly label: string;
  readonly generated: GeneratedRequest;
}

/** The most edge requests of one operation. */
export const MAX_EDGE_REQUESTS = 200;

/** Nesting past which a body's properties are not walked for edges (and are generated whole). */
const MAX_DEPTH = 8;

/** The seed of the values around the edges: fixed, so that edge requests do not depend on the run's seed. */
const EDGE_SEED = 0x0ed9e;

type Mode = 'required' | 'full';
type Path = readonly (string | number)[];
type Built = { readonly value: unknown } | undefined;

const channelOf = (parameter: ParameterSpec): Channel =>
  parameter.contentType !== undefined
    ? 'body'
    : parameter.in === 'header'
      ? 'header'
      : parameter.in === 'path'
        ? 'path'
        : 'text';

/** The one type a shape's values are built as, when it has one besides `null`. */
function structuredType(shape: Shape): 'object' | 'array' | undefined {
  const types = impliedTypes(shape).filter((type) => type !== 'null');
  return types.length === 1 && (types[0] === 'object' || types[0] === 'array') ? types[0] : undefined;
}

/** A JSON pointer to `path` in a value, for labels. */
const pointerOf = (path: Path): string =>
  path.map((token) => `/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('') || '/';

/** `root` with the value at `path` (whose parents exist) replaced by `value`; undefined when a parent is missing. */
function setAt(root: unknown, path: Path, value: unknown): Built {
  if (path.length === 0) return { value };
  const [head, ...rest] = path;
  if (typeof head === 'number') {
    if (!Array.isArray(root) || head >= root.length) return undefined;
    const inner = setAt(root[head], rest, value);
    return inner === undefined ? undefined : { value: root.map((item, i) => (i === head ? inner.value : item)) };
  }
  if (typeof root !== 'object' || root === null || Array.isArray(root) || head === undefined) return undefined;
  const object = root as Record<string, unknown>;
  if (rest.length > 0 && !(head in object)) return undefined;
  const inner = setAt(object[head], rest, value);
  return inner === undefined ? undefined : { value: { ...object, [head]: inner.value } };
}

/** Builds the values around the edges: examples where the document gives them, else values generated from a fixed seed. */
class BaseValues {
  constructor(
    private readonly document: object,
    /** Whether the document's examples are used (for a parameter, and for a value that is neither an object nor a list). */
    readonly examples: boolean,
  ) {}

  private shapeOf(schemas: readonly unknown[]): Shape {
    return schemas.map((schema) => flatten(this.document, schema)).reduce(mergeShapes, ANY);
  }

  /** A value fast-check generates from the schemas with the fixed seed: ordinary text, the fewest values when `required`. */
  private generated(schemas: readonly unknown[], mode: Mode, channel: Channel): Built {
    const schema = schemas.length === 1 ? schemas[0] : { allOf: schemas };
    const values = valuesOf(this.document, schema, {
      channel,
      direction: 'request',
      ordinary: true,
      minimal: mode === 'required',
    });
    if (values === undefined) return undefined;
    const [value] = fc.sample(values, { seed: EDGE_SEED, numRuns: 1 });
    return { value };
  }

  /** A value of all of `schemas`: required properties only and the fewest items (`required`), or every property and an item at least (`full`). */
  value(schemas: readonly unknown[], mode: Mode, channel: Channel, depth: number): Built {
    const shape = this.shapeOf(schemas);
    if (shape.never) return undefined;
    if (shape.constant !== undefined) return { value: shape.constant.value };
    if (shape.enumValues !== undefined) return shape.enumValues.length > 0 ? { value: shape.enumValues[0] } : undefined;
    const type = structuredType(shape);
    if (this.examples && shape.examples.length > 0 && type === undefined) return { value: shape.examples[0] };
    if (shape.alternatives.length > 0 || depth > MAX_DEPTH || type === undefined)
      return this.generated(schemas, mode, channel);
    return type === 'object'
      ? this.object(schemas, shape, mode, channel, depth)
      : this.array(schemas, shape, mode, channel, depth);
  }

  private object(schemas: readonly unknown[], shape: Shape, mode: Mode, channel: Channel, depth: number): Built {
    const out: Record<string, unknown> = {};
    for (const [name, propertySchemas] of shape.properties) {
      if (shape.allowedNames !== undefined && !shape.allowedNames.has(name)) continue;
      const required = shape.required.has(name);
      if (mode === 'required' && !required) continue;
      // A request leaves readOnly properties out (OpenAPI 3.1, Schema Object).
      if (this.shapeOf(propertySchemas).readOnly) continue;
      const built = this.value(propertySchemas, mode, channel, depth + 1);
      if (built === undefined) {
        if (required) return this.generated(schemas, mode, channel);
        continue;
      }
      out[name] = built.value;
    }
    const undeclared = [...shape.required].some((name) => !shape.properties.has(name));
    if (undeclared || Object.keys(out).length < (shape.minProperties ?? 0))
      return this.generated(schemas, mode, channel);
    return { value: out };
  }

  private array(schemas: readonly unknown[], shape: Shape, mode: Mode, channel: Channel, depth: number): Built {
    const fewest = Math.max(shape.minItems ?? 0, channel === 'path' ? 1 : 0);
    const count = mode === 'full' ? Math.max(fewest, Math.min(1, shape.maxItems ?? 1)) : fewest;
    if (
      shape.prefixItems.length > 0 ||
      shape.itemsClosed ||
      shape.items.length === 0 ||
      (shape.uniqueItems && count > 1)
    )
      return this.generated(schemas, mode, channel);
    if (count === 0) return { value: [] };
    const item = this.value(shape.items, mode, channel, depth + 1);
    return item === undefined ? undefined : { value: Array.from({ length: count }, () => item.value) };
  }

  /** The parameter's value: its own example, else one built from its schema. */
  parameter(parameter: ParameterSpec, mode: Mode): Built {
    if (this.examples && parameter.examples.length > 0) return { value: parameter.examples[0] };
    const schemas = parameter.schemaPointer === undefined ? [{}] : [{ $ref: parameter.schemaPointer }];
    return this.value(schemas, mode, channelOf(parameter), 0);
  }
}

/** One place a value at an edge goes: a parameter, or the body at a path. */
interface Slot {
  readonly label: string;
  readonly schemas: readonly unknown[];
  readonly set: (request: GeneratedRequest, value: unknown) => GeneratedRequest | undefined;
}

/** The slots of the body (its root, each property, the first item of each list) found in `value`. */
function bodySlots(
  document: object,
  schemas: readonly unknown[],
  value: unknown,
  path: Path,
  depth: number,
  out: Slot[],
): void {
  if (depth > MAX_DEPTH) return;
  out.push({
    label: `body ${pointerOf(path)}`,
    schemas,
    set: (request, edge) => {
      if (request.body === undefined) return undefined;
      const body = setAt(request.body.value, path, edge);
      return body === undefined ? undefined : { ...request, body: { media: request.body.media, value: body.value } };
    },
  });
  const shape = schemas.map((schema) => flatten(document, schema)).reduce(mergeShapes, ANY);
  if (shape.alternatives.length > 0) return;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [name, propertySchemas] of shape.properties)
      if (name in value)
        bodySlots(document, propertySchemas, (value as Record<string, unknown>)[name], [...path, name], depth + 1, out);
  } else if (Array.isArray(value) && value.length > 0 && shape.items.length > 0 && shape.prefixItems.length === 0) {
    bodySlots(document, shape.items, value[0], [...path, 0], depth + 1, out);
  }
}

/** A base request: a value for each parameter (required ones only, or all) and the body, in `mode`. */
function baseRequest(plan: OperationPlan, values: BaseValues, mode: Mode): GeneratedRequest | undefined {
  const parameters: unknown[] = [];
  for (const parameter of plan.operation.parameters) {
    if (mode === 'required' && !parameter.required) {
      parameters.push(undefined);
      continue;
    }
    const built = values.parameter(parameter, mode);
    if (built === undefined && parameter.required) return undefined;
    parameters.push(built?.value);
  }
  const media = plan.bodyMedia[0];
  if (media === undefined) return { parameters, body: undefined };
  const schemas = media.media.schemaPointer === undefined ? [{}] : [{ $ref: media.media.schemaPointer }];
  const body = values.value(schemas, mode, 'body', 0);
  if (body === undefined)
    return plan.operation.requestBody?.required === true ? undefined : { parameters, body: undefined };
  return { parameters, body: { media: 0, value: body.value } };
}

/** The edge requests of `plan`'s operation, valid per the document and sendable, at most MAX_EDGE_REQUESTS. */
export function edgeRequests(document: object, plan: OperationPlan, schemas: Schemas, baseUrl: string): EdgeRequest[] {
  const usable = (generated: GeneratedRequest | undefined): generated is GeneratedRequest =>
    generated !== undefined &&
    invalidity(plan, generated, schemas) === undefined &&
    typeof buildRequest(plan, generated, baseUrl) !== 'string';
  // With the document's examples first; where they do not make a valid request, without them.
  const bases = (mode: Mode): GeneratedRequest | undefined => {
    for (const examples of [true, false]) {
      const built = baseRequest(plan, new BaseValues(document, examples), mode);
      if (usable(built)) return built;
    }
    return undefined;
  };
  const required = bases('required');
  const full = bases('full');
  const out: EdgeRequest[] = [];
  const seen = new Set<string>();
  const add = (label: string, generated: GeneratedRequest | undefined): boolean => {
    if (out.length >= MAX_EDGE_REQUESTS || !usable(generated)) return false;
    const key = JSON.stringify(generated);
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ label, generated });
    }
    return true;
  };
  add('required values only', required);
  add('every parameter and property', full);
  const around = full ?? required;
  if (around === undefined) return out;

  const slots: Slot[] = [];
  plan.operation.parameters.forEach((parameter, index) => {
    if (parameter.schemaPointer === undefined) return;
    slots.push({
      label: `${parameter.in} parameter ${parameter.name}`,
      schemas: [{ $ref: parameter.schemaPointer }],
      set: (request, value) => ({
        ...request,
        parameters: request.parameters.map((old, i) => (i === index ? value : old)),
      }),
    });
  });
  const media = plan.bodyMedia[0];
  if (around.body !== undefined && media?.media.schemaPointer !== undefined)
    bodySlots(document, [{ $ref: media.media.schemaPointer }], around.body.value, [], 0, slots);

  for (const slot of slots) {
    const schema = slot.schemas.length === 1 ? slot.schemas[0] : { allOf: slot.schemas };
    for (const edge of insideBounds(document, schema)) {
      const label = `${slot.label}: ${edge.label}`;
      // Around every value first; around the required ones only where that is not valid.
      if (!add(label, slot.set(around, edge.value)) && required !== undefined)
        add(label, slot.set(required, edge.value));
    }
  }
  return out;
}
