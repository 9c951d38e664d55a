import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { documentAjv, schemaAt } from '../codegen/document-ajv.js';
import { follow } from './document.js';

/**
 * Judges values against the document's schemas with Ajv (../codegen/document-ajv.ts), each schema
 * named by its JSON pointer in the bundled document. Three readings of the same schemas:
 * - requests: a `readOnly` property is not required (OpenAPI 3.1, Schema Object: it is sent in
 *   responses only), so a request without it is valid;
 * - responses: a `writeOnly` property is not required, for the same reason the other way;
 * - parameters and headers: text on the wire, read as the schema's type (`"5"` is an integer), as
 *   a server deserializes them.
 */

type Json = Record<string, unknown>;

export type SchemaRole = 'request' | 'response' | 'parameter';

/** One reason a value does not match. */
export interface SchemaProblem {
  /** Where in the value (`/items/0/price`; empty for the value itself). */
  readonly instancePath: string;
  /** Where in the schema (`#/properties/price/type`). */
  readonly schemaPath: string;
  readonly keyword: string;
  /** `/items/0/price must be number`. */
  readonly message: string;
}

/** The names of the properties of `schema` (its `allOf` members included) that carry `flag`. */
function flaggedNames(
  document: object,
  declared: unknown,
  flag: 'readOnly' | 'writeOnly',
  seen: Set<unknown>,
): Set<string> {
  const names = new Set<string>();
  let schema: Json;
  try {
    schema = follow(document, declared, '#').value;
  } catch {
    return names;
  }
  if (seen.has(schema)) return names;
  seen.add(schema);
  for (const [name, property] of Object.entries((schema['properties'] ?? {}) as Json)) {
    try {
      if (follow(document, property, '#').value[flag] === true) names.add(name);
    } catch {
      // A property that cannot be read carries no flag.
    }
  }
  for (const member of (Array.isArray(schema['allOf']) ? schema['allOf'] : []) as unknown[]) {
    for (const name of flaggedNames(document, member, flag, seen)) names.add(name);
  }
  return names;
}

/**
 * A copy of the document where no `required` list names a property flagged `flag` in the same
 * schema or, for a member of an `allOf`, in another member of it.
 */
export function relaxRequired(document: object, flag: 'readOnly' | 'writeOnly'): object {
  const copy = structuredClone(document) as Json;
  const drop = (declared: unknown, names: Set<string>): void => {
    let schema: Json;
    try {
      schema = follow(copy, declared, '#').value;
    } catch {
      return;
    }
    if (Array.isArray(schema['required']))
      schema['required'] = (schema['required'] as unknown[]).filter((name) => !names.has(String(name)));
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const schema = node as Json;
    if (Array.isArray(schema['required']) || Array.isArray(schema['allOf'])) {
      const names = flaggedNames(copy, schema, flag, new Set());
      if (names.size > 0) {
        drop(schema, names);
        for (const member of (Array.isArray(schema['allOf']) ? schema['allOf'] : []) as unknown[]) drop(member, names);
      }
    }
    for (const value of Object.values(schema)) visit(value);
  };
  visit(copy);
  return copy;
}

const describe = (error: ErrorObject): SchemaProblem => {
  const extra =
    error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties'
      ? ` (${String((error.params as { additionalProperty?: unknown; unevaluatedProperty?: unknown }).additionalProperty ?? (error.params as { unevaluatedProperty?: unknown }).unevaluatedProperty)})`
      : error.keyword === 'enum'
        ? `: ${JSON.stringify((error.params as { allowedValues?: unknown }).allowedValues)}`
        : '';
  return {
    instancePath: error.instancePath,
    schemaPath: error.schemaPath,
    keyword: error.keyword,
    message: `${error.instancePath === '' ? '/' : error.instancePath} ${error.message ?? 'does not match'}${extra}`,
  };
};

/**
 * The reason to show for a failed validation: Ajv stops at the first failure, except under
 * `oneOf`/`anyOf`/`if`, where the branches' failures come before the combinator's own, which comes
 * last; the first branch's failure is added to it.
 */
function problemOf(errors: readonly ErrorObject[]): SchemaProblem {
  const last = errors[errors.length - 1];
  if (last === undefined) return { instancePath: '', schemaPath: '#', keyword: 'false', message: '/ does not match' };
  const problem = describe(last);
  const first = errors[0];
  if (errors.length > 1 && first !== undefined && first !== last)
    return { ...problem, message: `${problem.message} (first alternative: ${describe(first).message})` };
  return problem;
}

export class Schemas {
  private readonly ajv: Record<SchemaRole, Ajv2020>;
  private readonly compiled: Record<SchemaRole, Map<string, ValidateFunction | null>> = {
    request: new Map(),
    response: new Map(),
    parameter: new Map(),
  };
  /** Schemas Ajv cannot compile: values against them are taken as valid. */
  readonly notes: string[] = [];

  constructor(document: object) {
    const request = relaxRequired(document, 'readOnly');
    const response = relaxRequired(document, 'writeOnly');
    this.ajv = {
      request: documentAjv(request, { formats: 'full' }),
      response: documentAjv(response, { formats: 'full' }),
      parameter: documentAjv(request, { formats: 'full', coerce: true }),
    };
  }

  private validator(role: SchemaRole, pointer: string): ValidateFunction | null {
    const cache = this.compiled[role];
    let validate = cache.get(pointer);
    if (validate === undefined) {
      try {
        validate = schemaAt(this.ajv[role], pointer) ?? null;
        if (validate === null) this.notes.push(`${pointer}: schema not checked (no schema there)`);
      } catch (error) {
        validate = null;
        const note = `${pointer}: schema not checked (${error instanceof Error ? error.message : String(error)})`;
        if (!this.notes.includes(note)) this.notes.push(note);
      }
      cache.set(pointer, validate);
    }
    return validate;
  }

  /** Why `value` does not match the schema at `pointer` read as `role`; undefined when it does (or no schema). */
  problem(role: SchemaRole, pointer: string | undefined, value: unknown): SchemaProblem | undefined {
    if (pointer === undefined) return undefined;
    const validate = this.validator(role, pointer);
    // Reading text as the schema's type rewrites the value in place: a copy is read.
    if (
      validate === null ||
      validate(role === 'parameter' && typeof value === 'object' && value !== null ? structuredClone(value) : value)
    )
      return undefined;
    return problemOf(validate.errors ?? []);
  }

  valid(role: SchemaRole, pointer: string | undefined, value: unknown): boolean {
    return this.problem(role, pointer, value) === undefined;
  }
}
