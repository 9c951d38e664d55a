import type { OperationSpec, ResponseSpec } from './document.js';
import { atPointer } from './document.js';

/**
 * What follows the creation of an object: the operations that read, change and delete it, with
 * the values that name it. The document's links say so where it has them (Link Object, with
 * runtime expressions such as `$response.body#/id`); where the response that created it has none,
 * the names of path parameters do: an operation whose path extends the creating one's with a
 * template (`POST /pets` → `/pets/{petId}`) takes the created object's field of the same name, or
 * its `id` for `{id}` and `{somethingId}`.
 */

/** The request that created an object and its response, as runtime expressions read them. */
export interface CreationContext {
  readonly url: string;
  readonly method: string;
  readonly status: number;
  /** Lower-case names. */
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly requestParameters: {
    readonly path: Readonly<Record<string, unknown>>;
    readonly query: Readonly<Record<string, unknown>>;
  };
  readonly requestBody: unknown;
  /** Lower-case names. */
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly responseBody: unknown;
}

export interface FollowUp {
  readonly target: OperationSpec;
  /** How it was found: `link <name>` or `path parameter {petId}`. */
  readonly via: string;
  /** Values by parameter location and name. */
  readonly parameters: ReadonlyArray<{
    readonly in: string | undefined;
    readonly name: string;
    readonly value: unknown;
  }>;
  /** The body the link gives; undefined when it gives none. */
  readonly body: { readonly value: unknown } | undefined;
}

type Found = { readonly found: true; readonly value: unknown } | { readonly found: false };
const NOT_FOUND: Found = { found: false };

const headerOf = (headers: Readonly<Record<string, string>>, name: string): Found => {
  const value = headers[name.toLowerCase()];
  return value === undefined ? NOT_FOUND : { found: true, value };
};

const bodyAt = (body: unknown, pointer: string): Found => {
  if (pointer === '') return body === undefined ? NOT_FOUND : { found: true, value: body };
  if (typeof body !== 'object' || body === null) return NOT_FOUND;
  const value = atPointer(body, `#${pointer}`);
  return value === undefined ? NOT_FOUND : { found: true, value };
};

/** The value of one runtime expression (`$response.body#/id`, `$request.path.petId`, `$statusCode`). */
export function evaluateExpression(expression: string, context: CreationContext): Found {
  if (expression === '$url') return { found: true, value: context.url };
  if (expression === '$method') return { found: true, value: context.method };
  if (expression === '$statusCode') return { found: true, value: context.status };
  const match = /^\$(request|response)\.(header\.|query\.|path\.|body)(.*)$/.exec(expression);
  if (match === null) return NOT_FOUND;
  const [, side, source, rest = ''] = match;
  if (source === 'body') {
    if (rest !== '' && !rest.startsWith('#')) return NOT_FOUND;
    return bodyAt(side === 'request' ? context.requestBody : context.responseBody, rest.slice(1));
  }
  if (source === 'header.')
    return headerOf(side === 'request' ? context.requestHeaders : context.responseHeaders, rest);
  if (side !== 'request') return NOT_FOUND;
  const values = source === 'path.' ? context.requestParameters.path : context.requestParameters.query;
  return rest in values ? { found: true, value: values[rest] } : NOT_FOUND;
}

/**
 * A link's parameter value: a runtime expression, a string with expressions in braces
 * (`/pets/{$response.body#/id}`), or a constant.
 */
export function linkValue(value: unknown, context: CreationContext): Found {
  if (typeof value !== 'string') return { found: true, value };
  if (value.startsWith('$')) return evaluateExpression(value, context);
  if (!value.includes('{$')) return { found: true, value };
  let missing = false;
  const text = value.replace(/\{(\$[^}]+)\}/g, (_whole, expression: string) => {
    const found = evaluateExpression(expression, context);
    if (!found.found) missing = true;
    return found.found ? String(found.value) : '';
  });
  return missing ? NOT_FOUND : { found: true, value: text };
}

const LOCATIONS = new Set(['path', 'query', 'header', 'cookie']);

/** The operation a link names, by operationId or by operationRef (a pointer into the document). */
function linkTarget(
  operations: readonly OperationSpec[],
  operationId: string | undefined,
  operationRef: string | undefined,
): OperationSpec | undefined {
  if (operationId !== undefined) return operations.find((operation) => operation.operationId === operationId);
  if (operationRef === undefined) return undefined;
  const hash = operationRef.indexOf('#');
  if (hash < 0) return undefined;
  let pointer = operationRef.slice(hash);
  try {
    pointer = decodeURIComponent(pointer);
  } catch {
    // Kept as written.
  }
  return operations.find((operation) => operation.pointer === pointer);
}

