import { isJsonMediaType } from '../runtime/send-result.js';
import { atPointer, examplesOf, type OperationSpec, type ResponseSpec } from '../check/document.js';
import { followUps, matchField, mayCreate, type CreationContext, type FollowUp } from '../check/sequences.js';
import type { Shape } from '../check/shape.js';
import { successResponseOf } from './generated-responses.js';
import { fieldOf, isObject, listFormOf, schemaObject, skeletonOf } from './resource-schema.js';

/**
 * The resources `serve --stateful` keeps: each created by one operation and read, listed, changed
 * and deleted by others, paired as the checker pairs a create with what follows it
 * (check/sequences.ts: the create's response `links`, else the names of path parameters, `{orderId}`
 * or `{id}` of `/orders/{orderId}` taking the created object's `orderId` or `id`), or by the
 * `Location` header the create's response declares. An operation is part of a resource when its
 * path ends with the path parameter that names the resource (`/orders/{orderId}`, not
 * `/orders/{orderId}/items`): a GET reads it, a PUT replaces it (and creates it where it is not
 * held), a PATCH or a POST changes it, a DELETE removes it. A GET at the create's path, or under it
 * without a template (`/pets/findByStatus`) when its items are the resource's schema, lists the
 * resources. A PUT to an item path with a GET beside it is a create of its own where no POST
 * creates the resource. Each operation belongs to one resource at most, the first the document
 * pairs it with; the others keep the mock's example or generated responses. An operation that
 * declares responses but no success response (no 2xx, `2XX` or `default`) is part of none: the
 * document gives it no response to send to a create or a change, and the mock's 501 says so.
 */

export type ItemRole = 'read' | 'replace' | 'merge' | 'delete';

/** An operation on one resource, named by a path parameter. */
export interface ItemOperation {
  readonly operation: OperationSpec;
  readonly role: ItemRole;
  /** The path parameter that names the resource: the last segment of the operation's path. */
  readonly parameter: string;
  /**
   * Where the resource holds that parameter's value, as a JSON pointer (`/id`); undefined when no
   * field holds it (the create's `Location` header names the resource).
   */
  readonly field: string | undefined;
  /** How it was paired: `link GetOrder`, `path parameter {orderId}`, `Location header`, `the same path`. */
  readonly via: string;
  /** Ids the document gives as examples: those in the examples of the create's `Location` header. */
  readonly examples: readonly string[];
}

/** An operation that lists the resources. */
export interface ListOperation {
  readonly operation: OperationSpec;
  /** The JSON schema of its success response. */
  readonly schema: string;
  /** The property of the response object that holds the items; undefined when the response is the array. */
  readonly arrayProperty: string | undefined;
  /** Whether its items are the resource's schema (else each item is the resource's fields that the item declares). */
  readonly sameItems: boolean;
  /** The shape of an item. */
  readonly items: Shape;
}

export interface StatefulResource {
  /** The last segment of the collection's path without a template (`orders` of `/orders`). */
  readonly name: string;
  /** The operation that creates it: a POST to the collection, or a PUT to the item path where no POST does. */
  readonly create: OperationSpec;
  /** The path the resources are listed at: the POST's, or the PUT's without its last segment. */
  readonly collectionPath: string;
  readonly items: readonly ItemOperation[];
  readonly lists: readonly ListOperation[];
  /** The JSON schema of the resource: the read's success response, else the create's, else the create's request body. */
  readonly schema: string | undefined;
}

const ROLES: Readonly<Record<string, ItemRole>> = {
  GET: 'read',
  HEAD: 'read',
  PUT: 'replace',
  PATCH: 'merge',
  POST: 'merge',
  DELETE: 'delete',
};

/** The path parameter a path ends with (`orderId` of `/orders/{orderId}`); undefined when it ends with a fixed segment. */
export const lastTemplate = (path: string): string | undefined => /\/\{([^{}/]+)\}\/?$/.exec(path)?.[1];

/** The path parameters a path names, in order. */
export const templatesOf = (path: string): string[] =>
  [...path.matchAll(/\{([^{}/]+)\}/g)].map((match) => match[1] ?? '');

/** The JSON schema of a response's JSON media type; undefined when it has none. */
export const jsonSchemaOf = (response: ResponseSpec | undefined): string | undefined =>
  response?.media.find((media) => isJsonMediaType(media.type))?.schemaPointer;

/** The schema of an operation's request body: its JSON media type's, else its first media type's. */
export function requestSchemaOf(operation: OperationSpec): string | undefined {
  const media = operation.requestBody?.media ?? [];
  return (media.find((candidate) => isJsonMediaType(candidate.type)) ?? media[0])?.schemaPointer;
}

/** Whether an operation declares a response to succeed with (a 2xx, `2XX` or `default` one), or no responses at all. */
const declaresSuccess = (operation: OperationSpec): boolean =>
  operation.responses.length === 0 || successResponseOf(operation) !== undefined;

