import { describe, expect, it } from 'vitest';
import { projectFiles, type ProjectFacts } from './project-files.js';

const FACTS: ProjectFacts = {
  name: 'schemes-api',
  title: 'Schemes API',
  document: 'openapi/openapi.yaml',
  securitySchemes: {
    bearer: { type: 'http', scheme: 'bearer' },
    basic: { type: 'http', scheme: 'basic' },
    headerKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    queryKey: { type: 'apiKey', in: 'query', name: 'api_key' },
    cookieKey: { type: 'apiKey', in: 'cookie', name: "o'session" },
    oauth: { type: 'oauth2', flows: ['clientCredentials'] },
    oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://id.test/.well-known/openid-configuration' },
  },
  operations: [],
  serverBase: '',
  dependencies: {},
  devDependencies: {},
  engines: {},
};

describe("a new project's files", () => {
  it('show, for each scheme, where the contract tests send its credential', () => {
    const credentials = projectFiles(FACTS).find((file) => file.path === 'test/credentials.ts')?.content ?? '';
    expect(credentials.split('\n').filter((line) => line.startsWith('  // "'))).toEqual([
      `  // "bearer": { header: { Authorization: 'Bearer …' } },`,
      `  // "basic": { header: { Authorization: 'Basic …' } },`,
      `  // "headerKey": { header: { 'X-API-Key': '…' } },`,
      `  // "queryKey": { query: { 'api_key': '…' } },`,
      `  // "cookieKey": { cookie: { 'o\\'session': '…' } },`,
      `  // "oauth": { header: { Authorization: 'Bearer …' } },`,
      `  // "oidc": { header: { Authorization: 'Bearer …' } },`,
    ]);
  });

  it('say above each verifier what it receives', () => {
    const security = projectFiles(FACTS).find((file) => file.path === 'server/security.ts')?.content ?? '';
    expect(security.split('\n').filter((line) => /^ {2}\/\/ \w+: /.test(line))).toEqual([
      '  // bearer: the bearer token of the Authorization header, `{ token }`.',
      '  // basic: HTTP Basic credentials, `{ username, password }`.',
      '  // headerKey: an API key, `{ key }`, from the header X-API-Key.',
      '  // queryKey: an API key, `{ key }`, from the query api_key.',
      "  // cookieKey: an API key, `{ key }`, from the cookie o'session.",
      '  // oauth: an OAuth 2.0 bearer token, `{ token }`; `context.scopes` lists the scopes the operation asks.',
      '  // oidc: an OAuth 2.0 bearer token, `{ token }`; `context.scopes` lists the scopes the operation asks.',
    ]);
  });
});
