import { defaultRefusalBody, type Refusal } from 'contract-first/runtime';

/**
 * The body of the server's own refusals (a request off the contract, credentials missing or
 * refused, a path it does not serve, a handler that failed) where the document declares a JSON
 * answer for their status. Write it in the document's error shape, so that these answers keep the
 * contract too: `npm test`'s contract check names each refusal whose body the document does not
 * declare. Until it is written it sends the toolkit's `{ message, field }`. For an error shape of
 * `{ code, message }`:
 *
 *   export const refusalBody = ({ status, message }: Refusal): unknown => ({ code: status, message });
 */
export const refusalBody: (refusal: Refusal) => unknown = defaultRefusalBody;