/** The JSON schema an operation responds with on success; undefined when it declares none. */
export const successSchemaOf = (operation: OperationSpec): string | undefined =>
  jsonSchemaOf(successResponseOf(operation));

/**
 * The create's request and response as the checker's pairing reads them, with a skeleton of each
 * body (resource-schema.ts): the value a follow-up takes for a path parameter is then the JSON
 * pointer of the field that feeds it.
 */
function skeletonContext(document: object, create: OperationSpec, success: ResponseSpec | undefined): CreationContext {
  const request = skeletonOf(document, requestSchemaOf(create));
  const response = jsonSchemaOf(success);
  const named = (location: string): Record<string, string> =>
    Object.fromEntries(
      create.parameters
        .filter((parameter) => parameter.in === location)
        .map((parameter) => [
          location === 'header' ? parameter.name.toLowerCase() : parameter.name,
          `${location}:${parameter.name}`,
        ]),
    );
  return {
    url: create.path,
    method: create.method,
    status: 201,
    requestHeaders: named('header'),
    requestParameters: { path: named('path'), query: named('query') },
    requestBody: request,
    responseHeaders: {},
    responseBody: response === undefined ? request : skeletonOf(document, response),
  };
}

/** An item operation of a follow-up; undefined when the follow-up does not name one resource by a field. */
function itemOf(followUp: FollowUp): ItemOperation | undefined {
  const { target } = followUp;
  const parameter = lastTemplate(target.path);
  const role = ROLES[target.method];
  if (parameter === undefined || role === undefined || !declaresSuccess(target)) return undefined;
  const given = followUp.parameters.find(
    (candidate) => candidate.name === parameter && (candidate.in === undefined || candidate.in === 'path'),
  );
  const field = fieldOf(given?.value);
  return field === undefined
    ? undefined
    : { operation: target, role, parameter, field, via: followUp.via, examples: [] };
}

