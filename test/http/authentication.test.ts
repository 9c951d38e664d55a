import { SignJWT, base64url } from 'jose';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../server/domain/tokens.js';
import { CLIENT_POLICY_CACHE_MS } from '../../server/http/token-policy-cache.js';
import { revokeClientTokens } from '../../server/store/organizations.js';
import { startTestApp, type Partner, type TestApp } from '../../scripts/proof/app.js';
import { expectError, type ErrorJson } from './support.js';

// The token endpoint (client credentials, Basic and post authentication, scopes,
// the failure lock-out) and the bearer check (401 / 403 with their challenges), plus revocation.

let app: TestApp;
let partner: Partner;

beforeAll(async () => {
  app = await startTestApp();
  partner = await app.onboard({ name: 'Token Partner' });
});
afterAll(async () => {
  await app.close();
});

const ALL_SCOPES = 'cards:read cards:write transfers:read transfers:write';

function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

function tokenRequest(
  body: Record<string, string>,
  options: { authorization?: string; query?: string; contentType?: string; rawBody?: string } = {},
): Promise<Response> {
  return fetch(`${app.baseUrl}/v1/oauth/token${options.query ?? ''}`, {
    method: 'POST',
    headers: {
      'Content-Type': options.contentType ?? 'application/x-www-form-urlencoded',
      ...(options.authorization !== undefined ? { Authorization: options.authorization } : {}),
    },
    body: options.rawBody ?? new URLSearchParams(body).toString(),
  });
}

async function expectTokenError(response: Response, status: number, type: string, error: string): Promise<ErrorJson> {
  const body = await expectError(response, status, type);
  expect(body.error).toBe(error);
  return body;
}

interface TokenJson {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

async function expectToken(response: Response, scope: string): Promise<string> {
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('pragma')).toBe('no-cache');
  const body = (await response.json()) as TokenJson;
  expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, scope });
  return body.access_token;
}

