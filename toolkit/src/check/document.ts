import { HTTP_METHODS, isReference, type OpenApiDocument, type SecurityRequirement } from '../codegen/bundle.js';

/**
 * The operations of a bundled OpenAPI 3.1 document as the checker reads them: each parameter,
 * request body media type, response, response header and link, with the JSON pointer of its schema
 * so that schemas.ts can check values against it. Path items and their parameters by reference are
 * followed; an operation's parameter overrides the path item's of the same name and place
 * (OpenAPI 3.1, Path Item Object). Nothing here names one document.
 */

type Json = Record<string, unknown>;

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface ParameterSpec {
  readonly name: string;
  readonly in: ParameterLocation;
  /** Path parameters are always required. */
  readonly required: boolean;
  /** The style, defaulted as the specification says: `simple` for path and header, `form` for query and cookie. */
  readonly style: string;
  readonly explode: boolean;
  readonly allowReserved: boolean;
  /** A query parameter sent with an empty value is valid only where the document says `allowEmptyValue: true`. */
  readonly allowEmptyValue: boolean;
  /** The pointer of the parameter's schema (of its media type's schema for a parameter with `content`). */
  readonly schemaPointer: string | undefined;
  /** A parameter with `content` is written in that media type (JSON for a `json` one). */
  readonly contentType: string | undefined;
  /** The document's examples of the parameter (its own `example`/`examples`). */
  readonly examples: readonly unknown[];
  readonly pointer: string;
}

export interface MediaSpec {
  /** The media type as the document writes it (`application/json`, `application/*`). */
  readonly type: string;
  readonly schemaPointer: string | undefined;
  readonly examples: readonly unknown[];
  readonly pointer: string;
}

export interface RequestBodySpec {
  readonly required: boolean;
  readonly media: readonly MediaSpec[];
  readonly pointer: string;
}

export interface HeaderSpec {
  readonly name: string;
  readonly required: boolean;
  readonly schemaPointer: string | undefined;
  readonly pointer: string;
}

export interface LinkSpec {
  readonly name: string;
  /** The operation the link leads to: its operationId, or the pointer its operationRef names. */
  readonly operationId: string | undefined;
  readonly operationRef: string | undefined;
  /** Parameter name (possibly qualified, `path.id`) → runtime expression or constant. */
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly requestBody: unknown;
  readonly pointer: string;
}

export interface ResponseSpec {
  /** The key as the document writes it: `200`, `4XX`, `default`. */
  readonly key: string;
  readonly media: readonly MediaSpec[];
  readonly headers: readonly HeaderSpec[];
  readonly links: readonly LinkSpec[];
  readonly pointer: string;
}

export interface OperationSpec {
  /** The operationId, or `METHOD /path` for an operation without one. */
  readonly key: string;
  readonly operationId: string | undefined;
  /** Upper case. */
  readonly method: string;
  /** As the document writes it, templates included. */
  readonly path: string;
  readonly pointer: string;
  readonly parameters: readonly ParameterSpec[];
  readonly requestBody: RequestBodySpec | undefined;
  readonly responses: readonly ResponseSpec[];
  /** The operation's security, else the document's: alternatives, each a set of schemes. */
  readonly security: readonly SecurityRequirement[];
}

export interface SecuritySchemeSpec {
  readonly type: string;
  readonly scheme?: string;
  readonly in?: string;
  readonly name?: string;
}

export interface CheckedDocument {
  readonly document: OpenApiDocument;
  readonly operations: readonly OperationSpec[];
  readonly securitySchemes: Readonly<Record<string, SecuritySchemeSpec>>;
  /** What the checker passes over and why, each starting with the pointer of the construct. */
  readonly notes: readonly string[];
}

/** A JSON pointer token, escaped (RFC 6901). */
export const escapeToken = (token: string): string => token.replaceAll('~', '~0').replaceAll('/', '~1');

/** The value at a local pointer (`#/components/...`); undefined when there is none. */
export function atPointer(document: object, pointer: string): unknown {
  if (pointer === '#') return document;
  if (!pointer.startsWith('#/')) return undefined;
  return pointer
    .slice(2)
    .split('/')
    .map((token) => {
      // References are URI fragments (percent-encoded); the checker's own pointers are not.
      let decoded = token;
      try {
        decoded = decodeURIComponent(token);
      } catch {
        // A `%` that starts no escape is itself.
      }
      return decoded.replaceAll('~1', '/').replaceAll('~0', '~');
    })
    .reduce<unknown>(
      (node, token) => (typeof node === 'object' && node !== null ? (node as Json)[token] : undefined),
      document,
    );
}