/** The value `path` (`/v1/orders/42`) gives the last template of `template` (`/orders/{id}`) where it ends with it; undefined where it does not. */
function idIn(template: string, path: string): string | undefined {
  const pattern = template
    .split(/\{[^{}/]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('([^/]+)');
  const match = new RegExp(`^.*${pattern}/?$`).exec(path);
  const id = match?.[match.length - 1];
  if (id === undefined) return undefined;
  try {
    return decodeURIComponent(id);
  } catch {
    return id;
  }
}

/** The paths a `Location` header's examples name. */
function locationExamples(
  document: object,
  header: { readonly pointer: string; readonly schemaPointer: string | undefined },
): string[] {
  const declared = atPointer(document, header.pointer);
  const schema = header.schemaPointer === undefined ? undefined : schemaObject(document, header.schemaPointer);
  const examples = [
    ...(isObject(declared) ? examplesOf(document, declared) : []),
    ...(isObject(schema) ? examplesOf(document, schema as Record<string, unknown>) : []),
  ];
  return examples.flatMap((example) => {
    if (typeof example !== 'string') return [];
    try {
      return [new URL(example, 'http://mock.invalid').pathname];
    } catch {
      return [];
    }
  });
}

/**
 * The operations on what a create makes when its success response declares a `Location` header:
 * those at the path its examples name, else at the create's path and one path parameter.
 */
function locationItems(
  document: object,
  operations: readonly OperationSpec[],
  create: OperationSpec,
  success: ResponseSpec | undefined,
  created: unknown,
): ItemOperation[] {
  const header = success?.headers.find((candidate) => candidate.name.toLowerCase() === 'location');
  if (success === undefined || header === undefined) return [];
  const base = create.path.replace(/\/+$/, '');
  const paths = [...new Set(operations.map((operation) => operation.path))].filter(
    (path) => lastTemplate(path) !== undefined,
  );
  const written = locationExamples(document, header);
  const itemPath =
    paths.find((path) => written.some((example) => idIn(path, example) !== undefined)) ??
    paths.find((path) => path === `${base}/{${lastTemplate(path) ?? ''}}`);
  const parameter = itemPath === undefined ? undefined : lastTemplate(itemPath);
  if (parameter === undefined) return [];
  const found = matchField(parameter, created);
  const field = found.found ? fieldOf(found.value) : undefined;
  const examples = written.flatMap((example) => idIn(itemPath ?? '', example) ?? []);
  return operations.flatMap((operation) => {
    const role = ROLES[operation.method];
    return operation.path === itemPath && role !== undefined && operation !== create && declaresSuccess(operation)
      ? [{ operation, role, parameter, field, via: 'Location header', examples }]
      : [];
  });
}

/** The GET operations at `collectionPath`, or under it without a template when their items are the resource. */
function listsOf(
  document: object,
  operations: readonly OperationSpec[],
  collectionPath: string,
  resourceSchemas: readonly object[],
  taken: ReadonlySet<OperationSpec>,
): ListOperation[] {
  const base = collectionPath.replace(/\/+$/, '');
  return operations.flatMap((operation) => {
    if (operation.method !== 'GET' || taken.has(operation)) return [];
    const atCollection = operation.path.replace(/\/+$/, '') === base;
    const under = operation.path.startsWith(`${base}/`) && !operation.path.slice(base.length).includes('{');
    const schema = successSchemaOf(operation);
    if ((!atCollection && !under) || schema === undefined) return [];
    const form = listFormOf(document, schema, resourceSchemas);
    if (form === undefined || (!atCollection && !form.sameItems)) return [];
    return [{ operation, schema, ...form }];
  });
}

const nameOf = (collectionPath: string, fallback: string): string =>
  collectionPath
    .split('/')
    .filter((segment) => segment !== '' && !segment.includes('{'))
    .pop() ?? fallback;

/** The resources of a document's operations (check/document.ts reads them), in document order. */
export function pairResources(document: object, operations: readonly OperationSpec[]): StatefulResource[] {
  const taken = new Set<OperationSpec>();
  const resources: StatefulResource[] = [];
  const keep = (
    create: OperationSpec,
    collectionPath: string,
    found: readonly ItemOperation[],
    createSchemas: readonly (string | undefined)[],
  ): void => {
    const items = found.filter(
      (item, index) =>
        !taken.has(item.operation) && found.findIndex((other) => other.operation === item.operation) === index,
    );
    if (items.length === 0) return;
    const read = items.find((item) => item.role === 'read');
    const schemas = [read === undefined ? undefined : successSchemaOf(read.operation), ...createSchemas].filter(
      (schema): schema is string => schema !== undefined,
    );
    const objects = schemas.flatMap((schema) => schemaObject(document, schema) ?? []);
    for (const operation of [create, ...items.map((item) => item.operation)]) taken.add(operation);
    const lists = listsOf(document, operations, collectionPath, objects, taken);
    for (const list of lists) taken.add(list.operation);
    resources.push({
      name: nameOf(collectionPath, create.key),
      create,
      collectionPath,
      items,
      lists,
      schema: schemas[0],
    });
  };

  for (const create of operations) {
    if (create.method !== 'POST' || taken.has(create) || !declaresSuccess(create)) continue;
    const success = successResponseOf(create);
    const declaresLocation = success?.headers.some((header) => header.name.toLowerCase() === 'location') === true;
    if (!mayCreate(operations, create) && !declaresLocation) continue;
    const context = skeletonContext(document, create, success);
    const paired = followUps(
      operations,
      create,
      success ?? { key: '201', media: [], headers: [], links: [], pointer: '' },
      context,
    )
      .map(itemOf)
      .filter((item): item is ItemOperation => item !== undefined);
    const located = locationItems(document, operations, create, success, context.responseBody);
    keep(create, create.path, [...paired, ...located], [jsonSchemaOf(success), requestSchemaOf(create)]);
  }

  // A PUT to an item path of one path parameter that a GET beside it reads, where no POST creates what it names.
  for (const put of operations) {
    const parameter = lastTemplate(put.path);
    if (put.method !== 'PUT' || templatesOf(put.path).length !== 1 || parameter === undefined) continue;
    if (taken.has(put) || !declaresSuccess(put) || requestSchemaOf(put) === undefined) continue;
    const read = operations.find((operation) => operation.path === put.path && operation.method === 'GET');
    const readSchema = read === undefined ? undefined : successSchemaOf(read);
    if (read === undefined || readSchema === undefined || taken.has(read)) continue;
    const found = matchField(parameter, skeletonOf(document, readSchema));
    const field = found.found ? fieldOf(found.value) : undefined;
    const items = operations.flatMap((operation) => {
      const role = ROLES[operation.method];
      return operation.path === put.path && role !== undefined && declaresSuccess(operation)
        ? [{ operation, role, parameter, field, via: 'the same path', examples: [] }]
        : [];
    });
    const collectionPath = put.path.replace(/\/+$/, '').replace(/\/[^/]*$/, '') || '/';
    keep(put, collectionPath, items, [successSchemaOf(put), requestSchemaOf(put)]);
  }
  return resources;
}

const ORDER: Readonly<Record<ItemRole | 'list', number>> = { read: 0, list: 1, replace: 2, merge: 2, delete: 3 };

/** `orders (createOrder → getOrder, listOrders, updateOrder, deleteOrder)`: a resource and its operations, reads first and deletes last. */
export function describeResource(resource: StatefulResource): string {
  const operations = [
    ...resource.items.map((item) => ({ key: item.operation.key, order: ORDER[item.role] })),
    ...resource.lists.map((list) => ({ key: list.operation.key, order: ORDER.list })),
  ]
    .filter((operation) => operation.key !== resource.create.key)
    .map((operation, index) => ({ ...operation, index }))
    .sort((a, b) => a.order - b.order || a.index - b.index)
    .map((operation) => operation.key);
  return `${resource.name} (${resource.create.key} → ${operations.join(', ')})`;
}
