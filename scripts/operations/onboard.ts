/**
 * `npm run onboard -- --name NAME [--balance CENTS] [--demo] [--public-key FILE] [--operator USERNAME] [--json] [--transactions N]`
 * creates an organization with one API client and one dashboard operator, and prints their
 * credentials once.
 *
 * DATABASE_URL selects the database as for the server. The embedded database (DATABASE_URL
 * unset) belongs to one process (README, "Design"): run this while the server is stopped. Against
 * PostgreSQL it runs at any time.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { onboardOrganization, OnboardingError, type OnboardingResult } from '../../server/onboarding.js';
import { randomIds, systemClock } from '../../server/clock-and-ids.js';
import { checkedUsername, OperatorError } from '../../server/operators.js';
import { openDatabase, type Database } from '../../server/database/open.js';
import { DatabaseLockedError } from '../../server/database/embedded/lock.js';
import { migrateToLatest } from '../../server/database/migrate.js';
import {
  insertBulkTransactions,
  seedSandboxData,
  type SandboxSummary,
} from '../../server/sandbox/demo-organization.js';
import { reportUsageError, UsageError, wholeNumberFlag } from 'contract-first/cli';

/** EGP 1,000,000.00 of sandbox money unless --balance says otherwise. */
const DEFAULT_BALANCE_CENTS = 100_000_000;
/** Ten million: far beyond any benchmark here, and a typo guard for an extra zero or three. */
const MAX_BULK_TRANSACTIONS = 10_000_000;

const USAGE = `Usage: npm run onboard -- --name NAME [options]

Creates an organization with an API client and prints the client id, the client secret and a
new RSA private key. The secret and the key are shown once: the service keeps only a hash of the
secret and the public key.

  --name NAME          the organization's name (required, 1 to 200 characters)
  --balance CENTS      opening sandbox balance in cents (default ${DEFAULT_BALANCE_CENTS}, EGP 1,000,000.00)
  --public-key FILE    use your own RSA public key (PEM, at least 2048 bits); no private key is printed
  --demo               add sandbox data: departments, card holders, 16 cards and about 300
                       transactions over the last 90 days
  --transactions N     also add N generated ledger records dated in the year before this month,
                       for benchmarks (implies --demo: the records belong to the sandbox cards)
  --operator USERNAME  the username of the first dashboard operator, an approver (default admin- and
                       the organization id's last 8 characters); their password is printed once
  --json               print only {"organizationId","clientId","clientSecret","privateKeyPem","scopes",
                       "operator":{"username","password","role"}}
  --help               show this text

The database is DATABASE_URL (postgres://...), or the embedded database under ./.data/ when it is
unset; the embedded database must not be open in a running server at the same time.`;

interface Options {
  readonly name: string;
  readonly balanceCents: number;
  readonly publicKeyFile: string | undefined;
  readonly demo: boolean;
  readonly transactions: number;
  readonly json: boolean;
  readonly operator: string | undefined;
}

function parseOptions(argv: string[]): Options | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        name: { type: 'string' },
        balance: { type: 'string' },
        'public-key': { type: 'string' },
        demo: { type: 'boolean' },
        transactions: { type: 'string' },
        json: { type: 'boolean' },
        operator: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  if (values.help === true) return 'help';
  const name = values.name?.trim();
  if (name === undefined || name === '') throw new UsageError('--name is required.');
  const transactions = wholeNumberFlag('--transactions', values.transactions, 0, MAX_BULK_TRANSACTIONS, 0);
  return {
    name,
    balanceCents: wholeNumberFlag('--balance', values.balance, 0, Number.MAX_SAFE_INTEGER, DEFAULT_BALANCE_CENTS),
    publicKeyFile: values['public-key'],
    demo: values.demo === true || transactions > 0,
    transactions,
    json: values.json === true,
    operator: values.operator,
  };
}

