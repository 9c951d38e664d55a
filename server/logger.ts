import { pino } from 'pino';

/** The subset of pino the service uses; tests pass a silent one. */
export interface Logger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
  debug(object: object, message?: string): void;
  isLevelEnabled(level: string): boolean;
}

/**
 * Header and field names whose values are secrets (tokens, client secrets, signatures, the
 * dashboard's passwords, session cookies and CSRF tokens): pino replaces them wherever they appear
 * in a logged object, so a careless log line cannot leak one.
 */
export const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  '*["x-partner-signature"]',
  '*.headers["x-partner-signature"]',
  'client_secret',
  '*.client_secret',
  'clientSecret',
  '*.clientSecret',
  'access_token',
  '*.access_token',
  'privateKeyPem',
  '*.privateKeyPem',
  'secretHash',
  '*.secretHash',
  'password',
  '*.password',
  'passwordHash',
  '*.passwordHash',
  'csrfToken',
  '*.csrfToken',
  'cookie',
  '*.cookie',
  '*.headers.cookie',
  '*["set-cookie"]',
  '*.headers["set-cookie"]',
  '*["x-csrf-token"]',
  '*.headers["x-csrf-token"]',
];

/**
 * Lines go to stdout synchronously, as Node itself writes to a pipe or a file on Linux: the last
 * line before `process.exit` (the shutdown's 'stopped', a fatal error) is never lost in a buffer.
 */
export function createLogger(
  level: string = 'info',
  destination: pino.DestinationStream = pino.destination({ dest: 1, sync: true }),
): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}

export const silentLogger: Logger = pino({ level: 'silent' });
