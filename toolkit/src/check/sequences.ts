import type { OperationSpec, ResponseSpec } from './document.js';
import { atPointer } from './document.js';

/**
 * What follows the creation of an object: the operations that read, change and delete it, with
 * the values that name it. The document's links say so where it has them (Link Object, with
 * runtime expressions such as `$response.body#/id`); where the response that created it has none,
 * the names of path parameters do: an operation whose path extends the creating one's with a
 * template (`POST /pets` → `/pets/{petId}`) takes the created object's field of the same name, or
 * its `id` for `{id}` and `{somethingId}`; and so does the response's `Location` header (RFC 9110,
 * 10.2.2: the created resource's URI): an operation whose path template matches it
 * (`Location: /orders/123` → `/orders/{orderId}`) takes the values of its templates from it.
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

/** A path's segments, without empty ones. */
const segments = (path: string): string[] => path.split('/').filter((segment) => segment !== '');

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The values of the templates of `template` (a document's path) in `path` (a request's path, after
 * the base URL's); undefined when the path does not match the template segment by segment.
 */
export function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const wanted = segments(template.split(/[#?]/)[0] ?? template);
  const given = segments(path);
  if (wanted.length !== given.length) return undefined;
  const values: Record<string, string> = {};
  for (const [index, segment] of wanted.entries()) {
    const names: string[] = [];
    const source = segment
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const name = /^\{([^}]+)\}$/.exec(part)?.[1];
        if (name === undefined) return escapeRegExp(part);
        names.push(name);
        return '([^/]+)';
      })
      .join('');
    const match = new RegExp(`^${source}$`).exec(given[index] ?? '');
    if (match === null) return undefined;
    names.forEach((name, i) => {
      const raw = match[i + 1] ?? '';
      try {
        values[name] = decodeURIComponent(raw);
      } catch {
        values[name] = raw;
      }
    });
  }
  return values;
}

/**
 * The path of the created object's `Location` after the base URL's path, which is the request's
 * path less the creating operation's own segments; undefined when the response has no Location,
 * or one outside the API (another origin, or not under the base URL's path).
 */
export function locationPath(creator: OperationSpec, context: CreationContext): string | undefined {
  const location = context.responseHeaders['location'];
  if (location === undefined) return undefined;
  let target: URL;
  let request: URL;
  try {
    request = new URL(context.url);
    target = new URL(location, request);
  } catch {
    return undefined;
  }
  if (target.origin !== request.origin) return undefined;
  const requestSegments = segments(request.pathname);
  const base = requestSegments.slice(
    0,
    Math.max(0, requestSegments.length - segments(creator.path.split(/[#?]/)[0] ?? '').length),
  );
  const targetSegments = segments(target.pathname);
  if (!base.every((segment, index) => targetSegments[index] === segment)) return undefined;
  return `/${targetSegments.slice(base.length).join('/')}`;
}

/** The operations whose path templates the created object's `Location` matches, each with the values it gives. */
function locationFollowUps(
  operations: readonly OperationSpec[],
  creator: OperationSpec,
  context: CreationContext,
): FollowUp[] {
  const path = locationPath(creator, context);
  if (path === undefined) return [];
  const followUps: FollowUp[] = [];
  for (const target of operations) {
    if (target === creator || !target.path.includes('{')) continue;
    const values = matchTemplate(target.path, path);
    if (values === undefined) continue;
    followUps.push({
      target,
      via: `the Location header ${context.responseHeaders['location'] ?? ''}`,
      parameters: Object.entries(values).map(([name, value]) => ({ in: 'path', name, value })),
      body: undefined,
    });
  }
  return followUps;
}

/** Reads first, then changes, then deletes: a delete last leaves the others something to act on. */
const ORDER: Readonly<Record<string, number>> = { GET: 0, HEAD: 0, PUT: 1, PATCH: 1, POST: 1, DELETE: 2 };

/**
 * The follow-ups of a response of `creator` that `response` declares: by its links when it has
 * some, else by path parameter names and, for the operations these do not reach, by the `Location`
 * header; ordered reads, changes, deletes.
 */
export function followUps(
  operations: readonly OperationSpec[],
  creator: OperationSpec,
  response: ResponseSpec,
  context: CreationContext,
): FollowUp[] {
  let found: FollowUp[];
  if (response.links.length > 0) found = linkFollowUps(operations, response, context);
  else {
    const byName = nameFollowUps(operations, creator, context.responseBody);
    const reached = new Set(byName.map((followUp) => followUp.target));
    found = [
      ...byName,
      ...locationFollowUps(operations, creator, context).filter((followUp) => !reached.has(followUp.target)),
    ];
  }
  return found
    .map((followUp, index) => ({ followUp, index }))
    .sort(
      (a, b) => (ORDER[a.followUp.target.method] ?? 1) - (ORDER[b.followUp.target.method] ?? 1) || a.index - b.index,
    )
    .map(({ followUp }) => followUp);
}

/**
 * Whether `operation` may create something others use: it has links, a 2xx response of it declares
 * a `Location` header and another operation's path has a template, or it is a POST whose path
 * others extend with a template.
 */
export function mayCreate(operations: readonly OperationSpec[], operation: OperationSpec): boolean {
  const success = operation.responses.filter((response) => response.key.startsWith('2'));
  if (success.some((response) => response.links.length > 0)) return true;
  if (
    success.some((response) => response.headers.some((header) => header.name.toLowerCase() === 'location')) &&
    operations.some((other) => other !== operation && other.path.includes('{'))
  )
    return true;
  if (operation.method !== 'POST') return false;
  const base = operation.path.replace(/\/+$/, '');
  return operations.some((other) => other !== operation && other.path.startsWith(`${base}/{`));
}
