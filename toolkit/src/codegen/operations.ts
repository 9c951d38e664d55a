import {
  HTTP_METHODS,
  isReference,
  resolveLocal,
  type HttpMethod,
  type OpenApiDocument,
  type OperationObject,
  type ParameterObject,
  type PathItem,
} from './bundle.js';
import type { RouteDefinition } from '../runtime/routes.js';
import { comparePaths, literalExpressPath, templateNames, toExpressPath } from './express-path.js';
import { derivedOperationId, toIdentifier } from './identifiers.js';
import { GeneratorError, type Warning } from './generator-error.js';

/**
 * Reads what the generated skeleton needs from a bundled OpenAPI 3.1 document: its operations (the
 * Paths Object, path items by reference included), its webhooks, and its security schemes. What
 * the generator cannot carry is skipped with a warning naming its JSON pointer, or rejected with a
 * GeneratorError naming it; nothing here names a service.
 */

export { GeneratorError, type Warning } from './generator-error.js';

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/**
 * What the generator knows of an operation: what its route table entry says (routes.ts's
 * RouteDefinition, the operationId as `key`; an alternative of its `security` that names a scheme
 * `securitySchemes` lacks is there only when the document gives no other, mistakes.ts says why), and
 * what the generator alone needs.
 */
export interface OperationInfo extends Omit<RouteDefinition, 'operationId'> {
  /** The operationId, or one derived from method and path when the document gives none. */
  readonly key: string;
  readonly derived: boolean;
  /** A TypeScript identifier for the handler (scaffolded stubs are named after it). */
  readonly identifier: string;
  readonly pointer: string;
  /** The operation's type in openapi-typescript's output. */
  readonly typeRef: string;
}

export interface WebhookInfo {
  readonly name: string;
  readonly method: HttpMethod;
  readonly pointer: string;
  readonly typeRef: string;
  readonly requestContentTypes: readonly string[];
}

export interface SecuritySchemeInfo {
  readonly type: string;
  readonly scheme?: string;
  readonly in?: string;
  readonly name?: string;
  readonly bearerFormat?: string;
  readonly openIdConnectUrl?: string;
  readonly flows?: readonly string[];
}

export interface DocumentModel {
  /** In document order. */
  readonly operations: readonly OperationInfo[];
  /** In the order Express must try them: a fixed segment before a template in the same place. */
  readonly mountOrder: readonly OperationInfo[];
  readonly webhooks: readonly WebhookInfo[];
  readonly securitySchemes: Readonly<Record<string, SecuritySchemeInfo>>;
  /** The path part of each of the document's servers, variables expanded (`''` when it has none). */
  readonly serverBases: readonly string[];
  readonly warnings: readonly Warning[];
}

export interface ReadOptions {
  /**
   * Serve each operation at its path as the document writes it (as `npm run serve` does by
   * default), not under the base path of each of the document's servers.
   */
  readonly pathsAsWritten?: boolean;
}

