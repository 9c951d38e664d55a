import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import * as OpenApiValidator from 'express-openapi-validator';
import type { RequestHandler } from 'express';

type PathToRegexp = (path: unknown, options?: Record<string, unknown>) => { regexp: RegExp; keys: unknown[] };

/** Distinct (path, options) pairs kept; the document has a dozen paths, so this is never reached in practice. */
const MAX_CACHED_MATCHERS = 1_000;

/**
 * express-openapi-validator 5.6 compiles the matcher of every documented path again on each
 * request while it looks up the request's operation (openapi.metadata.js `lookupRoute`); that
 * compiling cost some 40 µs of every request here. The fix upstream (cdimascio/express-openapi-
 * validator#1217, "cache route matchers") is not released, so the same cache is put in front of
 * the `pathToRegexp` the validator calls: one compiled matcher per (path, options), the same
 * object the function would have built. The compiled matchers are read-only to their callers
 * (Express's router builds its own once per route, and is unaffected either way).
 */
export function cacheValidatorRouteMatchers(): void {
  const require = createRequire(import.meta.url);
  const validatorDir = dirname(require.resolve('express-openapi-validator'));
  const module = require(require.resolve('path-to-regexp', { paths: [validatorDir] })) as { pathToRegexp: PathToRegexp };
  const compile = module.pathToRegexp;
  if ((compile as { cached?: true }).cached === true) return;
  const matchers = new Map<string, ReturnType<PathToRegexp>>();
  const cached: PathToRegexp = (path, options = {}) => {
    if (typeof path !== 'string') return compile(path, options);
    // The options path-to-regexp 8 reads; the validator passes a new object on every call.
    const key = `${path}\u0000${String(options['sensitive'])}\u0000${String(options['end'])}\u0000${String(options['trailing'])}\u0000${String(options['delimiter'])}`;
    let matcher = matchers.get(key);
    if (matcher === undefined) {
      matcher = compile(path, options);
      if (matchers.size < MAX_CACHED_MATCHERS) matchers.set(key, matcher);
    }
    return matcher;
  };
  module.pathToRegexp = Object.assign(cached, { cached: true as const });
}

export interface ValidatorOptions {
  /** The bundled document, as a file path (stack.md pitfall 7). */
  readonly apiSpec: string;
  /** On in development and in every test: an off-contract answer becomes a 500. */
  readonly validateResponses: boolean;
}

/** Request (and optionally response) validation against the bundled document. */
export function openApiValidator(options: ValidatorOptions): RequestHandler[] {
  cacheValidatorRouteMatchers();
  return OpenApiValidator.middleware({
    apiSpec: options.apiSpec,
    validateApiSpec: false,
    // coerceTypes concerns the body only (parameters arrive as text and are always coerced):
    // a JSON body must carry the document's types, so `"amountCents": "100"` is a 400.
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: false },
    validateResponses: options.validateResponses ? { allErrors: false } : false,
    validateSecurity: false,
    validateFormats: true,
    // The document has no multipart body: no upload middleware on every request.
    fileUploader: false,
    formats: { int64: { type: 'number', validate: (value: number) => Number.isSafeInteger(value) } },
  }) as RequestHandler[];
}
