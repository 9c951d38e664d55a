import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from './bundle.js';
import { documentAjv, schemaAt } from './document-ajv.js';

/**
 * Checks a value (a document's example) against a schema of the same bundled document, named by
 * its JSON pointer, the way the server's validator reads schemas: JSON Schema 2020-12, formats
 * checked (int64 a safe integer, as server/toolkit/openapi-validation.ts has it), references
 * within the document followed (document-ajv.ts).
 */

/** The first reason `value` does not match the schema at `pointer` (`/id must be integer`), or undefined when it does or cannot be checked. */
export type CheckExample = (value: unknown, pointer: string) => string | undefined;

export function exampleChecker(document: OpenApiDocument): CheckExample {
  let ajv: Ajv2020;
  try {
    ajv = documentAjv(document, { formats: 'fast' });
    ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  } catch {
    // A document Ajv cannot index (the same `$id` twice): its examples are not checked.
    return () => undefined;
  }
  const compiled = new Map<string, ValidateFunction | undefined>();
  const validatorOf = (pointer: string): ValidateFunction | undefined => {
    if (!compiled.has(pointer)) {
      let validate: ValidateFunction | undefined;
      try {
        validate = schemaAt(ajv, pointer);
      } catch {
        // A schema Ajv cannot compile is the validator's problem to report, not an example's.
        validate = undefined;
      }
      compiled.set(pointer, validate);
    }
    return compiled.get(pointer);
  };
  return (value, pointer) => {
    const validate = validatorOf(pointer);
    if (validate === undefined || validate(value)) return undefined;
    const [error] = validate.errors ?? [];
    return error === undefined ? 'it does not match' : `${error.instancePath || '/'} ${error.message ?? 'does not match'}`;
  };
}
