import createClient, { type ClientOptions } from 'openapi-fetch';
import type { paths } from '../generated/openapi-types.js';

/**
 * A typed client of the API (openapi-fetch over the document's generated types): each call is
 * checked against the document by the compiler, its path, parameters, body and responses.
 *
 *   const api = createApiClient({ baseUrl: 'http://localhost:3000' });
 *   const { data, error, response } = await api.GET('/pets/{id}', { params: { path: { id: 1 } } });
 */
export function createApiClient(options: ClientOptions & { readonly baseUrl: string }) {
  return createClient<paths>(options);
}

export type ApiClient = ReturnType<typeof createApiClient>;
export type { paths };
