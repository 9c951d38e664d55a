import type { paths } from '../generated/openapi-types.js';

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** `METHOD /path` of every operation whose document declares the `X-Partner-Signature` header. */
type SignedOperation = {
  [P in keyof paths]: {
    [M in Method & keyof paths[P]]: paths[P][M] extends { parameters: { header: { 'X-Partner-Signature': string } } }
      ? `${Uppercase<M>} ${P}`
      : never;
  }[Method & keyof paths[P]];
}[keyof paths];

/** Paths whose request body the document gives as `application/merge-patch+json` only. */
type MergePatchPath = {
  [P in keyof paths]: {
    [M in Method & keyof paths[P]]: paths[P][M] extends {
      requestBody: { content: { 'application/merge-patch+json': unknown } };
    }
      ? P
      : never;
  }[Method & keyof paths[P]];
}[keyof paths];

/** True when A and B are the same union; used to keep the runtime lists equal to the document. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The five write operations (the document's "Signed write requests"); the compiler checks the
 * list against the document.
 */
const WRITE_OPERATION_LIST = [
  'POST /v1/transfer',
  'POST /v1/transfer/{id}/cancel',
  'POST /v1/transfer/{id}/execute',
  'PUT /v1/card/{id}/limits',
  'PATCH /v1/card/{id}/limits',
] as const;
const writeListMatchesDocument: Same<(typeof WRITE_OPERATION_LIST)[number], SignedOperation> = true;

/**
 * The limits operations take merge-patch bodies only, and openapi-fetch would send any body as
 * application/json; the compiler checks the list against the document.
 */
const MERGE_PATCH_PATH_LIST = ['/v1/card/{id}/limits'] as const;
const mergePatchListMatchesDocument: Same<(typeof MERGE_PATCH_PATH_LIST)[number], MergePatchPath> = true;
void writeListMatchesDocument;
void mergePatchListMatchesDocument;

export const WRITE_OPERATIONS: ReadonlySet<string> = new Set(WRITE_OPERATION_LIST);
export const MERGE_PATCH_PATHS: ReadonlySet<string> = new Set(MERGE_PATCH_PATH_LIST);

/**
 * Operations that take no bearer token (`security: []` in the document): the bank list and the
 * token endpoint itself (client authentication instead).
 */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set<keyof paths>(['/v1/bank', '/v1/oauth/token']);

/**
 * Operations that may be sent twice whatever their method, so a network error or a 5xx is retried
 * even without an idempotency key: asking for a token again only issues another token.
 */
const REPEATABLE_OPERATIONS: ReadonlySet<string> = new Set<`POST ${keyof paths}`>(['POST /v1/oauth/token']);

export function isWriteOperation(method: string, schemaPath: string): boolean {
  return WRITE_OPERATIONS.has(`${method.toUpperCase()} ${schemaPath}`);
}

export function isRepeatableOperation(method: string, schemaPath: string): boolean {
  return REPEATABLE_OPERATIONS.has(`${method.toUpperCase()} ${schemaPath}`);
}
