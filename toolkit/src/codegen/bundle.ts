import { bundle, createConfig } from '@redocly/openapi-core';
import type { Reference } from '../runtime/openapi-refs.js';

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
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** The document cannot be read or bundled (a file that is missing, not YAML or JSON, a reference that leads nowhere). */
export class BundleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BundleError';
  }
}

/**
 * Bundles the multi-file document into one object with internal `$ref`s only. No lint config is
 * read here (lint is `npm run lint:api`'s job), so the result depends on the document alone.
 */
export async function bundleDocument(rootFile: string): Promise<OpenApiDocument> {
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
  return result.bundle.parsed as OpenApiDocument;
}