function describe(result: OnboardingResult, name: string, sandbox: SandboxSummary | undefined): string {
  const lines = [
    `Organization "${name}" onboarded: ${result.organizationId}`,
    '',
    `  client id:     ${result.clientId}`,
    `  client secret: ${result.clientSecret}`,
    `  scopes:        ${result.scopes.join(' ')}`,
  ];
  if (sandbox !== undefined) {
    lines.push(
      `  sandbox data:  ${sandbox.departments} departments, ${sandbox.cardHolders} card holders, ` +
        `${sandbox.cards} cards, ${sandbox.transactions} transactions`,
    );
  }
  lines.push(
    '',
    `  dashboard:     /dashboard, operator ${result.operator.operator.username} (${result.operator.operator.role})`,
    `  password:      ${result.operator.password}`,
    '',
    'The client secret and the password are shown only this once: keep them now. More operators:',
    'npm run operator -- add --organization ' + result.organizationId + ' --username NAME.',
  );
  if (result.privateKeyPem !== undefined) {
    lines.push(
      'The private key below signs your write requests ("Signed write requests" in the API',
      'reference). It is shown only this once and the service keeps only the public key: save it',
      'to a file with restricted permissions.',
      '',
      result.privateKeyPem.trimEnd(),
    );
  } else {
    lines.push('Sign write requests with the private key of the public key you gave.');
  }
  return lines.join('\n');
}

async function run(options: Options): Promise<void> {
  const publicKeyPem =
    options.publicKeyFile === undefined
      ? undefined
      : await readFile(options.publicKeyFile, 'utf8').catch(() => {
          throw new UsageError(`Cannot read the public key file ${options.publicKeyFile ?? ''}.`);
        });
  // Progress goes to stderr so that stdout holds only the result (and with --json only the JSON).
  const progress = (message: string): void => {
    process.stderr.write(`${message}\n`);
  };

  // A username that cannot be one is rejected before a database is opened (or, embedded, created).
  if (options.operator !== undefined) checkedUsername(options.operator);
  const database: Database = await openDatabase({ url: process.env['DATABASE_URL'] || undefined });
  try {
    await migrateToLatest(database.db);
    const result = await onboardOrganization(
      database.db,
      { ids: randomIds, clock: systemClock },
      {
        name: options.name,
        balanceCents: options.balanceCents,
        publicKeyPem,
        operatorUsername: options.operator,
      },
    );
    const now = systemClock.now();
    let sandbox: SandboxSummary | undefined;
    if (options.demo) {
      sandbox = await seedSandboxData(database.db, { organizationId: result.organizationId, now });
    }
    if (options.transactions > 0) {
      progress(`Adding ${options.transactions} ledger records...`);
      const started = performance.now();
      const { inserted } = await insertBulkTransactions(database.db, {
        organizationId: result.organizationId,
        count: options.transactions,
        now,
      });
      const seconds = (performance.now() - started) / 1000;
      progress(
        `Added ${inserted} ledger records in ${seconds.toFixed(1)} s (${Math.round(inserted / seconds)} a second).`,
      );
    }
    if (options.json) {
      const { organizationId, clientId, clientSecret, privateKeyPem, scopes } = result;
      const operator = {
        username: result.operator.operator.username,
        password: result.operator.password,
        role: result.operator.operator.role,
      };
      process.stdout.write(
        `${JSON.stringify({ organizationId, clientId, clientSecret, privateKeyPem: privateKeyPem ?? null, scopes, operator })}\n`,
      );
    } else {
      process.stdout.write(`${describe(result, options.name, sandbox)}\n`);
    }
  } finally {
    await database.close();
  }
}

async function main(argv: string[]): Promise<number> {
  let options: Options | 'help';
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return reportUsageError(error.message, USAGE);
  }
  if (options === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    await run(options);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      return reportUsageError(error.message, USAGE);
    }
    // Errors that say what to do: a held embedded database, a bad key, name, balance or username.
    if (error instanceof DatabaseLockedError || error instanceof OnboardingError || error instanceof OperatorError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
