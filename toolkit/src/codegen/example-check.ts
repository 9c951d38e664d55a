import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import type { OpenApiDocument } from './bundle.js';
import { documentAjv, schemaAt } from './document-ajv.js';

/**
 * Checks a value (a document's example) against a schema of the same bundled document, named by
 * its JSON pointer, the way the server's validator reads schemas: JSON Schema 2020-12, formats
 * checked (int64 a safe integer, as runtime/openapi-validation.ts has it), references
 * within the document followed (document-ajv.ts). An example of a request or of a response is
 * read as the validator reads that direction: a `readOnly` property present in a request, or a
 * `writeOnly` one in a response, is rejected (express-openapi-validator's readOnly and writeOnly
 * keywords).
 */

/** Which way an example travels; undefined for a schema's own examples, which serve both. */
export type ExampleDirection = 'request' | 'response';

/** The first reason `value` does not match the schema at `pointer` (`/id must be integer`), or undefined when it does or cannot be checked. */
export type CheckExample = (value: unknown, pointer: string, direction?: ExampleDirection) => string | undefined;

/** The keyword the validator rejects in each direction, and how it says so. */
const REJECTED = {
  request: { keyword: 'readOnly', message: 'is read-only' },
  response: { keyword: 'writeOnly', message: 'is write-only' },
} as const;

/** The validators of one reading of the document, each schema compiled once; undefined where Ajv cannot index it. */
function reading(
  document: OpenApiDocument,
  direction: ExampleDirection | undefined,
): ((pointer: string) => ValidateFunction | undefined) | undefined {
  let ajv: Ajv2020;
  try {
    ajv = documentAjv(document, { formats: 'fast' });
    ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
    if (direction !== undefined) {
      const { keyword, message } = REJECTED[direction];
      ajv.removeKeyword(keyword);
      // Present at all is rejected: the keyword is only reached for a property the value has.
      ajv.addKeyword({ keyword, schemaType: 'boolean', error: { message }, validate: (flagged: boolean) => !flagged });
    }
  } catch {
    // A document Ajv cannot index (the same `$id` twice): its examples are not checked.
    return undefined;
  }
  const compiled = new Map<string, ValidateFunction | undefined>();
  return (pointer) => {
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
}

export function exampleChecker(document: OpenApiDocument): CheckExample {
  const readings = new Map<ExampleDirection | undefined, ReturnType<typeof reading>>();
  return (value, pointer, direction) => {
    if (!readings.has(direction)) readings.set(direction, reading(document, direction));
    const validate = readings.get(direction)?.(pointer);
    if (validate === undefined || validate(value)) return undefined;
    const [error] = validate.errors ?? [];
    return error === undefined
      ? 'it does not match'
      : `${error.instancePath || '/'} ${error.message ?? 'does not match'}`;
  };
}
