import { isJsonMediaType } from '../runtime/send-result.js';
import { HTTP_METHODS, resolveLocal, type OpenApiDocument, type PathItem } from './bundle.js';
import { exampleChecker, type ExampleDirection } from './example-check.js';
import type { RejectedExamples } from './examples.js';
import { pointerOf, type Warning } from './operations.js';
import { token, walkDocument } from './walk.js';

/**
 * Mistakes a linter reports but that leave an OpenAPI 3.1 document usable, each worked around on a
 * copy of the document (what is then served, validated and typed) with a warning naming its JSON
 * pointer:
 * - a security requirement that names a scheme components.securitySchemes does not define
 *   (OpenAPI 3.1 §4.8.30: each name must be a scheme the document declares);
 * - `nullable`, a keyword of OpenAPI 3.0 that 3.1's schema dialect does not have (§4.8.24);
 * - an example that does not match its schema (§4.8.14, §4.8.12, §4.8.24);
 * - a specification extension (`x-…`, §4.9) holding a `$ref` to another file that the bundler
 *   leaves in place (Redocly resolves none inside a list of an extension).
 */

type Json = Record<string, unknown>;

export interface WorkedAround {
  /** The copy of the document with the mistakes worked around. */
  readonly document: OpenApiDocument;
  readonly warnings: readonly Warning[];
  /** The examples that do not match their schema: stubs and sample requests leave them out. */
  readonly rejectedExamples: RejectedExamples;
}

const q = (value: string): string => JSON.stringify(value);
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function workAroundMistakes(bundled: OpenApiDocument): WorkedAround {
  const document = structuredClone(bundled) as OpenApiDocument & Json;
  const warnings: Warning[] = [];
  undefinedSchemes(document, warnings);
  nullable(document, warnings);
  unresolvedExtensions(document, warnings);
  const rejectedExamples = examplesOffSchema(document, warnings);
  return { document, warnings, rejectedExamples };
}

/**
 * An alternative of a `security` list that names an undefined scheme is left out. When that leaves
 * no alternative, the list stays as written: an empty list would make the operation open, while
 * alternatives that name undefined schemes can never be met, so every request is rejected.
 */
function undefinedSchemes(document: OpenApiDocument & Json, warnings: Warning[]): void {
  const schemes = isObject(document.components?.['securitySchemes']) ? document.components['securitySchemes'] : {};
  const undefinedIn = (requirement: unknown): string[] =>
    Object.keys(isObject(requirement) ? requirement : {}).filter((name) => !Object.hasOwn(schemes, name));
  const workAround = (holder: Json, at: string, rejected: string): void => {
    const requirements = holder['security'];
    if (!Array.isArray(requirements)) return;
    const kept = requirements.filter((requirement) => undefinedIn(requirement).length === 0);
    if (kept.length === requirements.length) return;
    requirements.forEach((requirement, index) => {
      const missing = undefinedIn(requirement);
      if (missing.length === 0) return;
      const names = `names the security scheme${missing.length === 1 ? '' : 's'} ${missing.map(q).join(' and ')}, which components.securitySchemes does not define`;
      warnings.push({
        pointer: `${at}/${index}`,
        message:
          kept.length > 0
            ? `${names}: this alternative is left out`
            : `${names}, and no other alternative is left: no request can meet it, so ${rejected} (never served open)`,
      });
    });
    if (kept.length > 0) holder['security'] = kept;
  };
  workAround(document, '#/security', 'every operation without security of its own rejects every request');
  for (const [path, declared] of Object.entries(document.paths ?? {})) {
    const item = resolveLocal<PathItem>(document, declared) as Json;
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (isObject(operation))
        workAround(
          operation,
          pointerOf('paths', path, method, 'security'),
          `every request to ${method.toUpperCase()} ${path} is rejected`,
        );
    }
  }
}

/**
 * An extension that still holds a `$ref` to another file after bundling is left out: the
 * validator resolves every `$ref` of the document it loads, from the folder the generated copy is
 * written to, and would fail every request on the one it cannot find. Extensions mean nothing to
 * validation; the document's own readers (lint, docs) still see them.
 */
function unresolvedExtensions(document: OpenApiDocument & Json, warnings: Warning[]): void {
  const externalRef = (node: unknown): string | undefined => {
    if (Array.isArray(node)) {
      for (const item of node) {
        const found = externalRef(item);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    if (!isObject(node)) return undefined;
    if (typeof node['$ref'] === 'string' && !node['$ref'].startsWith('#')) return node['$ref'];
    for (const value of Object.values(node)) {
      const found = externalRef(value);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, `${at}/${index}`));
      return;
    }
    if (!isObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const pointer = `${at}/${token(key)}`;
      const ref = key.startsWith('x-') ? externalRef(value) : undefined;
      if (ref === undefined) {
        visit(value, pointer);
        continue;
      }
      warnings.push({
        pointer,
        message: `this extension holds a $ref to ${q(ref)} that bundling left unresolved (Redocly resolves none inside a list of an extension): it is left out of what is served and validated; write that content in place to keep it there`,
      });
      delete node[key];
    }
  };
  visit(document, '#');
}

