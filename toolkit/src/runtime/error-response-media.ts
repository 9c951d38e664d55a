import { readFileSync } from 'node:fs';
import { resolveLocal } from './openapi-refs.js';
import { isJsonMediaType } from './send-result.js';

type Json = Record<string, unknown>;

/**
 * How this server sends its own error responses (to a request off the contract, credentials
 * missing) as the document declares the operation's response with that status (its code, else its
 * range `4XX`, else `default`):
 * - `json`: in the JSON media type it declares (`application/problem+json`), else
 *   `application/json`, also where it declares no such response;
 * - `text`: the message alone, in the text media type it declares (`text/plain`, `text/html`);
 * - `empty`: no body, where it declares the response without content.
 */
export type ErrorResponseForm =
  { readonly kind: 'json' | 'text'; readonly mediaType: string } | { readonly kind: 'empty' };

const JSON_FORM: ErrorResponseForm = { kind: 'json', mediaType: 'application/json' };

export function errorResponseForms(
  apiSpec: string,
): (route: { readonly path: string; readonly method: string } | undefined, status: number) => ErrorResponseForm {
  const document = JSON.parse(readFileSync(apiSpec, 'utf8')) as Json;
  const paths = (document['paths'] ?? {}) as Record<string, Record<string, Json> | undefined>;
  return (route, status) => {
    if (route === undefined) return JSON_FORM;
    const operation = paths[route.path]?.[route.method.toLowerCase()];
    const responses = (operation?.['responses'] ?? {}) as Record<string, unknown>;
    const declared = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses['default'];
    if (declared === undefined) return JSON_FORM;
    let content: Record<string, unknown>;
    try {
      content = (resolveLocal<Json>(document, declared as Json)['content'] ?? {}) as Record<string, unknown>;
    } catch {
      return JSON_FORM;
    }
    const mediaTypes = Object.keys(content);
    if (mediaTypes.length === 0) return { kind: 'empty' };
    const json = mediaTypes.find(isJsonMediaType);
    if (json !== undefined) return { kind: 'json', mediaType: json };
    const text = mediaTypes.find((mediaType) => mediaType.toLowerCase().startsWith('text/'));
    return text === undefined ? JSON_FORM : { kind: 'text', mediaType: text };
  };
}
