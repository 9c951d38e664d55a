import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheValidatorRouteMatchers } from './validator.js';

const require = createRequire(import.meta.url);
const pathToRegexpModule = require(
  require.resolve('path-to-regexp', { paths: [dirname(require.resolve('express-openapi-validator'))] }),
) as { pathToRegexp: (path: string, options?: object) => { regexp: RegExp; keys: { name: string }[] } };

describe('the validator route-matcher cache', () => {
  it('answers what path-to-regexp answers, compiled once per path and options', () => {
    const original = pathToRegexpModule.pathToRegexp;
    const fresh = original('/v1/transfer/:id/cancel', { sensitive: true, strict: false });
    cacheValidatorRouteMatchers();
    cacheValidatorRouteMatchers(); // a second app in the same process wraps nothing twice
    const cached = pathToRegexpModule.pathToRegexp;
    const first = cached('/v1/transfer/:id/cancel', { sensitive: true, strict: false });
    expect(first.regexp.source).toBe(fresh.regexp.source);
    expect(first.regexp.flags).toBe(fresh.regexp.flags);
    expect(first.keys).toEqual(fresh.keys);
    expect(cached('/v1/transfer/:id/cancel', { sensitive: true, strict: false })).toBe(first);
    // Other options or another path: another matcher.
    const insensitive = cached('/v1/transfer/:id/cancel', { sensitive: false, strict: false });
    expect(insensitive).not.toBe(first);
    expect(insensitive.regexp.test('/V1/TRANSFER/x/CANCEL')).toBe(true);
    expect(first.regexp.test('/V1/TRANSFER/x/CANCEL')).toBe(false);
    expect(first.regexp.exec('/v1/transfer/trf_1/cancel')?.[1]).toBe('trf_1');
    expect(cached('/v1/card/:id', { sensitive: true, strict: false }).regexp.test('/v1/transfer/trf_1/cancel')).toBe(false);
  });
});
