import type { RequestHandler } from 'express';

/**
 * RFC 3986 lets a query value carry `'`, `(`, `:`, `,`, `@`, `/` and other reserved characters
 * unencoded (`encodeURIComponent` leaves `'()*!` as they are), and HTML form encoding writes a space
 * as `+`. Express reads all of them as meant, but the validator refuses a reserved character in a
 * value (`allowReserved` is false) and would answer 400 to a well-formed request. So the query is
 * respelled before validation with those characters percent-encoded, which decodes to the very
 * same names and values (`+` becomes `%20`: a literal plus is `%2B` either way). Paths are
 * untouched (the signature covers the path only).
 */
const RESERVED_IN_QUERY_PART = /[:/?[\]@!$'()*,;=]/g;
const respellQueryPart = (part: string): string =>
  part
    .replaceAll('+', '%20')
    .replace(RESERVED_IN_QUERY_PART, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

export function respellQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      return equals === -1
        ? respellQueryPart(pair)
        : `${respellQueryPart(pair.slice(0, equals))}=${respellQueryPart(pair.slice(equals + 1))}`;
    })
    .join('&');
}

export const respellReservedInQuery: RequestHandler = (req, _res, next) => {
  const mark = req.url.indexOf('?');
  if (mark !== -1) {
    const query = req.url.slice(mark + 1);
    const respelled = respellQuery(query);
    if (respelled !== query) {
      req.url = `${req.url.slice(0, mark)}?${respelled}`;
      req.originalUrl = req.url;
    }
  }
  next();
};
