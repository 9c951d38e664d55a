import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

describe('the log never holds a secret', () => {
  it('redacts every secret field and header, at the top and one level down', () => {
    const lines: string[] = [];
    const logger = createLogger('info', { write: (line: string) => lines.push(line) });
    const secrets = {
      authorization: 'Bearer s1',
      client_secret: 's2',
      clientSecret: 's3',
      access_token: 's4',
      privateKeyPem: 's5',
      secretHash: 's6',
      password: 's7',
      passwordHash: 's8',
      csrfToken: 's9',
      cookie: 'dashboard_session=s10',
    };
    const headers = {
      authorization: 'Bearer h1',
      'x-partner-signature': 'h2',
      cookie: 'dashboard_session=h3',
      'set-cookie': 'dashboard_session=h4',
      'x-csrf-token': 'h5',
    };
    logger.info({ ...secrets, request: { ...secrets, headers } }, 'secrets');
    const text = lines.join('');
    for (const value of [...Object.values(secrets), ...Object.values(headers)])
      expect(text).not.toContain(value.replace(/^Bearer |^dashboard_session=/, ''));
    expect(text).toContain('[redacted]');
    expect(text).toContain('"msg":"secrets"');
  });
});