/** Follows local references from `value` (found at `pointer`) to an object, and says where that object is. */
export function follow(
  document: object,
  value: unknown,
  pointer: string,
): { readonly value: Json; readonly pointer: string } {
  let current = value;
  let at = pointer;
  for (let depth = 0; isReference(current); depth += 1) {
    if (depth > 20) throw new Error(`${at}: reference cycle`);
    at = current.$ref;
    current = atPointer(document, at);
    if (current === undefined) throw new Error(`${pointer}: unresolved reference ${at}`);
  }
  if (typeof current !== 'object' || current === null) throw new Error(`${at}: not an object`);
  return { value: current as Json, pointer: at };
}

/** The examples an object holds: `example`, `examples` (a list on a schema, Example Objects elsewhere). */
export function examplesOf(document: object, holder: Json): unknown[] {
  const found: unknown[] = [];
  if ('example' in holder) found.push(holder['example']);
  const examples = holder['examples'];
  if (Array.isArray(examples)) found.push(...(examples as unknown[]));
  else if (typeof examples === 'object' && examples !== null) {
    for (const [name, declared] of Object.entries(examples as Json)) {
      try {
        const example = follow(document, declared, `${name}`).value;
        if ('value' in example) found.push(example['value']);
      } catch {
        // An example that cannot be read is passed over: it is the linter's to report.
      }
    }
  }
  return found;
}

const IGNORED_HEADERS = ['accept', 'content-type', 'authorization'];

const DEFAULT_STYLE: Readonly<Record<ParameterLocation, string>> = {
  path: 'simple',
  header: 'simple',
  query: 'form',
  cookie: 'form',
};

function parameterSpec(document: object, declared: unknown, pointer: string): ParameterSpec {
  const { value: parameter, pointer: at } = follow(document, declared, pointer);
  const location = parameter['in'] as ParameterLocation;
  const style = typeof parameter['style'] === 'string' ? parameter['style'] : DEFAULT_STYLE[location];
  let schemaPointer: string | undefined = 'schema' in parameter ? `${at}/schema` : undefined;
  let contentType: string | undefined;
  const examples = examplesOf(document, parameter);
  if (schemaPointer === undefined && typeof parameter['content'] === 'object' && parameter['content'] !== null) {
    const [type, media] = Object.entries(parameter['content'] as Json)[0] ?? [];
    if (type !== undefined) {
      contentType = type;
      schemaPointer = `${at}/content/${escapeToken(type)}/schema`;
      if (typeof media === 'object' && media !== null) examples.push(...examplesOf(document, media as Json));
    }
  }
  return {
    name: String(parameter['name']),
    in: location,
    required: location === 'path' || parameter['required'] === true,
    style,
    explode: typeof parameter['explode'] === 'boolean' ? parameter['explode'] : style === 'form',
    allowReserved: parameter['allowReserved'] === true,
    allowEmptyValue: parameter['allowEmptyValue'] === true,
    schemaPointer,
    contentType,
    examples,
    pointer: at,
  };
}

function mediaSpecs(document: object, content: unknown, pointer: string): MediaSpec[] {
  if (typeof content !== 'object' || content === null) return [];
  return Object.entries(content as Json).map(([type, declared]) => {
    const at = `${pointer}/${escapeToken(type)}`;
    const media = (typeof declared === 'object' && declared !== null ? declared : {}) as Json;
    return {
      type,
      schemaPointer: 'schema' in media ? `${at}/schema` : undefined,
      examples: examplesOf(document, media),
      pointer: at,
    };
  });
}

function responseSpec(document: object, key: string, declared: unknown, pointer: string): ResponseSpec {
  const { value: response, pointer: at } = follow(document, declared, pointer);
  const headers = Object.entries((response['headers'] ?? {}) as Json).map(([name, header]): HeaderSpec => {
    const found = follow(document, header, `${at}/headers/${escapeToken(name)}`);
    let schemaPointer: string | undefined = 'schema' in found.value ? `${found.pointer}/schema` : undefined;
    if (schemaPointer === undefined && typeof found.value['content'] === 'object' && found.value['content'] !== null) {
      const [type] = Object.keys(found.value['content'] as Json);
      if (type !== undefined) schemaPointer = `${found.pointer}/content/${escapeToken(type)}/schema`;
    }
    return { name, required: found.value['required'] === true, schemaPointer, pointer: found.pointer };
  });
  const links = Object.entries((response['links'] ?? {}) as Json).map(([name, link]): LinkSpec => {
    const found = follow(document, link, `${at}/links/${escapeToken(name)}`);
    return {
      name,
      operationId: typeof found.value['operationId'] === 'string' ? found.value['operationId'] : undefined,
      operationRef: typeof found.value['operationRef'] === 'string' ? found.value['operationRef'] : undefined,
      parameters: (found.value['parameters'] ?? {}) as Json,
      requestBody: found.value['requestBody'],
      pointer: found.pointer,
    };
  });
  return { key, media: mediaSpecs(document, response['content'], `${at}/content`), headers, links, pointer: at };
}

