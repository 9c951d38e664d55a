import { isObject } from './resource-schema.js';

/**
 * JSON Merge Patch (RFC 7396), as `serve --stateful` applies a PATCH to what it holds: each member
 * of an object patch replaces the target's member of that name, an object merged into an object,
 * `null` removes the member; any other patch (an array, a string) replaces the target whole.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else result[name] = mergePatch(result[name], value);
  }
  return result;
}
