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
    current = valueAt(document, pointer);
    if (current === undefined) throw new Error(`Unresolved reference ${pointer}`);
  }
  return current as T;
}

/** The value at a local JSON pointer (`#/components/...`, RFC 6901 escapes); undefined where there is none. */
function valueAt(document: object, pointer: string): unknown {
  return pointer
    .slice(2)
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, token) =>
        typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[token] : undefined,
      document,
    );
}

/** A name as a token of a JSON pointer (RFC 6901: `~` as `~0`, `/` as `~1`). */
export function pointerToken(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * The JSON pointer of the object `value`, found at `pointer`, stands for: the target of the last
 * local reference followed from it, else `pointer` itself.
 */
export function referencedPointer(document: object, pointer: string, value: unknown): string {
  let at = pointer;
  let current = value;
  for (let depth = 0; isReference(current) && current.$ref.startsWith('#/') && depth <= 20; depth += 1) {
    at = current.$ref;
    current = valueAt(document, at);
  }
  return at;
}