/** RFC 6901: a JSON pointer's reference tokens escape `~` and `/`. */
export function pointerOf(...tokens: readonly string[]): string {
  return `#/${tokens.map((token) => token.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
}

const q = (value: string): string => JSON.stringify(value);

/**
 * The styles the validator can read for each location, and the value types each carries
 * (OpenAPI 3.1 §4.8.12.4): anything else would reach the handler unparsed.
 */
function unreadableStyle(parameter: ParameterObject, schemaTypes: readonly string[]): string | undefined {
  if (parameter.content !== undefined) return undefined;
  const style = parameter.style ?? { path: 'simple', query: 'form', header: 'simple', cookie: 'form' }[parameter.in];
  const object = schemaTypes.includes('object');
  const array = schemaTypes.includes('array');
  switch (parameter.in) {
    case 'path':
      if (style !== 'simple') return `style ${style} in a path is not parsed by the validator`;
      return object ? 'an object in a path is not parsed by the validator' : undefined;
    case 'header':
      return object ? 'an object in a header is not parsed by the validator' : undefined;
    case 'cookie':
      return object || array
        ? `a${array ? 'n array' : 'n object'} in a cookie is not parsed by the validator`
        : undefined;
    case 'query':
      if (style === 'form' || style === 'deepObject') return undefined;
      if ((style === 'spaceDelimited' || style === 'pipeDelimited') && !object) return undefined;
      return `style ${String(style)} for ${object ? 'an object' : 'this value'} in a query is not parsed by the validator`;
    default:
      return `parameters in ${String(parameter.in)} are not part of OpenAPI`;
  }
}

function typesOf(document: OpenApiDocument, schema: unknown): string[] {
  if (schema === undefined || schema === null || typeof schema !== 'object') return [];
  const resolved = resolveLocal<Record<string, unknown>>(document, schema as Record<string, unknown>);
  const type = resolved['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((t): t is string => typeof t === 'string');
  if (resolved['properties'] !== undefined) return ['object'];
  return [];
}

/** What a URL path carries as it is (RFC 3986 `pchar` and `/`): anything else arrives percent-encoded. */
const URL_PATH_CHARACTER = /[A-Za-z0-9\-._~!$&'()*+,;=:@/%]/;

/**
 * Why requests can never match the literal text of a path template (`/café/{id}`): a client
 * percent-encodes what a URL path cannot carry (`/caf%C3%A9/…`), and the router and the validator
 * compare the path as it arrives. Undefined when every literal character is carried as written.
 */
function unencodedCharacters(path: string): string | undefined {
  const literal = path.replace(/\{[^}]*\}/g, '');
  const offending = [...new Set([...literal].filter((char) => !URL_PATH_CHARACTER.test(char)))];
  if (offending.length === 0) return undefined;
  const encoded = path.replace(/\{[^}]*\}|[^{]+/g, (part) =>
    part.startsWith('{')
      ? part
      : [...part].map((char) => (URL_PATH_CHARACTER.test(char) ? char : encodeURIComponent(char))).join(''),
  );
  return `the path has characters a request carries percent-encoded (${offending.join(' ')}), so no request matches it as written: write it ${encoded}`;
}

/** A server's URLs past this many, once its variables are expanded, are not served (a warning says so). */
const MAX_SERVER_URLS = 256;

/**
 * The path part of each server URL, its variables expanded wherever they are (scheme, host or
 * path) to their enum values, else their default (OpenAPI 3.1, Server Variable Object).
 */
function basePaths(document: OpenApiDocument, warnings: Warning[]): string[] {
  const servers = (document['servers'] ?? []) as ReadonlyArray<{
    url?: string;
    variables?: Record<string, { default?: string; enum?: string[] }>;
  }>;
  if (servers.length === 0) return [''];
  const paths = new Set<string>();
  servers.forEach((server, index) => {
    const pointer = pointerOf('servers', String(index), 'url');
    let urls = [server.url ?? '/'];
    for (const [name, variable] of Object.entries(server.variables ?? {})) {
      const values = variable.enum ?? (variable.default === undefined ? [] : [variable.default]);
      // A variable without a value stays as written, and the URL is then not served.
      if (values.length > 0)
        urls = urls.flatMap((url) =>
          url.includes(`{${name}}`) ? values.map((value) => url.replaceAll(`{${name}}`, value)) : [url],
        );
    }
    if (urls.length > MAX_SERVER_URLS) {
      warnings.push({
        pointer,
        message: `its variables give ${urls.length} URLs; the first ${MAX_SERVER_URLS} are served`,
      });
      urls = urls.slice(0, MAX_SERVER_URLS);
    }
    let unresolved = false;
    for (const url of urls) {
      if (/[{}]/.test(url)) unresolved = true;
      else paths.add(pathOf(url));
    }
    if (unresolved) warnings.push({ pointer, message: 'a server variable without a value; this server is not served' });
  });
  return paths.size === 0 ? [''] : [...paths];
}

/** The path of a server URL, absolute (`https://x.test/api/`) or relative (`/api`, `api`), without a trailing slash. */
function pathOf(url: string): string {
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url);
  const path = (origin === null ? url : url.slice(origin[0].length)).replace(/[?#].*$/, '');
  return (path.startsWith('/') ? path : `/${path}`).replace(/\/+$/, '');
}

function extensionsOf(operation: OperationObject): Record<string, unknown> {
  return Object.fromEntries(Object.entries(operation).filter(([key]) => key.startsWith('x-')));
}

const headFirst = (a: OperationInfo, b: OperationInfo): number =>
  a.path === b.path ? Number(b.method === 'head') - Number(a.method === 'head') : 0;

/** Reads the document's operations, webhooks and security schemes; rejects what it cannot carry. */
export function readDocument(document: OpenApiDocument, options: ReadOptions = {}): DocumentModel {
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1.')) {
    const got =
      document.openapi !== undefined
        ? `openapi ${JSON.stringify(document.openapi)}`
        : document['swagger'] !== undefined
          ? `swagger ${JSON.stringify(document['swagger'])}`
          : 'no openapi field';
    throw new GeneratorError('#/openapi', `this generator reads OpenAPI 3.1 documents (this one has ${got})`);
  }
  const warnings: Warning[] = [];
  const serverBases = basePaths(document, warnings);
  const bases = options.pathsAsWritten === true ? [''] : serverBases;
  const operations: OperationInfo[] = [];
  const byKey = new Map<string, string>();
  const byIdentifier = new Map<string, string>();

  for (const [path, declared] of Object.entries(document.paths ?? {})) {
    const itemPointer = pointerOf('paths', path);
    if (!path.startsWith('/')) throw new GeneratorError(itemPointer, 'a path must start with /');
    const pathItem = resolveLocal<PathItem>(document, declared);
    const unencoded = unencodedCharacters(path);
    if (pathItem['servers'] !== undefined) {
      warnings.push({
        pointer: pointerOf('paths', path, 'servers'),
        message: "servers of a path item are not served (the document's servers are)",
      });
    }
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (operation === undefined) continue;
      const pointer = pointerOf('paths', path, method);
      const key = operation.operationId ?? derivedOperationId(method, path);
      const identifier = toIdentifier(key);
      const where = `${method.toUpperCase()} ${path}`;
      const sameKey = byKey.get(key);
      if (sameKey !== undefined)
        throw new GeneratorError(pointer, `operationId ${q(key)} is also the operationId of ${sameKey}`);
      const sameIdentifier = byIdentifier.get(identifier);
      if (sameIdentifier !== undefined) {
        throw new GeneratorError(
          pointer,
          `operationId ${q(key)} (${where}) and ${sameIdentifier} both become the handler name ${identifier}; rename one`,
        );
      }
      byKey.set(key, where);
      byIdentifier.set(identifier, `operationId ${q(key)} (${where})`);

      if (operation['callbacks'] !== undefined) {
        warnings.push({
          pointer: `${pointer}/callbacks`,
          message: 'callbacks are requests this server would send; no code is generated for them',
        });
      }
      if (operation['servers'] !== undefined) {
        warnings.push({
          pointer: `${pointer}/servers`,
          message: "servers of an operation are not served (the document's servers are)",
        });
      }

      // Path-level parameters, overridden by the operation's own of the same name and place.
      const parameters = new Map<string, ParameterObject>();
      const declaredParameters = [
        ...(pathItem.parameters ?? []).map((p, i) => ({ p, at: pointerOf('paths', path, 'parameters', String(i)) })),
        ...(operation.parameters ?? []).map((p, i) => ({ p, at: `${pointer}/parameters/${i}` })),
      ];
      let skip: Warning | undefined =
        unencoded === undefined
          ? undefined
          : { pointer: itemPointer, message: `${unencoded}; operation ${q(key)} is not served` };
      for (const { p, at } of declaredParameters) {
        const parameter = resolveLocal<ParameterObject>(document, p);
        if (!['path', 'query', 'header', 'cookie'].includes(parameter.in))
          throw new GeneratorError(at, `parameter ${q(parameter.name)} is in ${q(String(parameter.in))}`);
        parameters.set(
          `${parameter.in} ${parameter.in === 'header' ? parameter.name.toLowerCase() : parameter.name}`,
          parameter,
        );
        const problem = unreadableStyle(parameter, typesOf(document, parameter.schema));
        if (problem !== undefined && skip === undefined)
          skip = { pointer: at, message: `${problem}; operation ${q(key)} is not served` };
      }
      const names = (location: ParameterLocation): string[] =>
        [...parameters.values()].filter((p) => p.in === location).map((p) => p.name);
      const templated = templateNames(path);
      for (const name of templated) {
        if (!names('path').includes(name))
          throw new GeneratorError(pointer, `the path template {${name}} has no path parameter of that name`);
      }
      for (const name of names('path')) {
        if (!templated.includes(name))
          throw new GeneratorError(pointer, `path parameter ${q(name)} is not in the path template ${path}`);
      }
      if (skip !== undefined) {
        warnings.push(skip);
        continue;
      }

      if (Object.keys(operation.responses ?? {}).length === 0) {
        warnings.push({
          pointer: `${pointer}/responses`,
          message: `operation ${q(key)} declares no response: its handler can only throw, and any response is off the contract`,
        });
      }
      const requestBody =
        operation.requestBody === undefined ? undefined : resolveLocal(document, operation.requestBody);
      const expressPath = toExpressPath(path);
      operations.push({
        key,
        derived: operation.operationId === undefined,
        identifier,
        method,
        path,
        pointer,
        typeRef: `paths[${q(path)}][${q(method)}]`,
        expressPaths: bases.map((base) => `${literalExpressPath(base)}${expressPath}`),
        tags: [...(operation.tags ?? [])],
        security: (operation.security ?? document.security ?? []).map((requirement) => ({ ...requirement })),
        parameters: { path: names('path'), query: names('query'), header: names('header'), cookie: names('cookie') },
        requestContentTypes: Object.keys(requestBody?.content ?? {}),
        requestBodyRequired: requestBody?.required === true,
        extensions: extensionsOf(operation),
      });
    }
  }

  const webhooks: WebhookInfo[] = [];
  for (const [name, declared] of Object.entries((document['webhooks'] ?? {}) as Record<string, PathItem>)) {
    const item = resolveLocal<PathItem>(document, declared);
    const methods = HTTP_METHODS.filter((method) => item[method] !== undefined);
    // A webhook is one request, typed by its name: a second method under one name is not carried.
    for (const extra of methods.slice(1)) {
      warnings.push({
        pointer: pointerOf('webhooks', name, extra),
        message: `webhook ${q(name)} is typed by its ${methods[0] ?? ''} request; this one is not generated`,
      });
    }
    for (const method of methods.slice(0, 1)) {
      const operation = item[method];
      if (operation === undefined) continue;
      const requestBody =
        operation.requestBody === undefined ? undefined : resolveLocal(document, operation.requestBody);
      webhooks.push({
        name,
        method,
        pointer: pointerOf('webhooks', name, method),
        typeRef: `webhooks[${q(name)}][${q(method)}]`,
        requestContentTypes: Object.keys(requestBody?.content ?? {}),
      });
    }
  }

  const schemes = (document.components?.['securitySchemes'] ?? {}) as Record<string, unknown>;
  const securitySchemes: Record<string, SecuritySchemeInfo> = {};
  for (const [name, declared] of Object.entries(schemes)) {
    const scheme = (isReference(declared) ? resolveLocal(document, declared) : declared) as Record<string, unknown>;
    const text = (field: string): Record<string, string> =>
      typeof scheme[field] === 'string' ? { [field]: scheme[field] } : {};
    securitySchemes[name] = {
      type: String(scheme['type']),
      ...text('scheme'),
      ...text('in'),
      ...text('name'),
      ...text('bearerFormat'),
      ...text('openIdConnectUrl'),
      ...(typeof scheme['flows'] === 'object' && scheme['flows'] !== null
        ? { flows: Object.keys(scheme['flows']) }
        : {}),
    };
  }

  const mountOrder = operations
    .map((operation, index) => ({ operation, index }))
    // Express responds to HEAD with a path's GET route when that comes first: a declared HEAD goes before it.
    .sort(
      (a, b) =>
        comparePaths(a.operation.path, b.operation.path) || headFirst(a.operation, b.operation) || a.index - b.index,
    )
    .map(({ operation }) => operation);
  return { operations, mountOrder, webhooks, securitySchemes, serverBases, warnings };
}