describe('POST /v1/oauth/token', () => {
  describe('happy', () => {
    it('authenticates the client with HTTP Basic and grants every scope by default', async () => {
      const response = await tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization: basic(partner.clientId, partner.clientSecret) },
      );
      const token = await expectToken(response, ALL_SCOPES);
      expect((await partner.request('GET', '/v1/transfer', { token })).status).toBe(200);
    });

    it('authenticates the client with client_id and client_secret in the body', async () => {
      const response = await tokenRequest({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: partner.clientSecret,
      });
      await expectToken(response, ALL_SCOPES);
    });

    it('grants a requested subset of the scopes, and the token carries only those', async () => {
      const response = await tokenRequest(
        { grant_type: 'client_credentials', scope: 'transfers:read cards:read' },
        { authorization: basic(partner.clientId, partner.clientSecret) },
      );
      const token = await expectToken(response, 'cards:read transfers:read');
      expect((await partner.request('GET', '/v1/transfer', { token })).status).toBe(200);
      await expectError(await partner.request('POST', '/v1/transfer', { token, body: {} }), 403, 'Unauthorized');
    });

    it('issues a token that a second instance sharing the database verifies', async () => {
      const second = await app.startInstance();
      try {
        const token = await partner.token();
        const response = await second.as(partner).request('GET', '/v1/transfer', { token });
        expect(response.status).toBe(200);
        // And the other way round.
        const other = await second.as(partner).token();
        expect((await partner.request('GET', '/v1/transfer', { token: other })).status).toBe(200);
      } finally {
        await second.close();
      }
    });
  });

  describe('errors', () => {
    it.each([
      ['missing grant_type', {}, 'invalid_request'],
      ['grant_type password', { grant_type: 'password' }, 'unsupported_grant_type'],
      ['grant_type authorization_code', { grant_type: 'authorization_code' }, 'unsupported_grant_type'],
      ['an unknown form field', { grant_type: 'client_credentials', audience: 'x' }, 'invalid_request'],
    ])('%s → 400 InvalidRequest %s', async (_name, body, error) => {
      const response = await tokenRequest(body, { authorization: basic(partner.clientId, partner.clientSecret) });
      await expectTokenError(response, 400, 'InvalidRequest', error);
      expect(response.headers.get('www-authenticate')).toBeNull();
    });

    let readOnly: Partner | undefined;

    it('both Basic and body credentials at once → 400 invalid_request', async () => {
      const response = await tokenRequest(
        { grant_type: 'client_credentials', client_id: partner.clientId, client_secret: partner.clientSecret },
        { authorization: basic(partner.clientId, partner.clientSecret) },
      );
      await expectTokenError(response, 400, 'InvalidRequest', 'invalid_request');
    });

    it.each([
      ['a scope that does not exist', 'admin'],
      ['a scope not granted to this client', 'transfers:write'],
      ['one granted and one not', 'cards:read transfers:write'],
    ])('%s → 400 invalid_scope', async (_name, scope) => {
      readOnly ??= await app.onboard({ name: 'Read-only Partner', scopes: ['cards:read', 'transfers:read'] });
      const response = await tokenRequest(
        { grant_type: 'client_credentials', scope },
        { authorization: basic(readOnly.clientId, readOnly.clientSecret) },
      );
      await expectTokenError(response, 400, 'InvalidRequest', 'invalid_scope');
    });

    it('a wrong secret with Basic → 401 invalid_client with a Basic challenge', async () => {
      const response = await tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization: basic(partner.clientId, 'wrong-secret') },
      );
      await expectTokenError(response, 401, 'Unauthorized', 'invalid_client');
      expect(response.headers.get('www-authenticate')).toMatch(/^Basic /);
      expect(response.headers.get('cache-control')).toBe('no-store');
    });

    it('a wrong secret in the body → 401 invalid_client without a Basic challenge', async () => {
      const response = await tokenRequest({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: 'wrong-secret',
      });
      await expectTokenError(response, 401, 'Unauthorized', 'invalid_client');
      expect(response.headers.get('www-authenticate')).toBeNull();
    });

    it.each([
      [
        'an unknown client with Basic',
        { grant_type: 'client_credentials' },
        basic('cli_doesnotexist000000000000', 'whatever'),
      ],
      [
        'an unknown client in the body',
        { grant_type: 'client_credentials', client_id: 'cli_doesnotexist000000000000', client_secret: 'x' },
        undefined,
      ],
      ['no client authentication at all', { grant_type: 'client_credentials' }, undefined],
      [
        'a Basic header that is not id:secret',
        { grant_type: 'client_credentials' },
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
      ],
      ['a bearer token instead of client credentials', { grant_type: 'client_credentials' }, 'Bearer abc.def.ghi'],
    ])('%s → 401 invalid_client', async (_name, body, authorization) => {
      const response = await tokenRequest(body, authorization === undefined ? {} : { authorization });
      await expectTokenError(response, 401, 'Unauthorized', 'invalid_client');
    });

    it('the same response for an unknown client and a wrong secret: no client enumeration', async () => {
      const unknown = await (
        await tokenRequest(
          { grant_type: 'client_credentials' },
          { authorization: basic('cli_doesnotexist000000000001', 'x') },
        )
      ).json();
      const wrong = await (
        await tokenRequest({ grant_type: 'client_credentials' }, { authorization: basic(partner.clientId, 'x') })
      ).json();
      expect(unknown).toEqual(wrong);
    });

    it('a JSON body → 415 with the OAuth error code', async () => {
      const response = await tokenRequest(
        {},
        {
          contentType: 'application/json',
          rawBody: JSON.stringify({
            grant_type: 'client_credentials',
            client_id: partner.clientId,
            client_secret: partner.clientSecret,
          }),
        },
      );
      await expectTokenError(response, 415, 'InvalidRequest', 'invalid_request');
    });
  });

  describe('security', () => {
    it('rejects credentials in the query string, even when they are right', async () => {
      const query = `?client_id=${partner.clientId}&client_secret=${encodeURIComponent(partner.clientSecret)}`;
      await expectTokenError(
        await tokenRequest({ grant_type: 'client_credentials' }, { query }),
        400,
        'InvalidRequest',
        'invalid_request',
      );
      const withBasic = await tokenRequest(
        { grant_type: 'client_credentials' },
        { query, authorization: basic(partner.clientId, partner.clientSecret) },
      );
      await expectTokenError(withBasic, 400, 'InvalidRequest', 'invalid_request');
      const grantInQuery = await tokenRequest(
        {},
        { query: '?grant_type=client_credentials', authorization: basic(partner.clientId, partner.clientSecret) },
      );
      await expectTokenError(grantInQuery, 400, 'InvalidRequest', 'invalid_request');
    });

    it('locks a client id out after 10 failures within a minute: the 11th attempt is 429 with Retry-After', async () => {
      const victim = await app.onboard({ name: 'Lock-out Partner' });
      for (let attempt = 1; attempt <= 10; attempt += 1) {
        const response = await tokenRequest(
          { grant_type: 'client_credentials' },
          { authorization: basic(victim.clientId, `wrong-${attempt}`) },
        );
        await expectTokenError(response, 401, 'Unauthorized', 'invalid_client');
        app.clock.advance(1_000);
      }
      const eleventh = await tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization: basic(victim.clientId, 'wrong-11') },
      );
      await expectTokenError(eleventh, 429, 'InvalidRequest', 'invalid_client');
      // The window opened with the first failure 10 s ago: 50 s remain.
      expect(eleventh.headers.get('retry-after')).toBe('50');
      expect(eleventh.headers.get('cache-control')).toBe('no-store');

      // Locked out even with the right secret, in either authentication method.
      const right = await tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization: basic(victim.clientId, victim.clientSecret) },
      );
      await expectTokenError(right, 429, 'InvalidRequest', 'invalid_client');
      const post = await tokenRequest({
        grant_type: 'client_credentials',
        client_id: victim.clientId,
        client_secret: victim.clientSecret,
      });
      await expectTokenError(post, 429, 'InvalidRequest', 'invalid_client');

      // Other clients are not affected.
      await expectToken(
        await tokenRequest(
          { grant_type: 'client_credentials' },
          { authorization: basic(partner.clientId, partner.clientSecret) },
        ),
        ALL_SCOPES,
      );

      // Once the minute is over the right secret works again.
      app.clock.advance(50_000);
      await expectToken(
        await tokenRequest(
          { grant_type: 'client_credentials' },
          { authorization: basic(victim.clientId, victim.clientSecret) },
        ),
        ALL_SCOPES,
      );
    });

    it('locks out an unknown client id the same way, so a 429 does not reveal which ids exist', async () => {
      const unknown = `cli_${'z'.repeat(24)}`;
      for (let attempt = 1; attempt <= 10; attempt += 1) {
        await expectTokenError(
          await tokenRequest({ grant_type: 'client_credentials', client_id: unknown, client_secret: 'guess' }),
          401,
          'Unauthorized',
          'invalid_client',
        );
      }
      const eleventh = await tokenRequest({
        grant_type: 'client_credentials',
        client_id: unknown,
        client_secret: 'guess',
      });
      await expectTokenError(eleventh, 429, 'InvalidRequest', 'invalid_client');
      expect(eleventh.headers.get('retry-after')).toBe('60');
    });

    it('a success resets the failure count', async () => {
      const client = await app.onboard({ name: 'Reset Partner' });
      for (let attempt = 0; attempt < 9; attempt += 1) {
        await tokenRequest({ grant_type: 'client_credentials' }, { authorization: basic(client.clientId, 'wrong') });
      }
      await expectToken(
        await tokenRequest(
          { grant_type: 'client_credentials' },
          { authorization: basic(client.clientId, client.clientSecret) },
        ),
        ALL_SCOPES,
      );
      // Without the reset the second of these would be the 11th failure, and a 429.
      for (let attempt = 0; attempt < 2; attempt += 1) {
        await expectTokenError(
          await tokenRequest({ grant_type: 'client_credentials' }, { authorization: basic(client.clientId, 'wrong') }),
          401,
          'Unauthorized',
          'invalid_client',
        );
      }
    });

    it('never echoes the secret', async () => {
      const response = await tokenRequest({
        grant_type: 'client_credentials',
        client_id: partner.clientId,
        client_secret: 'not-the-secret-1234',
      });
      const text = await response.text();
      expect(text).not.toContain('not-the-secret-1234');
      const good = await tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization: basic(partner.clientId, partner.clientSecret) },
      );
      expect(await good.text()).not.toContain(partner.clientSecret);
    });
  });
});

