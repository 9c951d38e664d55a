import { createPartnerClient, type Fetch, type PartnerClient, type PartnerClientOptions } from '../../client/index.js';
import type { Partner, TestApp } from '../../scripts/proof/app.js';

/** Counts what the SDK sends, by path, over the real global fetch. */
export interface CountingFetch {
  readonly fetch: Fetch;
  readonly tokenRequests: () => number;
  readonly requests: string[];
}

export function countingFetch(inner: Fetch = (request) => fetch(request)): CountingFetch {
  const requests: string[] = [];
  return {
    requests,
    tokenRequests: () => requests.filter((entry) => entry === 'POST /v1/oauth/token').length,
    fetch: (request) => {
      requests.push(`${request.method} ${new URL(request.url).pathname}`);
      return inner(request);
    },
  };
}

/** The SDK for an onboarded partner of a test app, on the app's clock unless told otherwise. */
export function sdkFor(app: TestApp, partner: Partner, options: Partial<PartnerClientOptions> = {}): PartnerClient {
  if (partner.privateKeyPem === undefined) throw new Error('the partner needs the private key made at onboarding');
  return createPartnerClient({
    baseUrl: app.baseUrl,
    clientId: partner.clientId,
    clientSecret: partner.clientSecret,
    privateKeyPem: partner.privateKeyPem,
    clock: app.clock,
    // Real retries, without real waiting.
    sleep: async () => {},
    ...options,
  });
}

export const transferTo = (accountNumber: string, amountCents = 100_00, bankId = 'nbe') =>
  ({
    amountCents,
    currency: 'EGP',
    bankId,
    accountNumber,
    accountName: 'Nile Supplies',
    category: 'LOGISTICS',
  }) as const;

/** Valid 29-character Egyptian IBANs (mod-97 checked): one that settles, one the sandbox fails (ends 0002). */
export const SUCCEEDING_IBAN = 'EG650019000500000000263180001';
export const FAILING_IBAN = 'EG380019000500000000263180002';
