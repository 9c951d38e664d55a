import { describe, expect, it } from 'vitest';
import { FINDING_KINDS } from './judge.js';
import { selectChecks, type CheckSelection } from './selection.js';

const selection = (...args: Parameters<typeof selectChecks>): CheckSelection => {
  const selected = selectChecks(...args);
  if (typeof selected === 'string') throw new Error(selected);
  return selected;
};
const chosen = (selected: CheckSelection): string[] => FINDING_KINDS.filter((kind) => selected(kind));

describe('selecting checks', () => {
  it('runs every check without a selection, or with all', () => {
    expect(chosen(selection(undefined, undefined))).toEqual([...FINDING_KINDS]);
    expect(chosen(selection(['all'], []))).toEqual([...FINDING_KINDS]);
  });

  it('runs only the checks named, less those left out', () => {
    expect(chosen(selection(['ignored-auth', 'response-body'], undefined))).toEqual(['response-body', 'ignored-auth']);
    expect(chosen(selection(undefined, ['ignored-auth', 'hang']))).toEqual(
      FINDING_KINDS.filter((kind) => kind !== 'ignored-auth' && kind !== 'hang'),
    );
    expect(chosen(selection(['server-error'], ['all']))).toEqual([]);
  });

  it('names a plug-in kind by its plug-in', () => {
    const selected = selection(['shop:request-id'], undefined, ['shop']);
    expect(selected('shop:request-id')).toBe(true);
    expect(selected('shop:other')).toBe(false);
    expect(selected('server-error')).toBe(false);
    expect(selection(undefined, undefined, ['shop'])('shop:other')).toBe(true);
  });

  it('says which name is unknown, and lists the known ones', () => {
    expect(selectChecks(['server-error', 'ignored_auth'], undefined)).toBe(
      `--checks: no check is named "ignored_auth": the checks are all, ${FINDING_KINDS.join(', ')}`,
    );
    expect(selectChecks(undefined, ['shop:x'])).toMatch(/^--exclude-checks: no check is named "shop:x"/);
    expect(selectChecks(undefined, ['shop:'], ['shop'])).toMatch(/kinds of the plug-ins shop/);
  });
});
