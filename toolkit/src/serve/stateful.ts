import fc from 'fast-check';
import type { OpenApiDocument } from '../codegen/bundle.js';
import { isJsonMediaType } from '../runtime/send-result.js';
import type { OperationSpec, ResponseSpec } from '../check/document.js';
import { Schemas } from '../check/schemas.js';
import { ANY, impliedTypes, type Shape } from '../check/shape.js';
import { valuesOf } from '../check/values.js';
import { freshId } from './fresh-ids.js';
import { generatedValue, successResponseOf } from './generated-responses.js';
import { mergePatch } from './json-merge-patch.js';
import {
  jsonSchemaOf,
  pairResources,
  requestSchemaOf,
  templatesOf,
  type ItemOperation,
  type ListOperation,
  type StatefulResource,
} from './resource-pairing.js';
import {
  fieldSchemaPointer,
  isObject,
  isOpen,
  propertiesOf,
  shapeAt,
  valueAt,
  withValueAt,
} from './resource-schema.js';
import { ResourceStore, type Held } from './resource-store.js';

/**
 * `serve --stateful`: a mock with memory. The resources the document pairs (resource-pairing.ts)
 * are held in memory (resource-store.ts) from their create to their delete, and the operations on
 * them respond with what is held:
 * - a create (a POST to the collection, or a PUT to an item path that holds nothing) holds a new
 *   resource: the fields the client sent, as sent (`writeOnly` ones and, in a schema closed to
 *   others, undeclared ones left out); the fields the client cannot write (`readOnly`, or not in
 *   the request's schema) and the required ones it did not send, from the mock's response (the
 *   document's example, else a value generated from the schema); and a fresh id (fresh-ids.ts)
 *   where the client sent none (one it sent replaces what held it). It responds with the resource as the create's response declares
 *   it, with a `Location` header naming it where that response declares one or is a 201;
 * - a read responds with the resource, and with the document's 404 for an id never created or
 *   deleted (the server's error response, as the document declares it; problem details where it
 *   declares none);
 * - a list responds with the resources held in its response's form (an array, or the object's
 *   array property), those whose field of a query parameter's name holds another value left out;
 *   before any create an empty list, or the document's example where its schema allows none;
 * - a PATCH (or a POST to the item path) merges what was sent into the resource (JSON Merge Patch,
 *   json-merge-patch.ts); a PUT replaces the fields the client can write; the id stays; a change
 *   that would leave the resource off its schema is rejected with 400;
 * - a DELETE forgets the resource (204, or the response the document declares).
 * Each response is the operation's success response (resource-pairing.ts pairs no operation that
 * declares none), checked by the server's response validation: its body is the resource as that
 * response's schema declares it, the resource itself where it matches, else its fields the schema
 * names over the required fields of the mock's response.
 */

type Json = Record<string, unknown>;

