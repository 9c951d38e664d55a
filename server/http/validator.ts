import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { Request, RequestHandler, Response } from 'express';
import type { RouteDefinition } from '../../generated/server.js';
import { ApiError, internalError, RequestValidationError } from './errors.js';
import { resolveLocal, type Reference } from './openapi-refs.js';

/**
 * Request validation against the document, and in development and in every test response
 * validation, compiled once per operation when the app is built: an operation's parameters and
 * body schemas become Ajv functions (JSON Schema 2020-12, the dialect of OpenAPI 3.1), so a request
 * pays for its own checks and nothing else. A document Ajv cannot compile stops the start.
 *
 * What a request must satisfy (decisions §4: 400 InvalidRequest, 415 for a body type the operation
 * does not take), checked in this order, the first failure answered:
 * - query: only the parameters the operation declares, each given once with a value (a list
 *   parameter given twice is read as its two comma-separated parts joined); integers as plain
 *   decimal text, `style: form, explode: false` lists split on commas; then the schemas;
 * - path parameters and declared headers: their schemas (integer headers as decimal text);
 * - body: the Content-Type is one the operation declares, a required body is there, and it
 *   matches the schema as sent (no type coercion: `"amountCents": "100"` is refused).
 * The handler receives the query as validated: integers as numbers, lists as arrays, defaults set.
 */

type Schema = { readonly [keyword: string]: unknown };
interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header' | 'cookie';
  readonly required?: boolean;
  readonly schema?: Schema;
  readonly style?: string;
  readonly explode?: boolean;
}
interface MediaType {
  readonly schema?: Schema;
}
interface RequestBody {
  readonly required?: boolean;
  readonly content: Readonly<Record<string, MediaType>>;
}
interface ResponseObject {
  readonly content?: Readonly<Record<string, MediaType>>;
}
interface Operation {
  readonly operationId?: string;
  readonly parameters?: ReadonlyArray<Parameter | Reference>;
  readonly requestBody?: RequestBody | Reference;
  readonly responses?: Readonly<Record<string, ResponseObject | Reference>>;
}
/** The parts of an OpenAPI 3.1 document validation reads. */
export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>> & { readonly parameters?: ReadonlyArray<Parameter | Reference> }>>;
  readonly components?: { readonly schemas?: Readonly<Record<string, Schema>> };
}

/** Where the document's component schemas are registered with Ajv. */
const COMPONENTS_ID = 'urn:partner-payments:components';
/** Keywords holding values, not schemas: a `$ref` inside one is data. */
const VALUE_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example']);

/** A copy of `schema` whose references to component schemas point into the registered components. */
function relink(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(relink);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
        return [key, `${COMPONENTS_ID}#/$defs/${value.slice('#/components/schemas/'.length)}`];
      }
      return [key, VALUE_KEYWORDS.has(key) ? value : relink(value)];
    }),
  );
}

/** Compiles a schema of the document (its component references relinked); one function per distinct schema. */
type Compile = (schema: unknown) => ValidateFunction;

function createCompiler(document: OpenApiDocument): Compile {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: false });
  // OpenAPI 3.1's own schema keywords: annotations to JSON Schema.
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  // int64 values must stay exact in JSON: safe integers only (stack.md pitfall 8).
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && n >= -(2 ** 31) && n < 2 ** 31 });
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: relink(document.components?.schemas ?? {}) });
  // Most responses share a few schemas (the Error shape answers a dozen statuses of every operation).
  const compiled = new Map<string, ValidateFunction>();
  return (schema) => {
    const relinked = relink(schema) as Schema;
    const key = JSON.stringify(relinked);
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile(relinked);
      compiled.set(key, validate);
    }
    return validate;
  };
}

type Kind = 'integer' | 'number' | 'boolean' | 'text';

/** The schema's `type`, one or several, after following references. */
function typesOf(document: OpenApiDocument, schema: Schema | undefined): unknown[] {
  return ([] as unknown[]).concat((schema === undefined ? {} : resolveLocal<Schema>(document, schema))['type'] ?? []);
}

/** How a value arrives as text is read: by the schema's type. */
function kindOf(document: OpenApiDocument, schema: Schema | undefined): Kind {
  const types = typesOf(document, schema);
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  if (types.includes('boolean')) return 'boolean';
  return 'text';
}

const DECIMAL_INTEGER = /^-?[0-9]+$/;
const DECIMAL_NUMBER = /^-?[0-9]+(?:\.[0-9]+)?$/;

