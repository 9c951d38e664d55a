import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { OpenApiDocument } from './bundle.js';

/**
 * Checks a value (a document's example) against a schema of the same bundled document, named by
 * its JSON pointer, the way the server's validator reads schemas: JSON Schema 2020-12, formats
 * checked (int64 a safe integer, as server/toolkit/openapi-validation.ts has it), references
 * within the document followed. The document is added to Ajv once, so that each schema a
 * reference names is compiled once, however many examples use it.
 */

/** The first reason `value` does not match the schema at `pointer` (`/id must be integer`), or undefined when it does or cannot be checked. */
export type CheckExample = (value: unknown, pointer: string) => string | undefined;

/** The document's id for Ajv: references inside it (`#/components/...`) resolve against it. */
const DOCUMENT_ID = 'https://openapi.invalid/document.json';

/** A JSON pointer (`#/paths/~1pets/get`) as a URI fragment, each token percent-encoded. */
const fragment = (pointer: string): string => pointer.split('/').map((token, index) => (index === 0 ? token : encodeURIComponent(token))).join('/');

export function exampleChecker(document: OpenApiDocument): CheckExample {
  const ajv = new Ajv2020({ strict: false, allErrors: false, logger: false, validateSchema: false });
  addFormatsModule.default(ajv, { mode: 'fast' });
  ajv.addFormat('int64', { type: 'number', validate: (value: number) => Number.isSafeInteger(value) });
  try {
    ajv.addSchema(document as object, DOCUMENT_ID);
  } catch {
    // A document Ajv cannot index (the same `$id` twice): its examples are not checked.
    return () => undefined;
  }
  const compiled = new Map<string, ValidateFunction | undefined>();
  const validatorOf = (pointer: string): ValidateFunction | undefined => {
    if (!compiled.has(pointer)) {
      let validate: ValidateFunction | undefined;
      try {
        validate = ajv.getSchema(`${DOCUMENT_ID}${fragment(pointer)}`);
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
