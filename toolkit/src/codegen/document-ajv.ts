import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/**
 * Ajv over a whole bundled OpenAPI document, for the toolkit's checks that run outside a server:
 * the generator's check of a document's examples (example-check.ts) and the contract checker's
 * judgement of another server's responses (check/schemas.ts). The server's own requests and responses
 * are validated by express-openapi-validator (runtime/openapi-validation.ts), not here:
 * it validates only requests passing through an Express app and the responses they get, and these
 * checks run where there is none (a document before any server exists; another server's responses
 * read off the wire). Its Ajv is the same library, read with the same formats.
 *
 * The document is added whole under an `$id`, so references inside it (`#/components/...`)
 * resolve as written, and each schema is asked for by its JSON pointer; Ajv compiles and keeps
 * each once. JSON Schema 2020-12, formats checked.
 */

/** The document's id for Ajv: references inside it resolve against it. */
const DOCUMENT_ID = 'https://openapi.invalid/document.json';

export interface DocumentAjvOptions {
  /** Read text as the schema's type (`"5"` is an integer), as a server deserializes parameters. */
  readonly coerce?: boolean;
  /** ajv-formats' mode: `fast` or `full` checks of formats such as date-time. */
  readonly formats: 'fast' | 'full';
}

/** Ajv with `document` added; throws where Ajv cannot index it (the same `$id` twice). */
export function documentAjv(document: object, options: DocumentAjvOptions): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false,
    logger: false,
    validateSchema: false,
    allErrors: false,
    ...(options.coerce === true ? { coerceTypes: 'array' as const } : {}),
  });
  addFormatsModule.default(ajv, { mode: options.formats });
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}

/** A JSON pointer (`#/paths/~1pets/get`) as a URI fragment, each token percent-encoded. */
const fragment = (pointer: string): string =>
  pointer
    .split('/')
    .map((token, index) => (index === 0 ? token : encodeURIComponent(token)))
    .join('/');

/** The validator of the schema at `pointer` of the document `ajv` holds; undefined where there is none; throws where Ajv cannot compile it. */
export function schemaAt(ajv: Ajv2020, pointer: string): ValidateFunction | undefined {
  return ajv.getSchema(`${DOCUMENT_ID}${fragment(pointer)}`);
}