/** Text read as the kind it is declared; text that is not one stays text, for the schema to refuse. */
function fromText(text: string, kind: Kind): unknown {
  if (kind === 'integer' && DECIMAL_INTEGER.test(text)) return Number(text);
  if (kind === 'number' && DECIMAL_NUMBER.test(text)) return Number(text);
  if (kind === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

interface ParameterReader {
  readonly name: string;
  /** Comma-separated list (`style: form, explode: false`): the kind of its items. */
  readonly listOf: Kind | undefined;
  readonly kind: Kind;
  readonly default: unknown;
}

function readerOf(document: OpenApiDocument, parameter: Parameter): ParameterReader {
  const schema = parameter.schema === undefined ? {} : resolveLocal<Schema>(document, parameter.schema);
  const isList = typesOf(document, schema).includes('array');
  if (isList && parameter.in === 'query' && (parameter.style ?? 'form') === 'form' && parameter.explode !== false) {
    throw new Error(`${parameter.name}: only comma-separated lists (explode: false) are read`);
  }
  return {
    name: parameter.name,
    listOf: isList ? kindOf(document, schema['items'] as Schema | undefined) : undefined,
    kind: kindOf(document, schema),
    default: schema['default'],
  };
}

/** One Ajv function for all the parameters of a location, as an object of name → value. */
function compileParameters(compile: Compile, parameters: readonly Parameter[], name: (p: Parameter) => string): ValidateFunction {
  return compile({
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [name(p), p.schema ?? {}])),
    required: parameters.filter((p) => p.required === true).map(name),
  });
}

/** The first Ajv error as the client reads it: the field, what is wrong, and what to change. */
function validationError(where: string, errors: readonly ErrorObject[] | null | undefined): RequestValidationError {
  const first = errors?.[0];
  if (first === undefined) return new RequestValidationError(where, 'schema', 'does not match the schema');
  const field = `${where}${first.instancePath.replaceAll('/', '.')}`;
  const params = first.params as Record<string, unknown>;
  if (first.keyword === 'additionalProperties') {
    return new RequestValidationError(field, first.keyword, `has a property the schema does not allow: ${String(params['additionalProperty'])}`);
  }
  if (first.keyword === 'enum' && Array.isArray(params['allowedValues'])) {
    return new RequestValidationError(field, first.keyword, 'must be one of the allowed values', `Allowed: ${params['allowedValues'].map(String).join(', ')}`);
  }
  return new RequestValidationError(field, first.keyword, first.message ?? 'does not match the schema');
}

/** The media type of a Content-Type header, without its parameters, lower-cased. */
function mediaTypeOf(header: string | undefined): string | undefined {
  const essence = header?.split(';')[0]?.trim().toLowerCase();
  return essence === undefined || essence === '' ? undefined : essence;
}

/** Express 5 reads `req.query` through a getter; the validated query replaces it for this request. */
function setQuery(req: Request, query: Record<string, unknown>): void {
  Object.defineProperty(req, 'query', { value: query, writable: true, configurable: true, enumerable: true });
}

/**
 * Whether the request carries a body (RFC 9112 §6.3: a transfer coding, or a length other than 0).
 * An empty body is no body, whatever its Content-Type says (the JSON parser would read it as `{}`).
 */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function requestValidator(document: OpenApiDocument, compile: Compile, operation: Operation, pathItem: OpenApiDocument['paths'][string]): RequestHandler {
  const declared = new Map<string, Parameter>();
  for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolveLocal<Parameter>(document, p))) {
    declared.set(`${parameter.in} ${parameter.name}`, parameter);
  }
  const all = [...declared.values()];
  const query = all.filter((p) => p.in === 'query');
  const path = all.filter((p) => p.in === 'path');
  const headers = all.filter((p) => p.in === 'header');
  if (all.some((p) => p.in === 'cookie')) throw new Error(`${operation.operationId ?? '?'}: cookie parameters are not read`);

  const queryReaders = new Map(query.map((p) => [p.name, readerOf(document, p)]));
  const validateQuery = compileParameters(compile, query, (p) => p.name);
  const validatePath = path.length === 0 ? undefined : compileParameters(compile, path, (p) => p.name);
  const headerReaders = headers.map((p) => ({ header: p.name.toLowerCase(), kind: readerOf(document, p).kind }));
  const validateHeaders = headers.length === 0 ? undefined : compileParameters(compile, headers, (p) => p.name.toLowerCase());

  const body = operation.requestBody === undefined ? undefined : resolveLocal<RequestBody>(document, operation.requestBody);
  const bodyValidators = new Map(
    Object.entries(body?.content ?? {}).map(([type, media]) => [type.toLowerCase(), media.schema === undefined ? undefined : compile(media.schema)]),
  );
  const accepted = [...bodyValidators.keys()].join(', ');

  return (req, _res, next) => {
    // Query: declared names only, each once and with a value, read from text.
    const raw = req.query as Record<string, string | string[] | undefined>;
    const values: Record<string, unknown> = {};
    for (const [name, given] of Object.entries(raw)) {
      const reader = queryReaders.get(name);
      if (reader === undefined) {
        next(new RequestValidationError(`query.${name}`, 'additionalProperties', 'is not a parameter of this operation', `Parameters: ${[...queryReaders.keys()].join(', ') || 'none'}`));
        return;
      }
      if (Array.isArray(given) && reader.listOf === undefined) {
        next(new RequestValidationError(`query.${name}`, 'maxItems', 'was given more than once', 'Send each parameter once.'));
        return;
      }
      const text = Array.isArray(given) ? given.join(',') : (given ?? '');
      if (text === '') {
        next(new RequestValidationError(`query.${name}`, 'minLength', 'has no value', 'Leave the parameter out, or give it a value.'));
        return;
      }
      values[name] = reader.listOf === undefined ? fromText(text, reader.kind) : text.split(',').map((item) => fromText(item, reader.listOf ?? 'text'));
    }
    for (const reader of queryReaders.values()) if (values[reader.name] === undefined && reader.default !== undefined) values[reader.name] = reader.default;
    if (!validateQuery(values)) {
      next(validationError('query', validateQuery.errors));
      return;
    }
    if (validatePath !== undefined && !validatePath(req.params)) {
      next(validationError('path', validatePath.errors));
      return;
    }
    if (validateHeaders !== undefined) {
      const given: Record<string, unknown> = {};
      for (const { header, kind } of headerReaders) {
        const value = req.headers[header];
        if (typeof value === 'string') given[header] = fromText(value, kind);
      }
      if (!validateHeaders(given)) {
        next(validationError('headers', validateHeaders.errors));
        return;
      }
    }
    if (queryReaders.size > 0) setQuery(req, values);

    if (body !== undefined) {
      const type = mediaTypeOf(req.headers['content-type']);
      const validate = type === undefined ? undefined : bodyValidators.get(type);
      if (!hasBody(req)) {
        if (body.required === true) {
          next(new RequestValidationError('body', 'required', 'is required', `Send a body of type ${accepted}.`));
          return;
        }
      } else if (type === undefined || !bodyValidators.has(type)) {
        next(
          new ApiError('unsupportedMediaType', 'Unsupported Content-Type for this operation.', {
            details: `Send the body as ${accepted}${type === undefined ? '' : `, not ${type}`}.`,
          }),
        );
        return;
      } else if (validate !== undefined && !validate(req.body)) {
        next(validationError('body', validate.errors));
        return;
      }
    }
    next();
  };
}

