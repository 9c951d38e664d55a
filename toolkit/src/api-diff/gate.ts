/**
 * The breaking-change gate: a comparison passes unless a breaking change is neither covered by
 * a new major version (`info.version`'s first number raised) nor listed, with its reason, in
 * the API's allow-list (`x-breaking-changes-allowed` in redocly.yaml, by default
 * breaking-changes-allowed.yaml beside the document).
 */
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import type { ApiChange } from './compare.js';
import { CHANGE_TYPES, isObject, type ChangeAction, type ChangeType } from './model.js';

export interface Allowance {
  /** A change's JSON pointer, as diff:api prints it; it also covers every change below it. */
  readonly path: string;
  /** Only changes of this action, when given. */
  readonly action?: ChangeAction;
  readonly reason: string;
}

export class AllowListError extends Error {
  override readonly name = 'AllowListError';
}

const ACTIONS: readonly ChangeAction[] = ['add', 'remove', 'replace', 'rename'];
const ENTRY_KEYS = new Set(['path', 'action', 'reason']);

/** Reads an allow-list: `allowed:` followed by entries of `path`, optional `action`, and `reason`. */
export function parseAllowList(text: string, source: string): Allowance[] {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    throw new AllowListError(`${source} is not YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (parsed === null || parsed === undefined) return [];
  if (!isObject(parsed) || Object.keys(parsed).some((key) => key !== 'allowed')) {
    throw new AllowListError(`${source} must hold one key, \`allowed\`, a list of entries`);
  }
  const entries = parsed['allowed'] ?? [];
  if (!Array.isArray(entries)) throw new AllowListError(`${source}: \`allowed\` must be a list`);
  return entries.map((entry, index) => {
    const where = `${source}: allowed[${index}]`;
    if (!isObject(entry)) throw new AllowListError(`${where} must be a mapping of path, action and reason`);
    const unknown = Object.keys(entry).filter((key) => !ENTRY_KEYS.has(key));
    if (unknown.length > 0)
      throw new AllowListError(`${where} has unknown keys: ${unknown.join(', ')} (path, action and reason are known)`);
    const { path, action, reason } = entry;
    if (typeof path !== 'string' || !path.startsWith('#/'))
      throw new AllowListError(`${where}.path must be a JSON pointer as diff:api prints it (#/paths/...)`);
    if (action !== undefined && !ACTIONS.includes(action as ChangeAction))
      throw new AllowListError(`${where}.action must be one of ${ACTIONS.join(', ')}`);
    if (typeof reason !== 'string' || reason.trim() === '')
      throw new AllowListError(`${where}.reason must say why the break is accepted`);
    return { path, ...(action === undefined ? {} : { action: action as ChangeAction }), reason: reason.trim() };
  });
}

/** The allow-list in `file`; none when the file does not exist. */
export async function readAllowList(file: string, shown: string = file): Promise<Allowance[]> {
  const text = await readFile(file, 'utf8').catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  });
  return text === undefined ? [] : parseAllowList(text, shown);
}

/** The first number of a version (`2` of `2.1.0`, `v2`), if it has one. */
export function majorOf(version: unknown): number | undefined {
  if (typeof version !== 'string') return undefined;
  const match = /^v?(\d+)(?:\.|$)/.exec(version.trim());
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

export function covers(allowance: Allowance, change: ApiChange): boolean {
  const within = change.pointer === allowance.path || change.pointer.startsWith(`${allowance.path}/`);
  return within && (allowance.action === undefined || allowance.action === change.action);
}

export interface GatedChange extends ApiChange {
  /** The allow-list's reason, for a breaking change it covers. */
  readonly allowed?: string;
}

export interface GateResult {
  /** Most severe first, in the library's order within a class. */
  readonly changes: readonly GatedChange[];
  readonly majorChanged: boolean;
  /** Breaking changes neither allowed nor covered by a new major version. */
  readonly blocking: readonly GatedChange[];
  /** Allow-list entries that cover no breaking change (left over from a release, or mistyped). */
  readonly unusedAllowances: readonly Allowance[];
  readonly passed: boolean;
}

export function applyGate(
  changes: readonly ApiChange[],
  baseVersion: unknown,
  currentVersion: unknown,
  allowances: readonly Allowance[],
): GateResult {
  const baseMajor = majorOf(baseVersion);
  const currentMajor = majorOf(currentVersion);
  const majorChanged = baseMajor !== undefined && currentMajor !== undefined && currentMajor > baseMajor;
  const used = new Set<Allowance>();
  const gated = changes.map((change): GatedChange => {
    if (change.type !== 'breaking') return change;
    const allowance = allowances.find((candidate) => covers(candidate, change));
    if (allowance === undefined) return change;
    used.add(allowance);
    return { ...change, allowed: allowance.reason };
  });
  const rank = (type: ChangeType): number => CHANGE_TYPES.indexOf(type);
  const ordered = gated
    .map((change, index) => ({ change, index }))
    .sort((a, b) => rank(a.change.type) - rank(b.change.type) || a.index - b.index)
    .map(({ change }) => change);
  const blocking = majorChanged
    ? []
    : ordered.filter((change) => change.type === 'breaking' && change.allowed === undefined);
  return {
    changes: ordered,
    majorChanged,
    blocking,
    unusedAllowances: allowances.filter((allowance) => !used.has(allowance)),
    passed: blocking.length === 0,
  };
}

export function countByType(changes: readonly ApiChange[]): Record<ChangeType, number> {
  const counts = Object.fromEntries(CHANGE_TYPES.map((type) => [type, 0])) as Record<ChangeType, number>;
  for (const change of changes) counts[change.type] += 1;
  return counts;
}

/** `3 changes (1 breaking, 2 non-breaking)`, or `no change`. */
export function summarize(changes: readonly ApiChange[]): string {
  if (changes.length === 0) return 'no change';
  const counts = countByType(changes);
  const parts = CHANGE_TYPES.filter((type) => counts[type] > 0).map((type) => `${counts[type]} ${type}`);
  return `${changes.length} change${changes.length === 1 ? '' : 's'} (${parts.join(', ')})`;
}
