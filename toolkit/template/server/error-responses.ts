import { defaultErrorResponseBody, type ErrorResponse } from 'contract-first/runtime';

/**
 * The body of the server's own error responses (to a request off the contract, credentials missing
 * or rejected, a path it does not serve, a handler that failed) where the document declares a JSON
 * response for their status. Write it in the document's error shape, so that these responses keep
 * the contract too: `npm test`'s contract check names each error response whose body the document
 * does not declare. Until it is written it sends the toolkit's `{ message, field }`. For an error
 * shape of `{ code, message }`:
 *
 *   export const errorResponseBody = ({ status, message }: ErrorResponse): unknown => ({ code: status, message });
 */
export const errorResponseBody: (errorResponse: ErrorResponse) => unknown = defaultErrorResponseBody;
