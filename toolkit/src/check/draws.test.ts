import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DrawStream, streamSeed } from './draws.js';

describe('draw streams', () => {
  const arbitrary = fc.record({ name: fc.string(), tags: fc.array(fc.integer()) });

  it("give the value fc.check starts from at the same seed and path (a finding's case is replayed as it was)", async () => {
    const draws = new DrawStream(arbitrary, 1234);
    for (const index of [0, 3, 70, 200]) {
      let first: unknown;
      await fc.check(
        fc.asyncProperty(arbitrary, async (value) => {
          first ??= value;
          return true;
        }),
        { seed: 1234, path: String(index), numRuns: 1 },
      );
      expect(first).toEqual(draws.at(index));
    }
  });

  it('gives the same values in any order of asking', () => {
    const forwards = new DrawStream(arbitrary, 9);
    const values = Array.from({ length: 150 }, (_, index) => forwards.at(index));
    const backwards = new DrawStream(arbitrary, 9);
    for (let index = 149; index >= 0; index -= 5) expect(backwards.at(index)).toEqual(values[index]);
  });

  it('seeds each stream of each operation apart, the same way every run', () => {
    expect(streamSeed(1, 'listPets', 'valid')).toBe(streamSeed(1, 'listPets', 'valid'));
    expect(
      new Set([
        streamSeed(1, 'listPets', 'valid'),
        streamSeed(1, 'listPets', 'invalid'),
        streamSeed(2, 'listPets', 'valid'),
        streamSeed(1, 'getPet', 'valid'),
      ]).size,
    ).toBe(4);
    expect(Number.isInteger(streamSeed(1, 'x', 'y'))).toBe(true);
  });
});