describe('bearer tokens', () => {
  async function expectBearer401(response: Response): Promise<void> {
    await expectError(response, 401, 'Unauthorized');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
  }

  const claims = (clientId: string, organizationId: string, nowSeconds: number) => ({
    org: organizationId,
    scope: ALL_SCOPES,
    sub: clientId,
    iss: 'partner-payments-service',
    aud: 'partner-api',
    iat: nowSeconds,
    exp: nowSeconds + 3600,
  });

  it.each([
    ['no Authorization header', undefined],
    ['an empty bearer', 'Bearer '],
    ['a scheme other than Bearer', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['garbage', 'Bearer not-a-jwt'],
    ['three garbage parts', 'Bearer abc.def.ghi'],
    ['a token with a space inside', 'Bearer abc def'],
  ])('%s → 401 with WWW-Authenticate: Bearer', async (_name, authorization) => {
    const response = await fetch(`${app.baseUrl}/v1/transfer`, {
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });
    await expectBearer401(response);
  });

  it('an expired token → 401 (the clock moves past its hour)', async () => {
    const clock = app.clock;
    const token = await partner.token();
    clock.advance((ACCESS_TOKEN_TTL_SECONDS - 1) * 1000);
    expect((await partner.request('GET', '/v1/transfer', { token })).status).toBe(200);
    clock.advance(2_000);
    const response = await partner.request('GET', '/v1/transfer', { token });
    await expectBearer401(response);
    expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('a token signed with another key → 401', async () => {
    const now = Math.floor(app.clock.now() / 1000);
    const forged = await new SignJWT(claims(partner.clientId, partner.organizationId, now))
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(randomBytes(32));
    await expectBearer401(await partner.request('GET', '/v1/transfer', { token: forged }));
  });

  it('an unsigned token (alg: none) → 401', async () => {
    const now = Math.floor(app.clock.now() / 1000);
    const encode = (value: object): string => base64url.encode(JSON.stringify(value));
    const unsigned = `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims(partner.clientId, partner.organizationId, now))}.`;
    await expectBearer401(await partner.request('GET', '/v1/transfer', { token: unsigned }));
  });

  it('a valid token whose claims were edited (another organization) → 401', async () => {
    const other = await app.onboard({ name: 'Other Org' });
    const token = await partner.token();
    const [header, payload, signature] = token.split('.');
    const edited = {
      ...(JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as object),
      org: other.organizationId,
    };
    const tampered = `${header}.${base64url.encode(JSON.stringify(edited))}.${signature}`;
    await expectBearer401(await partner.request('GET', '/v1/transfer', { token: tampered }));
  });

  it('a token lacking the scope → 403 insufficient_scope, on reads and writes alike', async () => {
    const cardsOnly = await partner.token('cards:read');
    const read = await partner.request('GET', '/v1/transfer', { token: cardsOnly });
    await expectError(read, 403, 'Unauthorized');
    expect(read.headers.get('www-authenticate')).toMatch(/^Bearer .*error="insufficient_scope"/);
    expect(read.headers.get('www-authenticate')).toContain('transfers:read');

    const readOnly = await partner.token('transfers:read');
    // The scope is checked before the write headers: no write headers at all, still 403.
    const write = await partner.request('POST', '/v1/transfer', { token: readOnly, signed: false, body: {} });
    await expectError(write, 403, 'Unauthorized');
    expect(write.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  it('the bank list needs no token, and ignores a bad one', async () => {
    expect((await fetch(`${app.baseUrl}/v1/bank`)).status).toBe(200);
    expect((await fetch(`${app.baseUrl}/v1/bank`, { headers: { Authorization: 'Bearer garbage' } })).status).toBe(200);
  });
});

describe('token revocation', () => {
  it('rejects tokens issued before the revocation; a token issued right after works at once', async () => {
    const client = await app.onboard({ name: 'Revoked Partner' });
    const before = await client.token();
    // Revoke in the same millisecond, before the service has looked at this client at all.
    await revokeClientTokens(app.db, client.clientId, app.clock.now());
    const after = await client.token();

    const rejected = await client.request('GET', '/v1/transfer', { token: before });
    await expectError(rejected, 401, 'Unauthorized');
    expect(rejected.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await client.request('GET', '/v1/transfer', { token: after })).status).toBe(200);
    // Writes too.
    await expectError(await client.request('POST', '/v1/transfer', { token: before, body: {} }), 401, 'Unauthorized');
  });

  it('reaches every instance within the client cache time', async () => {
    const client = await app.onboard({ name: 'Revoked Everywhere' });
    const second = await app.startInstance();
    try {
      const token = await client.token();
      const other = second.as(client);
      // Both instances have looked the client up.
      expect((await client.request('GET', '/v1/transfer', { token })).status).toBe(200);
      expect((await other.request('GET', '/v1/transfer', { token })).status).toBe(200);
      await revokeClientTokens(app.db, client.clientId, app.clock.now());
      app.clock.advance(CLIENT_POLICY_CACHE_MS);
      await expectError(await client.request('GET', '/v1/transfer', { token }), 401, 'Unauthorized');
      await expectError(await other.request('GET', '/v1/transfer', { token }), 401, 'Unauthorized');
      const fresh = await client.token();
      expect((await other.request('GET', '/v1/transfer', { token: fresh })).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('the test app revokes in one step (what the SDK suites use)', async () => {
    const client = await app.onboard({ name: 'Helper Revoked' });
    const token = await client.token();
    expect((await client.request('GET', '/v1/transfer', { token })).status).toBe(200);
    await app.revokeTokens(client.clientId);
    await expectError(await client.request('GET', '/v1/transfer', { token }), 401, 'Unauthorized');
    expect((await client.request('GET', '/v1/transfer', { token: await client.token() })).status).toBe(200);
  });

  it('rejects the tokens of a client that no longer exists', async () => {
    const client = await app.onboard({ name: 'Removed Partner' });
    const token = await client.token();
    await app.db.deleteFrom('client_keys').where('client_id', '=', client.clientId).execute();
    await app.db.deleteFrom('clients').where('id', '=', client.clientId).execute();
    app.clock.advance(CLIENT_POLICY_CACHE_MS);
    await expectError(await client.request('GET', '/v1/transfer', { token }), 401, 'Unauthorized');
    await expectError(
      await tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization: basic(client.clientId, client.clientSecret) },
      ),
      401,
      'Unauthorized',
    );
  });
});