/** What a handler receives: the request's validated parts (runtime/routes.ts). */
export interface HandlerInput {
  readonly path: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, unknown>>;
  readonly cookies: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

/** A response as a handler returns it (runtime/send-result.ts). */
export interface MockResult {
  readonly status: number;
  readonly body?: unknown;
  readonly contentType?: string | undefined;
  readonly headers?: Readonly<Record<string, string>>;
}

/** What the mock's handlers receive besides the request's parts: the request's path, for `Location`. */
export interface RequestContext {
  readonly requestPath: string;
}

/** The mock's response to an operation without memory (its stub's); undefined where it has none. */
export type MockResponder = (operation: OperationSpec, input: HandlerInput) => Promise<MockResult | undefined>;

export type StatefulHandler = (input: HandlerInput, context: unknown) => Promise<MockResult>;

export interface StatefulMock {
  readonly resources: readonly StatefulResource[];
  /** The handler of the operation at `METHOD path` where it is part of a resource. */
  handlerOf(method: string, path: string): StatefulHandler | undefined;
}

const EMPTY_INPUT: HandlerInput = { path: {}, query: {}, headers: {}, cookies: {}, body: undefined };

/** The body of a mock's JSON response, a copy to build on; undefined for any other. */
function jsonBodyOf(result: MockResult | undefined): unknown {
  if (result === undefined || result.body === undefined) return undefined;
  if (result.contentType !== undefined && !isJsonMediaType(result.contentType)) return undefined;
  return typeof result.body === 'object' && result.body !== null ? structuredClone(result.body) : undefined;
}

/** The path parameters of `path` but `except`, as text. */
function scopeOf(path: string, values: Readonly<Record<string, unknown>>, except?: string): Record<string, string> {
  return Object.fromEntries(
    templatesOf(path)
      .filter((name) => name !== except && values[name] !== undefined)
      .map((name) => [name, String(values[name])]),
  );
}

/** `path` with its templates filled, each value percent-encoded. */
const filled = (path: string, value: (name: string) => string): string =>
  path.replace(/\{([^{}/]+)\}/g, (_whole, name: string) => encodeURIComponent(value(name)));

const requestPathOf = (context: unknown): string | undefined => {
  const path = (context as Partial<RequestContext> | undefined)?.requestPath;
  return typeof path === 'string' ? path : undefined;
};

/** The operations on one resource, responding from what the store holds of it. */
class ResourceHandlers {
  private readonly shape: Shape;
  private readonly properties: ReadonlyMap<string, Shape>;
  private readonly required: ReadonlySet<string>;
  /** The fields that hold the resource's ids (JSON pointers). */
  private readonly idFields: readonly string[];
  /** An item operation that names the resource by a key no field holds (the create's `Location` gives it). */
  private readonly keyItem: ItemOperation | undefined;

  constructor(
    private readonly document: OpenApiDocument,
    private readonly schemas: Schemas,
    private readonly store: ResourceStore,
    private readonly mock: MockResponder,
    readonly resource: StatefulResource,
  ) {
    this.shape = resource.schema === undefined ? ANY : shapeAt(document, resource.schema);
    this.properties = propertiesOf(document, this.shape);
    this.required = new Set([...this.shape.required].filter((name) => this.properties.get(name)?.writeOnly !== true));
    this.idFields = [...new Set(resource.items.flatMap((item) => (item.field === undefined ? [] : [item.field])))];
    this.keyItem = resource.items.find((item) => item.field === undefined);
  }

  /** The fields of a request body the resource keeps as sent. */
  private sentFields(operation: OperationSpec, body: unknown): Json {
    if (!isObject(body)) return {};
    const request = requestSchemaOf(operation);
    const declared =
      request === undefined ? new Map<string, Shape>() : propertiesOf(this.document, shapeAt(this.document, request));
    return Object.fromEntries(
      Object.entries(body).filter(
        ([name]) =>
          this.properties.get(name)?.writeOnly !== true &&
          declared.get(name)?.writeOnly !== true &&
          (this.properties.has(name) || isOpen(this.shape)),
      ),
    );
  }

  /** The fields the client writes with `operation`: those its request body declares, else the resource's; never `readOnly` ones. */
  private writableBy(operation: OperationSpec): ReadonlySet<string> {
    const request = requestSchemaOf(operation);
    const declared =
      request === undefined ? new Map<string, Shape>() : propertiesOf(this.document, shapeAt(this.document, request));
    const names = declared.size > 0 ? [...declared.keys()] : [...this.properties.keys()];
    return new Set(
      names.filter((name) => this.properties.get(name)?.readOnly !== true && declared.get(name)?.readOnly !== true),
    );
  }

  /** `sent` over the fields of `base` the client does not write with `operation`, and the required ones it did not send. */
  private composed(operation: OperationSpec, base: unknown, sent: Json): Json {
    const writable = this.writableBy(operation);
    const kept = isObject(base)
      ? Object.entries(base).filter(([name]) => !writable.has(name) || this.required.has(name))
      : [];
    return this.ordered({ ...Object.fromEntries(kept), ...sent });
  }

  /** `body` with its fields in the order the resource's schema names them, the others after. */
  private ordered(body: Json): Json {
    const names = [...this.properties.keys()].filter((name) => name in body);
    return Object.fromEntries([
      ...names.map((name) => [name, body[name]] as const),
      ...Object.entries(body).filter(([name]) => !this.properties.has(name)),
    ]);
  }