/** The follow-ups of a response's links that can be evaluated. */
function linkFollowUps(
  operations: readonly OperationSpec[],
  response: ResponseSpec,
  context: CreationContext,
): FollowUp[] {
  const followUps: FollowUp[] = [];
  for (const link of response.links) {
    const target = linkTarget(operations, link.operationId, link.operationRef);
    if (target === undefined) continue;
    const parameters: { in: string | undefined; name: string; value: unknown }[] = [];
    let complete = true;
    for (const [qualified, expression] of Object.entries(link.parameters)) {
      const dot = qualified.indexOf('.');
      const location = dot > 0 && LOCATIONS.has(qualified.slice(0, dot)) ? qualified.slice(0, dot) : undefined;
      const name = location === undefined ? qualified : qualified.slice(dot + 1);
      const found = linkValue(expression, context);
      if (!found.found) {
        complete = false;
        break;
      }
      parameters.push({ in: location, name, value: found.value });
    }
    if (!complete) continue;
    let body: { value: unknown } | undefined;
    if (link.requestBody !== undefined) {
      const found = linkValue(link.requestBody, context);
      if (found.found) body = { value: found.value };
    }
    followUps.push({ target, via: `link ${link.name}`, parameters, body });
  }
  return followUps;
}

/** Names a path parameter may take an object's `id` under: `id`, `petId`, `pet_id`, `PetID`. */
const ID_LIKE = /^(?:id|.+(?:Id|_id|ID|-id))$/;

/** The created object's value for path parameter `name`; undefined when it has none. */
export function matchField(name: string, created: unknown): Found {
  if (typeof created !== 'object' || created === null || Array.isArray(created)) return NOT_FOUND;
  const object = created as Record<string, unknown>;
  if (name in object && isScalar(object[name])) return { found: true, value: object[name] };
  if (ID_LIKE.test(name) && 'id' in object && isScalar(object['id'])) return { found: true, value: object['id'] };
  return NOT_FOUND;
}

const isScalar = (value: unknown): boolean => typeof value === 'string' || typeof value === 'number';

/** The operations that use what `creator` created, by the names of their path parameters. */
function nameFollowUps(operations: readonly OperationSpec[], creator: OperationSpec, created: unknown): FollowUp[] {
  const followUps: FollowUp[] = [];
  const base = creator.path.replace(/\/+$/, '');
  for (const target of operations) {
    if (target === creator || !target.path.startsWith(`${base}/`)) continue;
    const next = /^\{([^}]+)\}/.exec(target.path.slice(base.length + 1));
    const name = next?.[1];
    if (name === undefined) continue;
    const found = matchField(name, created);
    if (!found.found) continue;
    followUps.push({
      target,
      via: `path parameter {${name}}`,
      parameters: [{ in: 'path', name, value: found.value }],
      body: undefined,
    });
  }
  return followUps;
}

/** Reads first, then changes, then deletes: a delete last leaves the others something to act on. */
const ORDER: Readonly<Record<string, number>> = { GET: 0, HEAD: 0, PUT: 1, PATCH: 1, POST: 1, DELETE: 2 };

/**
 * The follow-ups of a response of `creator` that `response` declares: by its links when it has
 * some, else by path parameter names; ordered reads, changes, deletes.
 */
export function followUps(
  operations: readonly OperationSpec[],
  creator: OperationSpec,
  response: ResponseSpec,
  context: CreationContext,
): FollowUp[] {
  const found =
    response.links.length > 0
      ? linkFollowUps(operations, response, context)
      : nameFollowUps(operations, creator, context.responseBody);
  return found
    .map((followUp, index) => ({ followUp, index }))
    .sort(
      (a, b) => (ORDER[a.followUp.target.method] ?? 1) - (ORDER[b.followUp.target.method] ?? 1) || a.index - b.index,
    )
    .map(({ followUp }) => followUp);
}

/** Whether `operation` may create something others use: it has links, or it is a POST whose path others extend with a template. */
export function mayCreate(operations: readonly OperationSpec[], operation: OperationSpec): boolean {
  if (operation.responses.some((response) => response.key.startsWith('2') && response.links.length > 0)) return true;
  if (operation.method !== 'POST') return false;
  const base = operation.path.replace(/\/+$/, '');
  return operations.some((other) => other !== operation && other.path.startsWith(`${base}/{`));
}