/** What an answer off the contract is reported as: the operation, the status and what is wrong. */
export type OffContractReport = (problem: { operationId: string; status: number; problem: string }) => void;

/**
 * Response validation: every JSON answer of the operation (its handler's, and the errors raised
 * after this point) is checked against the response the document declares for its status. An
 * answer off the contract is reported and replaced by a 500 InternalError: in a test it fails.
 */
function responseValidator(document: OpenApiDocument, compile: Compile, operation: Operation, report: OffContractReport): RequestHandler {
  const operationId = operation.operationId ?? '?';
  const byStatus = new Map<string, Map<string, ValidateFunction | undefined>>();
  for (const [status, declared] of Object.entries(operation.responses ?? {})) {
    const response = resolveLocal<ResponseObject>(document, declared);
    byStatus.set(
      status,
      new Map(Object.entries(response.content ?? {}).map(([type, media]) => [type.toLowerCase(), media.schema === undefined ? undefined : compile(media.schema)])),
    );
  }
  const problemOf = (status: number, body: unknown): string | undefined => {
    const declared = byStatus.get(String(status)) ?? byStatus.get(`${String(status).charAt(0)}XX`) ?? byStatus.get('default');
    if (declared === undefined) return `status ${status} is not declared`;
    if (!declared.has('application/json')) return `status ${status} declares no JSON body`;
    const validate = declared.get('application/json');
    if (validate === undefined || validate(body)) return undefined;
    const first = validate.errors?.[0];
    return `body${first?.instancePath.replaceAll('/', '.') ?? ''} ${first?.message ?? 'does not match'}`;
  };
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown): Response => {
      const problem = problemOf(res.statusCode, body);
      if (problem === undefined) return json(body);
      report({ operationId, status: res.statusCode, problem });
      const failure = internalError(res);
      res.status(failure.status);
      return json(failure.toBody());
    };
    next();
  };
}

/** Apps built from one document (several in a test run) share its compiled schemas. */
const compilers = new WeakMap<OpenApiDocument, Compile>();

export interface ValidatorOptions {
  readonly document: OpenApiDocument;
  /** On in development and in every test: an off-contract answer becomes a 500. */
  readonly validateResponses: boolean;
  readonly onOffContract: OffContractReport;
}

/** The validation middleware of each route, compiled for every operation of the document at once. */
export function createValidators(options: ValidatorOptions): (route: RouteDefinition) => RequestHandler[] {
  const { document } = options;
  const compile = compilers.get(document) ?? createCompiler(document);
  compilers.set(document, compile);
  const byOperation = new Map<string, RequestHandler[]>();
  for (const pathItem of Object.values(document.paths)) {
    for (const [method, value] of Object.entries(pathItem)) {
      if (method === 'parameters' || typeof value !== 'object' || value === null) continue;
      const operation = value as Operation;
      if (operation.operationId === undefined) continue;
      byOperation.set(operation.operationId, [
        ...(options.validateResponses ? [responseValidator(document, compile, operation, options.onOffContract)] : []),
        requestValidator(document, compile, operation, pathItem),
      ]);
    }
  }
  return (route) => {
    const handlers = byOperation.get(route.operationId);
    if (handlers === undefined) throw new Error(`${route.operationId} is not in the document`);
    return handlers;
  };
}
