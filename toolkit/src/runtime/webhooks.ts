import type { OperationResultOf, ParametersOf, RequestBodyOf } from './handler-types.js';
import type { HttpMethod } from './routes.js';

/** A webhook of a document: a request its server sends to the subscribers' URLs. */

/** What a webhook request carries: its declared headers and its body. */
export interface WebhookRequestOf<Hook> {
  readonly headers: ParametersOf<Hook, 'header'>;
  readonly body: RequestBodyOf<Hook>;
}

export interface WebhookDefinition {
  readonly name: string;
  readonly method: HttpMethod;
  readonly requestContentTypes: readonly string[];
}

const isJson = (mediaType: string): boolean => /[/+]json(;|$)/i.test(mediaType);

/**
 * Sends a webhook with `fetch`: the body as JSON (or as text when the webhook takes no JSON), the
 * declared headers as given. The response's body is parsed as JSON when it says it is JSON.
 */
export async function sendWebhook<Hook>(
  hook: WebhookDefinition,
  url: string,
  request: WebhookRequestOf<Hook>,
): Promise<OperationResultOf<Hook>> {
  const contentType = hook.requestContentTypes[0];
  const json = contentType === undefined || isJson(contentType);
  const headers: Record<string, string> = { ...(contentType === undefined ? {} : { 'Content-Type': contentType }) };
  for (const [field, value] of Object.entries(request.headers as Record<string, unknown>))
    headers[field] = String(value);
  const response = await fetch(url, {
    method: hook.method.toUpperCase(),
    headers,
    ...(request.body === undefined ? {} : { body: json ? JSON.stringify(request.body) : String(request.body) }),
  });
  const text = await response.text();
  const responseType = response.headers.get('content-type') ?? undefined;
  const body =
    text === '' ? undefined : responseType !== undefined && isJson(responseType) ? (JSON.parse(text) as unknown) : text;
  return {
    status: response.status,
    body,
    ...(responseType === undefined ? {} : { contentType: responseType }),
  } as unknown as OperationResultOf<Hook>;
}
