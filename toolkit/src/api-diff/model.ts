/** The words the change reports share: classes, actions, paths, JSON values. */
import { pointerOf } from '../codegen/operations.js';

export const CHANGE_TYPES = ['breaking', 'unclassified', 'deprecated', 'non-breaking', 'annotation'] as const;
/** Most severe first: a comparison's verdict is the first of these that any change has. */
export type ChangeType = (typeof CHANGE_TYPES)[number];
export type Verdict = ChangeType | 'none';
export type ChangeAction = 'add' | 'remove' | 'replace' | 'rename';
export type JsonPath = ReadonlyArray<string | number>;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isChangeType(value: unknown): value is ChangeType {
  return (CHANGE_TYPES as readonly unknown[]).includes(value);
}

/** The most severe class among `types`, or 'none'. */
export function verdictOf(types: Iterable<ChangeType>): Verdict {
  const present = new Set(types);
  return CHANGE_TYPES.find((type) => present.has(type)) ?? 'none';
}

/** A path as a JSON pointer: `#/paths/~1v1~1card/get/parameters/1`. */
export function pointerOfPath(path: JsonPath): string {
  return pointerOf(...path.map(String));
}
