import {
  resolveLocal,
  type OpenApiDocument,
  type ParameterObject,
  type PathItem,
  type Reference,
} from '../codegen/bundle.js';
import { declaredValue, type RejectedExamples } from '../codegen/examples.js';
import type { OperationInfo, SecuritySchemeInfo } from '../codegen/operations.js';

/**
 * The request `npm run serve` suggests trying first, as a curl command: a GET that needs no
 * parameter, with credentials the contract server accepts when the operation asks for them (it
 * checks that a credential is there, not what it is); else the first operation, with the
 * document's example values (or a value of their type, or their name) in its path.
 */

type Json = Record<string, unknown>;

export interface FirstRequest {
  readonly method: string;
  /** The path with its parameters filled in, and a query when an API key travels in it. */
  readonly path: string;
  /** curl's options for the credentials. */
  readonly credentials: readonly string[];
}

/** The operation's parameters, the path item's overridden by the operation's of the same name and place. */
function parametersOf(document: OpenApiDocument, operation: OperationInfo): ParameterObject[] {
  const item = resolveLocal<PathItem>(document, (document.paths ?? {})[operation.path] ?? {});
  const byPlace = new Map<string, ParameterObject>();
  for (const declared of [...(item.parameters ?? []), ...(item[operation.method]?.parameters ?? [])]) {
    const parameter = resolveLocal<ParameterObject>(document, declared as ParameterObject | Reference);
    byPlace.set(`${parameter.in} ${parameter.name}`, parameter);
  }
  return [...byPlace.values()];
}

function pathValue(document: OpenApiDocument, parameter: ParameterObject, rejected: RejectedExamples): string {
  const { found, value } = declaredValue(document, parameter as Json, rejected);
  if (found && ['string', 'number', 'boolean'].includes(typeof value)) return String(value);
  const schema = parameter.schema === undefined ? {} : resolveLocal<Json>(document, parameter.schema as Json);
  return schema['type'] === 'integer' || schema['type'] === 'number' ? '1' : parameter.name;
}

interface Credentials {
  readonly options: string[];
  readonly query: string[];
}

/** curl's options for one security alternative; undefined when curl cannot carry it (a client certificate, an undefined scheme). */
function credentialsFor(
  requirement: Readonly<Record<string, readonly string[]>>,
  schemes: Readonly<Record<string, SecuritySchemeInfo>>,
): Credentials | undefined {
  const credentials: Credentials = { options: [], query: [] };
  for (const name of Object.keys(requirement)) {
    const scheme = schemes[name];
    if (scheme?.type === 'http' && scheme.scheme?.toLowerCase() === 'basic')
      credentials.options.push('-u user:password');
    else if (scheme?.type === 'http' && scheme.scheme !== undefined)
      credentials.options.push(`-H 'Authorization: ${scheme.scheme} token'`);
    else if (scheme?.type === 'oauth2' || scheme?.type === 'openIdConnect')
      credentials.options.push(`-H 'Authorization: Bearer token'`);
    else if (scheme?.type === 'apiKey' && scheme.in === 'header')
      credentials.options.push(`-H '${scheme.name ?? ''}: key'`);
    else if (scheme?.type === 'apiKey' && scheme.in === 'cookie')
      credentials.options.push(`-b '${scheme.name ?? ''}=key'`);
    else if (scheme?.type === 'apiKey' && scheme.in === 'query')
      credentials.query.push(`${encodeURIComponent(scheme.name ?? '')}=key`);
    else return undefined;
  }
  return credentials;
}

/** The credentials of the first alternative curl can carry: none for an operation without security. */
function credentialsOf(
  operation: OperationInfo,
  schemes: Readonly<Record<string, SecuritySchemeInfo>>,
): Credentials | undefined {
  if (operation.security.length === 0) return { options: [], query: [] };
  for (const requirement of operation.security) {
    const credentials = credentialsFor(requirement, schemes);
    if (credentials !== undefined) return credentials;
  }
  return undefined;
}

export function firstRequest(generation: {
  readonly document: OpenApiDocument;
  readonly model: {
    readonly operations: readonly OperationInfo[];
    readonly securitySchemes: Readonly<Record<string, SecuritySchemeInfo>>;
  };
  readonly rejectedExamples: RejectedExamples;
}): FirstRequest | undefined {
  const { document, model, rejectedExamples } = generation;
  const bare = (operation: OperationInfo): boolean =>
    operation.method === 'get' &&
    parametersOf(document, operation).every((parameter) => parameter.required !== true && parameter.in !== 'path');
  const gets = model.operations.filter(bare);
  const operation =
    gets.find((get) => get.security.length === 0) ??
    gets.find((get) => credentialsOf(get, model.securitySchemes) !== undefined) ??
    model.operations[0];
  if (operation === undefined) return undefined;
  let path = operation.path;
  for (const parameter of parametersOf(document, operation).filter((p) => p.in === 'path')) {
    path = path.replaceAll(`{${parameter.name}}`, encodeURIComponent(pathValue(document, parameter, rejectedExamples)));
  }
  const credentials = credentialsOf(operation, model.securitySchemes) ?? { options: [], query: [] };
  return {
    method: operation.method.toUpperCase(),
    path: credentials.query.length === 0 ? path : `${path}?${credentials.query.join('&')}`,
    credentials: credentials.options,
  };
}

/** The curl command of `request` against `baseUrl` (the server's URL and the base path it mounts the paths under). */
export function curlCommand(baseUrl: string, request: FirstRequest): string {
  const method = request.method === 'GET' ? [] : request.method === 'HEAD' ? ['-I'] : [`-X ${request.method}`];
  const url = `${baseUrl}${request.path}`;
  // A query's `?` and `&` mean something to the shell.
  return ['curl', ...method, ...request.credentials, url.includes('?') ? `'${url}'` : url].join(' ');
}
