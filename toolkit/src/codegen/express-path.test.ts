import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { comparePaths, literalExpressPath, templateNames, toExpressPath } from './express-path.js';

describe('toExpressPath', () => {
  it.each([
    ['/pets/{id}', '/pets/:id'],
    ['/pets/{pet-id}', '/pets/:"pet-id"'],
    ['/files/{name}.{ext}', '/files/:name.:ext'],
    ['/files:upload', '/files\\:upload'],
    ['/search*(all)', '/search\\*\\(all\\)'],
    ['/a/{x}/b/{y.z}', '/a/:x/b/:"y.z"'],
    ['/a+b/{id}[0]', '/a\\+b/:id\\[0\\]'],
  ])('%s → %s', (template, express) => {
    expect(toExpressPath(template)).toBe(express);
  });

  it('lists the names of a template in order', () => {
    expect(templateNames('/a/{x}/{pet-id}.{ext}')).toEqual(['x', 'pet-id', 'ext']);
  });
});

describe('literalExpressPath', () => {
  // Every character a URL path carries as it is (RFC 3986 pchar): what else a path holds, a client percent-encodes.
  const LITERAL = ['/rest/Train+Travel+API/1.0.0', "/a(b)/f*/g!/h:i/j,k;l=m@n&o'p$q", '/v1/~user/%20x'];

  it('writes each character path-to-regexp reserves after a backslash, and leaves the rest', () => {
    expect(literalExpressPath('/rest/Train+Travel+API/1.0.0')).toBe('/rest/Train\\+Travel\\+API/1.0.0');
    expect(literalExpressPath('/v1/~user/%20x')).toBe('/v1/~user/%20x');
  });

  it('gives paths that Express mounts and matches character for character', async () => {
    const app = express();
    LITERAL.forEach((path, index) => {
      app.get(`${literalExpressPath(path)}/:id`, (req, res) => {
        res.json({ index, id: req.params['id'] });
      });
    });
    const listening = app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => listening.once('listening', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
      for (const [index, path] of LITERAL.entries()) {
        const response = await fetch(`${url}${path}/7`);
        expect(await response.json()).toEqual({ index, id: '7' });
        expect((await fetch(`${url}${path.slice(0, -1)}/7`)).status).toBe(404);
      }
    } finally {
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    }
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
