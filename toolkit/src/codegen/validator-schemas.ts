import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from './bundle.js';
import { documentAjv, schemaAt } from './document-ajv.js';
import { GeneratorError, type Warning } from './generator-error.js';
import { numericExclusiveBounds, prefixItems } from './schema-dialects.js';
import { unicodePattern } from './unicode-patterns.js';
import { token, walkDocument } from './walk.js';

/**
 * Every schema of a document as the server's validator compiles it. express-openapi-validator
 * compiles a route's schemas with Ajv (JSON Schema 2020-12, not strict:
 * runtime/openapi-validation.ts) at the first request that needs them; Ajv rejects some forms
 * that JSON Schema allows or writes otherwise, and a route with one responds to every request with a
 * 500. Each such form with an exact equivalent is rewritten to it, with a warning naming its JSON
 * pointer:
 * - `enum: []`, which no value matches (2020-12 §6.1.2 allows it), is `not: {}`, which no value
 *   matches either;
 * - a boolean `exclusiveMinimum`/`exclusiveMaximum` (draft-04's form, and OpenAPI 3.0's) is the
 *   bound it makes exclusive;
 * - `items` as a list of schemas (the form of every draft before 2020-12) is `prefixItems`, and
 *   `additionalItems` beside it `items`;
 * - `id`, which 2020-12 does not define (draft-04 named a schema's URI so), asserts nothing and is
 *   left out;
 * - a `pattern`, or a name pattern of `patternProperties`, that compiles only without the `u` flag
 *   Ajv gives every pattern is written as the flag reads it, matching the same (unicode-patterns.ts).
 * What Ajv still cannot compile is rejected at generation (GeneratorError), in Ajv's words, at the
 * innermost schema that fails.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const q = (value: unknown): string => JSON.stringify(value);

const NOT_COMPILED = 'the validator (Ajv) cannot compile';

function emptyEnum(schema: Json, at: string, warnings: Warning[]): void {
  if (!Array.isArray(schema['enum']) || schema['enum'].length > 0) return;
  const allOf = schema['allOf'];
  if ('not' in schema && allOf !== undefined && !Array.isArray(allOf)) return;
  delete schema['enum'];
  if (!('not' in schema)) schema['not'] = {};
  else schema['allOf'] = [...(Array.isArray(allOf) ? allOf : []), { not: {} }];
  warnings.push({
    pointer: `${at}/enum`,
    message: `an empty enum, which no value matches, and which ${NOT_COMPILED}: read as not: {}, which no value matches either`,
  });
}

function patterns(schema: Json, at: string, warnings: Warning[]): void {
  const pattern = schema['pattern'];
  if (typeof pattern === 'string') {
    const read = unicodePattern(pattern);
    if (read !== undefined && read !== pattern) {
      schema['pattern'] = read;
      warnings.push({
        pointer: `${at}/pattern`,
        message: `${q(pattern)} compiles only without the u flag that the validator (Ajv) compiles every pattern with: read as ${q(read)}, which matches the same`,
      });
    }
  }
  const byName = schema['patternProperties'];
  if (!isObject(byName)) return;
  const names = Object.keys(byName);
  const read = names.map((name) => unicodePattern(name) ?? name);
  if (read.every((name, index) => name === names[index]) || new Set(read).size < names.length) return;
  schema['patternProperties'] = Object.fromEntries(read.map((name, index) => [name, byName[names[index] ?? '']]));
  names.forEach((name, index) => {
    if (read[index] !== name)
      warnings.push({
        pointer: `${at}/patternProperties/${token(name)}`,
        message: `${q(name)} compiles only without the u flag that the validator (Ajv) compiles every pattern with: read as ${q(read[index])}, which matches the same`,
      });
  });
}

/**
 * Rewrites (in place) each form of a schema of `document` that the validator's Ajv rejects and
 * that has an exact equivalent; returns a warning for each.
 */