/** How to say in 3.1 what a schema's `nullable` said in 3.0. */
function nullFix(schema: Json): string {
  if (schema['nullable'] !== true) return 'remove it';
  const type = schema['type'];
  const types =
    typeof type === 'string'
      ? [type]
      : Array.isArray(type)
        ? type.filter((t): t is string => typeof t === 'string')
        : [];
  if (types.includes('null')) return 'its type already allows null: remove it';
  const inEnum = Array.isArray(schema['enum']) && !schema['enum'].includes(null) ? ', and add null to its enum' : '';
  if (types.length === 0) return `write anyOf: [<this schema>, { type: "null" }]${inEnum}`;
  return `write type: [${[...types, '"null"'].join(', ')}]${inEnum}`;
}

/**
 * `nullable` is removed. The validator (Ajv) still reads it: with a `type` it lets null through,
 * without one it fails to compile the schema; openapi-typescript adds `| null`. Removed, the
 * document means what 3.1 says, and the types and the validator agree on it.
 */
function nullable(document: OpenApiDocument, warnings: Warning[]): void {
  walkDocument(document, {
    schema(schema, at) {
      if (!('nullable' in schema)) return;
      warnings.push({ pointer: at, message: `nullable is an OpenAPI 3.0 keyword; 3.1 ignores it: ${nullFix(schema)}` });
      delete schema['nullable'];
    },
  });
}

/**
 * Which way the content or header at `pointer` travels: with a response (under a `responses` map,
 * of an operation or of the components), with a request body, else `otherwise`. Webhooks' and
 * callbacks' travel the other way round, and an encoding's headers inside a body: those are read
 * in neither direction.
 */
function directionOf(pointer: string, otherwise?: ExampleDirection): ExampleDirection | undefined {
  const tokens = pointer.split('/');
  if (tokens[1] === 'webhooks' || tokens.includes('callbacks') || tokens.includes('encoding')) return undefined;
  if (tokens.includes('responses')) return 'response';
  return tokens.includes('requestBody') || tokens.includes('requestBodies') ? 'request' : otherwise;
}

/** Media types whose examples are values of their schema (other bodies' examples are their text). */
const valuedMediaType = (type: string): boolean =>
  isJsonMediaType(type) || /^(?:application\/x-www-form-urlencoded|multipart\/form-data)\s*(?:;|$)/i.test(type);

/**
 * Each example of a media type, a parameter, a header or a schema is checked against its schema;
 * one that fails is kept in the document (its readers see it) and left out of what is built from
 * the document's examples.
 */
function examplesOffSchema(document: OpenApiDocument, warnings: Warning[]): RejectedExamples {
  const check = exampleChecker(document);
  const rejected: RejectedExamples = new WeakMap();
  const checkOne = (
    holder: Json,
    key: string,
    value: unknown,
    at: string,
    schemaAt: string,
    direction: ExampleDirection | undefined,
  ): void => {
    const why = check(value, schemaAt, direction);
    if (why === undefined) return;
    warnings.push({
      pointer: at,
      message: `the example does not match its schema (${why}): it is not used to build responses or requests`,
    });
    rejected.set(holder, new Set([...(rejected.get(holder) ?? []), key]));
  };
  // `example`, and `examples`: a list of values on a schema, a map of Example Objects elsewhere.
  const checkHolder = (holder: Json, at: string, schemaAt: string, direction?: ExampleDirection): void => {
    if ('example' in holder) checkOne(holder, 'example', holder['example'], `${at}/example`, schemaAt, direction);
    const examples = holder['examples'];
    if (schemaAt === at) {
      if (Array.isArray(examples))
        examples.forEach((value, index) =>
          checkOne(holder, `examples/${index}`, value, `${at}/examples/${index}`, schemaAt, direction),
        );
      return;
    }
    for (const [name, declared] of Object.entries(isObject(examples) ? examples : {})) {
      const example = resolveLocal<Json>(document, declared as Json);
      if ('value' in example)
        checkOne(holder, `examples/${name}`, example['value'], `${at}/examples/${token(name)}`, schemaAt, direction);
    }
  };
  walkDocument(document, {
    schema: (schema, at) => checkHolder(schema, at, at),
    // A parameter comes with a request; a Header Object (no `in`) with what holds it.
    parameter: (holder, at) => {
      if (holder['schema'] !== undefined)
        checkHolder(
          holder,
          at,
          `${at}/schema`,
          holder['in'] === undefined ? directionOf(at) : directionOf(at, 'request'),
        );
    },
    media: (media, at, type) => {
      if (media['schema'] !== undefined && valuedMediaType(type))
        checkHolder(media, at, `${at}/schema`, directionOf(at));
    },
  });
  return rejected;
}
