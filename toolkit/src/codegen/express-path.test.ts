import { describe, expect, it } from 'vitest';
import { comparePaths, templateNames, toExpressPath } from './express-path.js';

describe('toExpressPath', () => {
  it.each([
    ['/pets/{id}', '/pets/:id'],
    ['/pets/{pet-id}', '/pets/:"pet-id"'],
    ['/files/{name}.{ext}', '/files/:name.:ext'],
    ['/files:upload', '/files\\:upload'],
    ['/search*(all)', '/search\\*\\(all\\)'],
    ['/a/{x}/b/{y.z}', '/a/:x/b/:"y.z"'],
  ])('%s → %s', (template, express) => {
    expect(toExpressPath(template)).toBe(express);
  });

  it('lists the names of a template in order', () => {
    expect(templateNames('/a/{x}/{pet-id}.{ext}')).toEqual(['x', 'pet-id', 'ext']);
  });
});

describe('comparePaths', () => {
  it('puts a fixed segment before a template in the same place, and a mixed one between', () => {
    const sorted = ['/pets/{id}', '/pets/{name}.json', '/pets/mine', '/pets', '/a/{x}/{y}', '/a/{x}/b'].sort(
      comparePaths,
    );
    expect(sorted.indexOf('/pets/mine')).toBeLessThan(sorted.indexOf('/pets/{name}.json'));
    expect(sorted.indexOf('/pets/{name}.json')).toBeLessThan(sorted.indexOf('/pets/{id}'));
    expect(sorted.indexOf('/a/{x}/b')).toBeLessThan(sorted.indexOf('/a/{x}/{y}'));
  });

  it('is a total order (antisymmetric)', () => {
    const paths = ['/a', '/a/{x}', '/a/b', '/b/{y}.{z}', '/b/{y}', '/'];
    for (const a of paths)
      for (const b of paths) expect(Math.sign(comparePaths(a, b)) + Math.sign(comparePaths(b, a))).toBe(0);
  });
});