export function rewriteForValidator(document: OpenApiDocument): Warning[] {
  const warnings: Warning[] = [];
  walkDocument(document, {
    schema(schema, at) {
      emptyEnum(schema, at, warnings);
      numericExclusiveBounds(
        schema,
        at,
        warnings,
        `a boolean is draft-04's form (and OpenAPI 3.0's), which ${NOT_COMPILED}`,
      );
      prefixItems(
        schema,
        at,
        warnings,
        `a list of items is the form of the drafts before 2020-12, which ${NOT_COMPILED}`,
      );
      if ('id' in schema) {
        delete schema['id'];
        warnings.push({
          pointer: `${at}/id`,
          message: `JSON Schema 2020-12 has no keyword id (draft-04 named a schema's URI so; 2020-12 writes $id), so it asserts nothing, and ${NOT_COMPILED} a schema with it: left out`,
        });
      }
      patterns(schema, at, warnings);
    },
  });
  return warnings;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The keyword of `schema` that Ajv's message names, when it names one the schema has. */
function keywordOf(message: string, schema: Json): string | undefined {
  const named =
    /^NOT SUPPORTED: keyword "([^"]+)"/.exec(message)?.[1] ??
    (/^Invalid regular expression/.test(message)
      ? typeof schema['pattern'] === 'string' && unicodePattern(schema['pattern']) === undefined
        ? 'pattern'
        : 'patternProperties'
      : /^can't resolve reference/.test(message)
        ? '$ref'
        : /^"?([$A-Za-z]+)"? /.exec(message)?.[1]);
  return named !== undefined && named in schema ? named : undefined;
}

/** A local reference as the JSON pointer the document's walk names its schema by (no percent-encoding). */
function pointerOfReference(ref: string): string | undefined {
  if (!ref.startsWith('#/')) return undefined;
  try {
    return `#/${ref.slice(2).split('/').map(decodeURIComponent).join('/')}`;
  } catch {
    return undefined;
  }
}

/**
 * Compiles each schema of `document` the validator may check a request or a response by (those of
 * paths and components; not webhooks' and callbacks', which the server sends) as the validator's
 * Ajv does, and rejects (GeneratorError) the document at the innermost schema that does not
 * compile: one inside a failing schema that fails too, or the one a failing `$ref` names.
 */
export function rejectUncompilableSchemas(document: OpenApiDocument): void {
  let ajv: Ajv2020;
  try {
    ajv = documentAjv(document, { formats: 'fast' });
  } catch (error) {
    throw new GeneratorError('#', `${NOT_COMPILED} the document's schemas: ${messageOf(error)}`);
  }
  const schemas = new Map<string, Json>();
  const inside = new Map<string, string[]>();
  const outermost: string[] = [];
  const open: string[] = [];
  walkDocument(document, {
    schema(schema, pointer) {
      // Schemas come in document order, each before those inside it.
      while (open.length > 0 && !pointer.startsWith(`${open[open.length - 1] ?? ''}/`)) open.pop();
      const holder = open[open.length - 1];
      if (holder === undefined) outermost.push(pointer);
      else inside.get(holder)?.push(pointer);
      schemas.set(pointer, schema);
      inside.set(pointer, []);
      open.push(pointer);
    },
  });
  const failure = (pointer: string): string | undefined => {
    try {
      schemaAt(ajv, pointer);
      return undefined;
    } catch (error) {
      return messageOf(error);
    }
  };
  const followed = new Set<string>();
  const innermost = (pointer: string, message: string): { pointer: string; message: string } => {
    for (const child of inside.get(pointer) ?? []) {
      const failed = failure(child);
      if (failed !== undefined) return innermost(child, failed);
    }
    const ref = schemas.get(pointer)?.['$ref'];
    const target = typeof ref === 'string' ? pointerOfReference(ref) : undefined;
    if (target !== undefined && schemas.has(target) && !followed.has(target)) {
      followed.add(target);
      const failed = failure(target);
      if (failed !== undefined) return innermost(target, failed);
    }
    return { pointer, message };
  };
  // Webhooks and callbacks are requests the server sends: the validator checks none of them.
  const checked = outermost.filter((pointer) => !pointer.startsWith('#/webhooks/') && !pointer.includes('/callbacks/'));
  for (const pointer of checked) {
    const failed = failure(pointer);
    if (failed === undefined) continue;
    const found = innermost(pointer, failed);
    const keyword = keywordOf(found.message, schemas.get(found.pointer) ?? {});
    throw new GeneratorError(
      keyword === undefined ? found.pointer : `${found.pointer}/${token(keyword)}`,
      `${NOT_COMPILED} this schema (${found.message}): it could check no request or response by it; write it as JSON Schema 2020-12 says`,
    );
  }
}
