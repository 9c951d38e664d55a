/** A JSON Reference of an OpenAPI document. */
export interface Reference {
  readonly $ref: string;
}

export function isReference(value: unknown): value is Reference {
  return typeof value === 'object' && value !== null && typeof (value as { $ref?: unknown }).$ref === 'string';
}

/**
 * Follows a local reference (`#/components/...`, RFC 6901 escapes) of a bundled document until it
 * reaches an object; throws on a reference that leaves the document, dangles or cycles.
 */
export function resolveLocal<T>(document: object, value: T | Reference): T {
  let current: unknown = value;
  for (let depth = 0; isReference(current); depth += 1) {
    const pointer = current.$ref;
    if (depth > 20) throw new Error(`Reference cycle at ${pointer}`);
    if (!pointer.startsWith('#/')) throw new Error(`Only local references are expected after bundling: ${pointer}`);
    current = pointer
      .slice(2)
      .split('/')
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>(
        (node, token) =>
          typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[token] : undefined,
        document,
      );
    if (current === undefined) throw new Error(`Unresolved reference ${pointer}`);
  }
  return current as T;
}