/** Whether a request must carry a credential: some alternative is required and none is empty. */
export const requiresCredentials = (security: readonly SecurityRequirement[]): boolean =>
  security.length > 0 && security.every((alternative) => Object.keys(alternative).length > 0);

/** The operations of `document` in document order, with what cannot be read noted. */
export function readOperations(document: OpenApiDocument): CheckedDocument {
  const notes: string[] = [];
  const operations: OperationSpec[] = [];
  for (const [path, declaredItem] of Object.entries(document.paths ?? {})) {
    const itemPointer = `#/paths/${escapeToken(path)}`;
    let item: Json;
    try {
      item = follow(document, declaredItem, itemPointer).value;
    } catch (error) {
      notes.push(`${itemPointer}: path item not read (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    if (/[#?]/.test(path))
      notes.push(
        `${itemPointer}: the path holds '${/#/.test(path) ? '#' : '?'}', which starts a URL's ${/#/.test(path) ? 'fragment' : 'query'}: its operations are requested at ${path.split(/[#?]/)[0] ?? path}`,
      );
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation === undefined) continue;
      const pointer = `${itemPointer}/${method}`;
      try {
        const parameters = new Map<string, ParameterSpec>();
        const shared = (item['parameters'] ?? []) as unknown[];
        const own = (operation['parameters'] ?? []) as unknown[];
        shared.forEach((p, i) => {
          const spec = parameterSpec(document, p, `${itemPointer}/parameters/${i}`);
          parameters.set(`${spec.in} ${spec.in === 'header' ? spec.name.toLowerCase() : spec.name}`, spec);
        });
        own.forEach((p, i) => {
          const spec = parameterSpec(document, p, `${pointer}/parameters/${i}`);
          parameters.set(`${spec.in} ${spec.in === 'header' ? spec.name.toLowerCase() : spec.name}`, spec);
        });
        // Header parameters named Accept, Content-Type or Authorization are ignored (Parameter Object, `name`).
        for (const name of IGNORED_HEADERS) parameters.delete(`header ${name}`);
        let requestBody: RequestBodySpec | undefined;
        if (operation['requestBody'] !== undefined) {
          const found = follow(document, operation['requestBody'], `${pointer}/requestBody`);
          requestBody = {
            required: found.value['required'] === true,
            media: mediaSpecs(document, found.value['content'], `${found.pointer}/content`),
            pointer: found.pointer,
          };
        }
        const responses = Object.entries((operation['responses'] ?? {}) as Json).map(([key, response]) =>
          responseSpec(document, key, response, `${pointer}/responses/${escapeToken(key)}`),
        );
        const operationId = typeof operation['operationId'] === 'string' ? operation['operationId'] : undefined;
        operations.push({
          key: operationId ?? `${method.toUpperCase()} ${path}`,
          operationId,
          method: method.toUpperCase(),
          path,
          pointer,
          parameters: [...parameters.values()],
          requestBody,
          responses,
          security: ((operation['security'] ?? document.security ?? []) as SecurityRequirement[]).filter(
            (alternative) => typeof alternative === 'object' && alternative !== null,
          ),
        });
      } catch (error) {
        notes.push(`${pointer}: operation not checked (${error instanceof Error ? error.message : String(error)})`);
      }
    }
  }
  const components = (document.components ?? {}) as Json;
  const securitySchemes: Record<string, SecuritySchemeSpec> = {};
  for (const [name, declared] of Object.entries((components['securitySchemes'] ?? {}) as Json)) {
    try {
      securitySchemes[name] = follow(document, declared, `#/components/securitySchemes/${escapeToken(name)}`)
        .value as unknown as SecuritySchemeSpec;
    } catch {
      notes.push(`#/components/securitySchemes/${escapeToken(name)}: security scheme not read`);
    }
  }
  if (
    typeof document['webhooks'] === 'object' &&
    document['webhooks'] !== null &&
    Object.keys(document['webhooks']).length > 0
  ) {
    notes.push('#/webhooks: webhooks are requests the API sends, not ones it responds to: not checked');
  }
  return { document, operations, securitySchemes, notes };
}

/** Whether `selector` (an operationId, or `METHOD /path`) names `operation`. */
export function selects(selector: string, operation: OperationSpec): boolean {
  const trimmed = selector.trim();
  if (trimmed === operation.key) return true;
  const space = trimmed.indexOf(' ');
  if (space < 0) return false;
  return (
    trimmed.slice(0, space).toUpperCase() === operation.method && trimmed.slice(space + 1).trim() === operation.path
  );
}