  /** The mock's body of a resource where the create's response has none: the read's, else one generated from the schema. */
  private async baseBody(): Promise<unknown> {
    const read = this.resource.items.find((item) => item.role === 'read');
    const body = read === undefined ? undefined : jsonBodyOf(await this.mock(read.operation, EMPTY_INPUT));
    if (isObject(body) || this.resource.schema === undefined) return body;
    return generatedValue(this.document, this.schemas, this.resource.schema, 1);
  }

  /**
   * A fresh id for `field` (undefined: the key no field holds), like `example`: it matches the
   * field's schema in the resource and the schema of each path parameter that names the resource.
   */
  private fresh(field: string | undefined, example: unknown): string | number {
    const items = this.resource.items.filter((item) => item.field === field);
    const parameters = items.flatMap((item) =>
      item.operation.parameters.filter((parameter) => parameter.in === 'path' && parameter.name === item.parameter),
    );
    const fieldSchema =
      field === undefined || this.resource.schema === undefined
        ? undefined
        : fieldSchemaPointer(this.document, this.resource.schema, field);
    const schema = fieldSchema ?? parameters.find((parameter) => parameter.schemaPointer !== undefined)?.schemaPointer;
    const shape = schema === undefined ? ANY : shapeAt(this.document, schema);
    const held = this.store.ids(this.resource.name, field);
    const id = freshId({
      shape,
      examples: [
        example,
        ...items.flatMap((item) => item.examples),
        ...shape.examples,
        ...parameters.flatMap((parameter) => parameter.examples),
      ],
      held,
      fits: (candidate) =>
        (fieldSchema === undefined || this.schemas.valid('response', fieldSchema, candidate)) &&
        parameters.every(
          (parameter) =>
            parameter.schemaPointer === undefined ||
            this.schemas.valid('parameter', parameter.schemaPointer, String(candidate)),
        ),
      generated: () => {
        const arbitrary =
          schema === undefined
            ? undefined
            : valuesOf(this.document, { $ref: schema }, { channel: 'path', direction: 'response', ordinary: true });
        return arbitrary === undefined ? [] : fc.sample(arbitrary, { numRuns: 50, seed: held.length + 1 });
      },
    });
    if (id === undefined)
      throw new Error(`${this.resource.name}: no id is left that is not held and matches the document's schemas`);
    return id;
  }

  /** A path parameter's text as the field that holds it takes it: a number where its schema is a number's. */
  private typed(field: string, text: string): string | number {
    const schema =
      this.resource.schema === undefined ? undefined : fieldSchemaPointer(this.document, this.resource.schema, field);
    const types = schema === undefined ? [] : impliedTypes(shapeAt(this.document, schema));
    return (types.includes('integer') || types.includes('number')) &&
      !types.includes('string') &&
      /^-?\d+(?:\.\d+)?$/.test(text)
      ? Number(text)
      : text;
  }

  /** `body` with the ids `from` holds. */
  private withIdsOf(body: Json, from: Json): Json {
    return this.idFields.reduce((current, field) => {
      const id = valueAt(from, field);
      return id === undefined ? current : withValueAt(current, field, id);
    }, body);
  }

  private notFound(item: ItemOperation, value: string): Error {
    const { create, name } = this.resource;
    return Object.assign(
      new Error(
        `No ${name} resource has ${item.parameter} ${value}: this mock holds what ${create.method} ${create.path} created, until it is deleted.`,
      ),
      { status: 404 },
    );
  }

  private find(item: ItemOperation, input: HandlerInput): Held {
    const value = String(input.path[item.parameter]);
    const held = this.store.find(this.resource.name, {
      field: item.field,
      value,
      scope: scopeOf(item.operation.path, input.path, item.parameter),
    });
    if (held === undefined) throw this.notFound(item, value);
    return held;
  }

