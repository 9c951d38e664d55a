/** The methods a Path Item Object holds an operation under (OpenAPI 3.1, Path Item Object). */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
