import { bundle, createConfig } from '@redocly/openapi-core';
import type { Reference } from '../runtime/openapi-refs.js';
import { GeneratorError, type Warning } from './generator-error.js';
import type { HttpMethod } from './http-methods.js';
import { readSchemaDialects } from './schema-dialects.js';
import { rewriteForValidator } from './validator-schemas.js';

export { HTTP_METHODS, type HttpMethod } from './http-methods.js';

export { isReference, resolveLocal, type Reference } from '../runtime/openapi-refs.js';

/** The subset of an OpenAPI 3.1 document the generators read. */
export interface OpenApiDocument {
  readonly openapi: string;
  readonly paths?: Record<string, PathItem | Reference>;
  readonly components?: {
    readonly parameters?: Record<string, ParameterObject>;
    readonly [section: string]: unknown;
  };
  readonly security?: readonly SecurityRequirement[];
  readonly [key: string]: unknown;
}
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;
export interface ParameterObject {
  readonly name: string;
  readonly in: 'query' | 'header' | 'path' | 'cookie';
  readonly required?: boolean;
  readonly style?: string;
  readonly explode?: boolean;
  readonly schema?: unknown;
  readonly content?: Record<string, unknown>;
  readonly [key: string]: unknown;
}
export interface OperationObject {
  readonly operationId?: string;
  readonly tags?: readonly string[];
  readonly parameters?: ReadonlyArray<ParameterObject | Reference>;
  readonly requestBody?: { readonly content?: Record<string, unknown>; readonly required?: boolean } | Reference;
  readonly responses?: Record<string, unknown>;
  readonly security?: readonly SecurityRequirement[];
  readonly [key: string]: unknown;
}
export type PathItem = Partial<Record<HttpMethod, OperationObject>> & {
  readonly parameters?: ReadonlyArray<ParameterObject | Reference>;
  readonly [key: string]: unknown;
};

/** The document cannot be read or bundled (a file that is missing, not YAML or JSON, a reference that leads nowhere). */
export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleError';
  }
}

/** The bundled document as the toolkit reads it, and what reading it changed. */
export interface ReadDocument {
  readonly document: OpenApiDocument;
  /** Each keyword read otherwise than written, at its JSON pointer. */
  readonly warnings: readonly Warning[];
}

/**
 * Bundles the multi-file document into one object with internal `$ref`s only, and reads each of
 * its schemas as JSON Schema 2020-12 in the forms the server's validator compiles: a schema of an
 * older draft in 2020-12's forms (schema-dialects.ts), a form the validator's Ajv rejects in its
 * exact equivalent (validator-schemas.ts), each change a warning. No lint config is read here
 * (lint is `npm run lint:api`'s job), so the result depends on the document alone. Throws
 * BundleError for a document that cannot be bundled, GeneratorError for a schema keyword or a
 * dialect without a 2020-12 form.
 */
export async function bundleAndReadDocument(rootFile: string): Promise<ReadDocument> {
  const config = await createConfig({}, {});
  let result: Awaited<ReturnType<typeof bundle>>;
  try {
    result = await bundle({ ref: rootFile, config, dereference: false });
  } catch (error) {
    const why =
      error instanceof RangeError
        ? 'its references nest too deeply for the bundler'
        : error instanceof Error
          ? error.message
          : String(error);
    throw new BundleError(`Cannot bundle ${rootFile}: ${why}`);
  }
  const errors = result.problems.filter((problem) => problem.severity === 'error');
  if (errors.length > 0) {
    const lines = errors.map((problem) => `- ${problem.location[0]?.pointer ?? '#'}: ${problem.message}`).join('\n');
    throw new BundleError(`Cannot bundle ${rootFile}:\n${lines}`);
  }
  const document = result.bundle.parsed as OpenApiDocument;
  const warnings = [...readSchemaDialects(document), ...rewriteForValidator(document)];
  return { document, warnings };
}

/**
 * The bundled document as the toolkit reads it (bundleAndReadDocument), for a reader that shows
 * no warnings: a schema without a 2020-12 form is a BundleError naming it.
 */
export async function bundleDocument(rootFile: string): Promise<OpenApiDocument> {
  try {
    return (await bundleAndReadDocument(rootFile)).document;
  } catch (error) {
    if (error instanceof GeneratorError) throw new BundleError(`Cannot read ${rootFile}: ${error.message}`);
    throw error;
  }
}
