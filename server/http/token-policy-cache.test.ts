import { describe, expect, it } from 'vitest';
import { tokenIssueTime, tokenStillValid } from './token-policy-cache.js';

// Revocation with whole-second `iat`: a token issued up to the revocation is rejected, one issued
// after it works, including within the same second.

const ORG = 'org_a';

describe('tokenStillValid', () => {
  it.each([
    ['no revocation', { organizationId: ORG, tokensNotBefore: null }, ORG, 1_000, true],
    ['unknown client', undefined, ORG, 1_000, false],
    ['client of another organization', { organizationId: 'org_b', tokensNotBefore: null }, ORG, 1_000, false],
    [
      'issued a second before the revocation point',
      { organizationId: ORG, tokensNotBefore: 1_000_500 },
      ORG,
      999,
      false,
    ],
    [
      'issued in the second of the revocation point',
      { organizationId: ORG, tokensNotBefore: 1_000_500 },
      ORG,
      1_000,
      false,
    ],
    ['issued the second after', { organizationId: ORG, tokensNotBefore: 1_000_500 }, ORG, 1_001, true],
    [
      'issued exactly at a whole-second revocation point',
      { organizationId: ORG, tokensNotBefore: 1_000_000 },
      ORG,
      1_000,
      true,
    ],
  ] as const)('%s → %s', (_name, policy, organizationId, iat, valid) => {
    expect(tokenStillValid(policy, organizationId, iat)).toBe(valid);
  });
});

describe('tokenIssueTime and tokenStillValid together', () => {
  it.each([
    ['revoked at a whole second', 5_000_000],
    ['revoked mid-second', 5_000_437],
    ['revoked at the last millisecond of a second', 5_000_999],
  ])('%s: tokens issued up to it are rejected, tokens issued after it work', (_name, revokedAt) => {
    const notBefore = revokedAt + 1; // revokeClientTokens(nowMs) stores nowMs + 1
    const policy = { organizationId: ORG, tokensNotBefore: notBefore };
    for (let issuedAt = revokedAt - 1_500; issuedAt <= revokedAt + 1_500; issuedAt += 1) {
      const dated = issuedAt <= revokedAt ? issuedAt : tokenIssueTime(issuedAt, notBefore);
      const valid = tokenStillValid(policy, ORG, Math.floor(dated / 1000));
      if (valid !== issuedAt > revokedAt)
        throw new Error(`a token issued at ${issuedAt} is ${valid ? 'valid' : 'rejected'}`);
    }
  });

  it('dates tokens normally when nothing was revoked or the revocation second is over', () => {
    expect(tokenIssueTime(7_123, null)).toBe(7_123);
    expect(tokenIssueTime(7_123, 6_500)).toBe(7_123);
    expect(tokenIssueTime(7_123, 7_001)).toBe(8_000);
  });
});