  /** The path of the resource: its read's path (else its first item operation's), under the base the create was asked at. */
  private locationOf(held: Held, create: OperationSpec, input: HandlerInput, context: unknown): string | undefined {
    const item = this.resource.items.find((candidate) => candidate.role === 'read') ?? this.resource.items[0];
    if (item === undefined) return undefined;
    const id = item.field === undefined ? held.key : valueAt(held.body, item.field);
    if (id === undefined) return undefined;
    const path = filled(item.operation.path, (name) =>
      name === item.parameter ? String(id) : (held.scope[name] ?? ''),
    );
    const asked = requestPathOf(context)?.replace(/\/+$/, '') ?? '';
    const createPath = filled(create.path, (name) => String(input.path[name] ?? '')).replace(/\/+$/, '');
    return `${asked.endsWith(createPath) ? asked.slice(0, asked.length - createPath.length) : ''}${path}`;
  }

  /** The resource as the schema at `schema` declares it: itself where it matches, else the fields it names over the required ones of `base`. */
  private shaped(schema: string, body: Json, base: unknown): Json {
    if (this.schemas.valid('response', schema, body)) return body;
    const shape = shapeAt(this.document, schema);
    return this.projected(shape, body, base);
  }

  /** The fields of `body` that `shape` names (all of them where it is open), over the fields `shape` requires of `base`. */
  private projected(shape: Shape, body: Json, base: unknown): Json {
    const names = propertiesOf(this.document, shape);
    const required = isObject(base) ? Object.entries(base).filter(([name]) => shape.required.has(name)) : [];
    const named = Object.entries(body).filter(([name]) => names.has(name) || isOpen(shape));
    return { ...Object.fromEntries(required), ...Object.fromEntries(named) };
  }

  /**
   * The success response `response` with `body`: the status, media type and headers of the mock's
   * response where it is the one `response` declares, else that response's (`fallback` for a `2XX`
   * or `default` one, and for an operation that declares no responses).
   */
  private respond(
    response: ResponseSpec | undefined,
    body: Json | undefined,
    mocked: MockResult | undefined,
    fallback: number,
    extra: Readonly<Record<string, string>> = {},
  ): MockResult {
    const declared = response !== undefined && /^\d{3}$/.test(response.key) ? Number(response.key) : undefined;
    const fromMock =
      mocked !== undefined &&
      mocked.status >= 200 &&
      mocked.status < 300 &&
      (declared === undefined || mocked.status === declared);
    const schema = jsonSchemaOf(response);
    const media = response?.media.find((candidate) => isJsonMediaType(candidate.type));
    const withBody = schema !== undefined && media !== undefined && body !== undefined;
    const status = fromMock ? mocked.status : (declared ?? (withBody && fallback === 204 ? 200 : fallback));
    const headers = Object.fromEntries(
      Object.entries(fromMock ? (mocked.headers ?? {}) : {}).filter(
        ([name]) => !Object.keys(extra).some((other) => other.toLowerCase() === name.toLowerCase()),
      ),
    );
    if (!withBody) {
      // A response in another media type is the mock's; one without content has no body.
      if (fromMock && response !== undefined && response.media.length > 0)
        return { ...mocked, headers: { ...headers, ...extra } };
      return { status, headers: { ...headers, ...extra } };
    }
    const contentType =
      fromMock && mocked.contentType !== undefined && isJsonMediaType(mocked.contentType)
        ? mocked.contentType
        : media.type;
    return {
      status,
      contentType,
      headers: { ...headers, ...extra },
      body: this.shaped(schema, body, fromMock ? jsonBodyOf(mocked) : undefined),
    };
  }

