import type { ParameterSpec } from './document.js';

/**
 * Parameter values on the wire, by their `style` and `explode` (OpenAPI 3.1, Parameter Object,
 * "Style Values" and "Style Examples"): `simple`, `label` and `matrix` in a path, `form`,
 * `spaceDelimited`, `pipeDelimited` and `deepObject` in a query, `simple` in a header, `form` in a
 * cookie; a parameter with `content` is its value in that media type (JSON). Form bodies
 * (`application/x-www-form-urlencoded`) are written as `form`, exploded, with nested objects as
 * JSON (the Encoding Object's default for them).
 */

type Json = Record<string, unknown>;

/** A scalar as text: `null` is empty, structures nested in a list or an object are JSON. */
export const scalarText = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Percent-encodes everything but unreserved characters (RFC 3986). */
const encode = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** A parameter's value as the media type of its `content` says, else as it is. */
function contentValue(parameter: ParameterSpec, value: unknown): unknown {
  return parameter.contentType === undefined
    ? value
    : /json/i.test(parameter.contentType)
      ? JSON.stringify(value)
      : scalarText(value);
}

/** Pairs of an object, flattened as `k,v,k2,v2` or `k=v,k2=v2`. */
const objectPairs = (value: Json, exploded: boolean, separator: string, escape: (text: string) => string): string =>
  Object.entries(value)
    .map(([key, inner]) =>
      exploded ? `${escape(key)}=${escape(scalarText(inner))}` : `${escape(key)},${escape(scalarText(inner))}`,
    )
    .join(exploded ? separator : ',');

/** The text that replaces `{name}` in the path. */
export function pathText(parameter: ParameterSpec, raw: unknown): string {
  const value = contentValue(parameter, raw);
  const name = encode(parameter.name);
  const { explode } = parameter;
  switch (parameter.style) {
    case 'label': {
      if (Array.isArray(value)) return `.${value.map((item) => encode(scalarText(item))).join(explode ? '.' : ',')}`;
      if (isObject(value)) return `.${objectPairs(value, explode, '.', encode)}`;
      return `.${encode(scalarText(value))}`;
    }
    case 'matrix': {
      if (Array.isArray(value)) {
        if (value.length === 0) return `;${name}`;
        return explode
          ? value.map((item) => `;${name}=${encode(scalarText(item))}`).join('')
          : `;${name}=${value.map((item) => encode(scalarText(item))).join(',')}`;
      }
      if (isObject(value))
        return explode
          ? `;${objectPairs(value, true, ';', encode)}`
          : `;${name}=${objectPairs(value, false, ',', encode)}`;
      return `;${name}=${encode(scalarText(value))}`;
    }
    default: {
      if (Array.isArray(value)) return value.map((item) => encode(scalarText(item))).join(',');
      if (isObject(value)) return objectPairs(value, explode, ',', encode);
      return encode(scalarText(value));
    }
  }
}

/** The `name=value` pairs a query parameter adds, already encoded. */
export function queryPairs(parameter: ParameterSpec, raw: unknown): string[] {
  const value = contentValue(parameter, raw);
  const name = encode(parameter.name);
  if (parameter.style === 'deepObject' && isObject(value))
    return Object.entries(value).map(([key, inner]) => `${name}[${encode(key)}]=${encode(scalarText(inner))}`);
  if (Array.isArray(value)) {
    const items = value.map((item) => encode(scalarText(item)));
    if (parameter.style === 'spaceDelimited') return [`${name}=${items.join('%20')}`];
    if (parameter.style === 'pipeDelimited') return [`${name}=${items.join('|')}`];
    return parameter.explode ? items.map((item) => `${name}=${item}`) : [`${name}=${items.join(',')}`];
  }
  if (isObject(value))
    return parameter.explode
      ? objectPairs(value, true, '&', encode)
          .split('&')
          .filter((pair) => pair !== '')
      : [`${name}=${objectPairs(value, false, ',', encode)}`];
  return [`${name}=${encode(scalarText(value))}`];
}

/** A header parameter's value (`simple`). */
export function headerText(parameter: ParameterSpec, raw: unknown): string {
  const value = contentValue(parameter, raw);
  if (Array.isArray(value)) return value.map(scalarText).join(',');
  if (isObject(value)) return objectPairs(value, parameter.explode, ',', (text) => text);
  return scalarText(value);
}

/** A cookie parameter's `name=value` (`form`), the value percent-encoded as cookies need. */
export function cookiePair(parameter: ParameterSpec, raw: unknown): string {
  const value = contentValue(parameter, raw);
  const text = Array.isArray(value)
    ? value.map((item) => encode(scalarText(item))).join(',')
    : isObject(value)
      ? objectPairs(value, false, ',', encode)
      : encode(scalarText(value));
  return `${parameter.name}=${text}`;
}

/** An `application/x-www-form-urlencoded` body: lists repeated, nested objects as JSON. */
export function formBody(value: unknown): string {
  if (!isObject(value)) return encode(scalarText(value));
  const pairs: string[] = [];
  for (const [key, inner] of Object.entries(value)) {
    if (Array.isArray(inner)) for (const item of inner) pairs.push(`${encode(key)}=${encode(scalarText(item))}`);
    else pairs.push(`${encode(key)}=${encode(scalarText(inner))}`);
  }
  return pairs.join('&');
}

/** What a server reads of a serialized scalar, list or object: each scalar as text (it then reads it as the schema's type). */
export function wireImage(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scalarText);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, scalarText(inner)]));
  return scalarText(value);
}

/**
 * Percent-encoding as JavaScript clients do it (`encodeURIComponent`: `! ' ( ) *` stay as they are,
 * which RFC 3986 allows in a query and a path segment). A lone surrogate, which encodeURIComponent
 * rejects, goes as U+FFFD, as any UTF-8 encoder sends it.
 */
export function clientEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return [...Buffer.from(text, 'utf8')]
      .map((byte) =>
        /[A-Za-z0-9_.~-]/.test(String.fromCharCode(byte))
          ? String.fromCharCode(byte)
          : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
      )
      .join('');
  }
}

/** A query or path value as JavaScript clients send it: a list comma-joined (`form`, not exploded), each part by `clientEncode`. */
export function clientWireText(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => clientEncode(scalarText(item))).join(',');
  return clientEncode(scalarText(value));
}
