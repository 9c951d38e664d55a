import { FINDING_KINDS } from './judge.js';

/**
 * Which checks judge the responses (`--checks`, `--exclude-checks`; `checks` and `excludeChecks` of
 * runCheck): the finding kinds by their names as the report prints them, `all` for every one. A
 * plug-in's kinds are named `<plug-in>:<kind>` and are known once the plug-in is. Without a
 * selection every check runs; a finding of a check left out is not reported. Every request is sent
 * either way: what it is for does not change with the checks that read its response.
 */

/** The word that names every check. */
export const ALL_CHECKS = 'all';

/** Whether a finding kind is reported. */
export type CheckSelection = (kind: string) => boolean;

/** The names a selection takes, for the message about one it does not know. */
export const knownCheckNames = (): string => [ALL_CHECKS, ...FINDING_KINDS].join(', ');

/**
 * The selection `checks` (default `all`) less `excludeChecks`; a string saying which name is
 * unknown when one is. `plugins` are the names of the run's plug-ins, whose kinds may be named too.
 */
export function selectChecks(
  checks: readonly string[] | undefined,
  excludeChecks: readonly string[] | undefined,
  plugins: readonly string[] = [],
): CheckSelection | string {
  const known = (name: string): boolean =>
    name === ALL_CHECKS ||
    (FINDING_KINDS as readonly string[]).includes(name) ||
    plugins.some((plugin) => name.startsWith(`${plugin}:`) && name.length > plugin.length + 1);
  for (const [flag, names] of [
    ['--checks', checks],
    ['--exclude-checks', excludeChecks],
  ] as const) {
    const unknown = (names ?? []).find((name) => !known(name));
    if (unknown !== undefined)
      return `${flag}: no check is named "${unknown}": the checks are ${knownCheckNames()}${plugins.length > 0 ? `, and the kinds of the plug-ins ${plugins.join(', ')} (<plug-in>:<kind>)` : ''}`;
  }
  const included = checks === undefined || checks.length === 0 ? [ALL_CHECKS] : checks;
  const excluded = excludeChecks ?? [];
  const names = (list: readonly string[], kind: string): boolean => list.includes(ALL_CHECKS) || list.includes(kind);
  return (kind) => names(included, kind) && !names(excluded, kind);
}