  /** A create: POST to the collection, or (with `item`) a PUT to an item path that holds nothing. */
  async create(
    operation: OperationSpec,
    input: HandlerInput,
    context: unknown,
    item?: ItemOperation,
  ): Promise<MockResult> {
    const sent = this.sentFields(operation, input.body);
    const mocked = await this.mock(operation, input);
    // A PUT that creates builds on the mock's response to the POST that creates, where there is one.
    const { create } = this.resource;
    const creates =
      item !== undefined && create.method === 'POST' ? jsonBodyOf(await this.mock(create, EMPTY_INPUT)) : undefined;
    const mockedBody = isObject(creates) ? creates : jsonBodyOf(mocked);
    const base = isObject(mockedBody) ? mockedBody : await this.baseBody();
    let body = this.composed(operation, base, sent);
    let key: string | number | undefined;
    const named = item === undefined ? undefined : String(input.path[item.parameter]);
    if (item !== undefined && named !== undefined) {
      if (item.field === undefined) key = named;
      else body = withValueAt(body, item.field, this.typed(item.field, named));
    }
    for (const field of this.idFields) {
      if (field === item?.field || valueAt(sent, field) !== undefined) continue;
      body = withValueAt(body, field, this.fresh(field, valueAt(base, field)));
    }
    if (this.keyItem !== undefined && key === undefined) key = this.fresh(undefined, undefined);
    const scope = scopeOf(operation.path, input.path, item?.parameter);
    // An id the client sent names one resource: what held it before is replaced.
    for (const field of this.idFields) {
      const id = valueAt(body, field);
      const before =
        typeof id === 'string' || typeof id === 'number'
          ? this.store.find(this.resource.name, { field, value: String(id), scope })
          : undefined;
      if (before !== undefined) this.store.remove(this.resource.name, before);
    }
    const held = this.store.insert(this.resource.name, this.ordered(body), key, scope);
    // A PUT that creates responds with its 201 where it declares one.
    const response =
      item === undefined
        ? successResponseOf(operation)
        : (operation.responses.find((candidate) => candidate.key === '201') ?? successResponseOf(operation));
    // A 201 names what it created (RFC 9110, 201 Created).
    const responds201 = response === undefined || response.key === '201';
    const declaresLocation = response?.headers.some((header) => header.name.toLowerCase() === 'location') === true;
    const location =
      declaresLocation || (item === undefined && responds201)
        ? this.locationOf(held, operation, input, context)
        : undefined;
    return this.respond(response, held.body, mocked, 201, location === undefined ? {} : { Location: location });
  }

  async read(item: ItemOperation, input: HandlerInput): Promise<MockResult> {
    const held = this.find(item, input);
    const { operation } = item;
    return this.respond(successResponseOf(operation), held.body, await this.mock(operation, input), 200);
  }

  /** Rejects a change that leaves a resource that matched its schema off it. */
  private checked(before: Json, after: Json): Json {
    const { schema } = this.resource;
    if (schema === undefined || !this.schemas.valid('response', schema, before)) return after;
    const problem = this.schemas.problem('response', schema, after);
    if (problem === undefined) return after;
    throw Object.assign(new Error(`The change leaves the ${this.resource.name} off its schema: ${problem.message}`), {
      status: 400,
    });
  }

  async merge(item: ItemOperation, input: HandlerInput): Promise<MockResult> {
    const held = this.find(item, input);
    const patched = isObject(input.body)
      ? mergePatch(held.body, this.sentFields(item.operation, input.body))
      : held.body;
    const body = this.checked(held.body, this.withIdsOf(isObject(patched) ? patched : held.body, held.body));
    return this.changed(item, input, held, body);
  }

  async replace(item: ItemOperation, input: HandlerInput, context: unknown): Promise<MockResult> {
    const value = String(input.path[item.parameter]);
    const scope = scopeOf(item.operation.path, input.path, item.parameter);
    const held = this.store.find(this.resource.name, { field: item.field, value, scope });
    if (held === undefined) return this.create(item.operation, input, context, item);
    const replaced = this.composed(item.operation, held.body, this.sentFields(item.operation, input.body));
    return this.changed(item, input, held, this.checked(held.body, this.withIdsOf(replaced, held.body)));
  }

  private async changed(item: ItemOperation, input: HandlerInput, held: Held, body: Json): Promise<MockResult> {
    const updated = this.store.update(this.resource.name, held, body);
    const { operation } = item;
    const response = successResponseOf(operation);
    return this.respond(
      response,
      updated.body,
      await this.mock(operation, input),
      jsonSchemaOf(response) === undefined ? 204 : 200,
    );
  }

