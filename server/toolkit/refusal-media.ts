import { readFileSync } from 'node:fs';
import { resolveLocal } from './openapi-refs.js';
import { isJsonMediaType } from './send-result.js';

type Json = Record<string, unknown>;

/**
 * The media type of this server's own refusals (a request off the contract, credentials missing):
 * the JSON media type the document declares for the operation's response with that status (its
 * code, else its range `4XX`, else `default`), so that a document whose errors are
 * `application/problem+json` gets them so; `application/json` where it declares none.
 */
export function refusalMediaTypes(apiSpec: string): (route: { readonly path: string; readonly method: string } | undefined, status: number) => string {
  const document = JSON.parse(readFileSync(apiSpec, 'utf8')) as Json;
  const paths = (document['paths'] ?? {}) as Record<string, Record<string, Json> | undefined>;
  return (route, status) => {
    if (route === undefined) return 'application/json';
    const operation = paths[route.path]?.[route.method.toLowerCase()];
    const responses = (operation?.['responses'] ?? {}) as Record<string, unknown>;
    const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses['default'];
    if (declared === undefined) return 'application/json';
    let content: Record<string, unknown> = {};
    try {
      content = (resolveLocal<Json>(document, declared as Json)['content'] ?? {}) as Record<string, unknown>;
    } catch {
      return 'application/json';
    }
    return Object.keys(content).find(isJsonMediaType) ?? 'application/json';
  };
}