  async remove(item: ItemOperation, input: HandlerInput): Promise<MockResult> {
    const held = this.find(item, input);
    this.store.remove(this.resource.name, held);
    const { operation } = item;
    return this.respond(successResponseOf(operation), held.body, await this.mock(operation, input), 204);
  }

  /** Whether `body` holds, for each query parameter named as one of its fields, one of the values asked for. */
  private matches(body: Json, operation: OperationSpec, query: Readonly<Record<string, unknown>>): boolean {
    return operation.parameters.every((parameter) => {
      const asked = query[parameter.name];
      if (parameter.in !== 'query' || asked === undefined || !this.properties.has(parameter.name)) return true;
      const wanted = (Array.isArray(asked) ? asked : [asked]).map(String);
      const held = body[parameter.name];
      if (typeof held === 'string' || typeof held === 'number' || typeof held === 'boolean')
        return wanted.includes(String(held));
      if (Array.isArray(held) && held.every((value) => typeof value !== 'object' || value === null))
        return held.some((value) => wanted.includes(String(value)));
      return true;
    });
  }

  async list(list: ListOperation, input: HandlerInput): Promise<MockResult> {
    const { operation } = list;
    const held = this.store
      .list(this.resource.name, scopeOf(operation.path, input.path))
      .filter((candidate) => this.matches(candidate.body, operation, input.query));
    const mocked = await this.mock(operation, input);
    const mockedBody = jsonBodyOf(mocked);
    const examples =
      list.arrayProperty === undefined ? mockedBody : isObject(mockedBody) ? mockedBody[list.arrayProperty] : undefined;
    const example = Array.isArray(examples) ? examples[0] : undefined;
    const items = held.map((candidate) =>
      list.sameItems ? candidate.body : this.projected(list.items, candidate.body, example),
    );
    const body: unknown =
      list.arrayProperty === undefined
        ? items
        : { ...(isObject(mockedBody) ? mockedBody : {}), [list.arrayProperty]: items };
    const response = successResponseOf(operation);
    // A list whose schema allows no empty array responds with the mock's response until something is created.
    if (held.length === 0 && !this.schemas.valid('response', list.schema, body) && mocked !== undefined) return mocked;
    const media = response?.media.find((candidate) => isJsonMediaType(candidate.type));
    const fromMock = mocked !== undefined && mocked.status >= 200 && mocked.status < 300;
    return {
      status: fromMock
        ? mocked.status
        : response !== undefined && /^\d{3}$/.test(response.key)
          ? Number(response.key)
          : 200,
      contentType:
        fromMock && mocked.contentType !== undefined && isJsonMediaType(mocked.contentType)
          ? mocked.contentType
          : (media?.type ?? 'application/json'),
      headers: fromMock ? (mocked.headers ?? {}) : {},
      body,
    };
  }
}

/** The stateful mock of a document's operations (check/document.ts reads them), on the mock without memory `mock`. */
export function statefulMock(
  document: OpenApiDocument,
  operations: readonly OperationSpec[],
  mock: MockResponder,
): StatefulMock {
  const resources = pairResources(document, operations);
  const schemas = new Schemas(document);
  const store = new ResourceStore();
  const handlers = new Map<string, StatefulHandler>();
  const keyOf = (operation: OperationSpec): string => `${operation.method} ${operation.path}`;
  for (const resource of resources) {
    const on = new ResourceHandlers(document, schemas, store, mock, resource);
    if (resource.create.method === 'POST')
      handlers.set(keyOf(resource.create), (input, context) => on.create(resource.create, input, context));
    for (const item of resource.items) {
      const handler: StatefulHandler = (input, context) => {
        switch (item.role) {
          case 'read':
            return on.read(item, input);
          case 'replace':
            return on.replace(item, input, context);
          case 'merge':
            return on.merge(item, input);
          case 'delete':
            return on.remove(item, input);
        }
      };
      handlers.set(keyOf(item.operation), handler);
    }
    for (const list of resource.lists) handlers.set(keyOf(list.operation), (input) => on.list(list, input));
  }
  return {
    resources,
    handlerOf: (method, path) => handlers.get(`${method.toUpperCase()} ${path}`),
  };
}
