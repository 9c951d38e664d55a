/**
 * The benchmark's organizations for traffic spread over several of them (run by database.ts as its
 * own process, like onboarding: the embedded database belongs to one process at a time).
 *
 *   node --import tsx scripts/bench/seed-organizations.ts --organization ORG --more N --seeds S --transactions T --balance CENTS
 *
 * Adds S - 1 more rounds of sandbox data (16 cards, their holders and their 90-day ledger each,
 * from another seed) to the organization already onboarded, and onboards N more organizations,
 * each with S rounds of sandbox data and T bulk ledger records, through the same functions as
 * `npm run onboard -- --demo --transactions T`. Prints the new organizations' credentials as a
 * JSON array on stdout; progress goes to stderr. DATABASE_URL selects the database as for the server.
 */
import { randomIds, systemClock } from '../../server/clock-and-ids.js';
import { onboardOrganization } from '../../server/onboarding.js';
import {
  DEFAULT_SANDBOX_SEED,
  insertBulkTransactions,
  seedSandboxData,
} from '../../server/sandbox/demo-organization.js';
import { openDatabase } from '../../server/database/open.js';
import type { Onboarded } from './database.js';
import { parseFlags, runAsMain, wholeNumberFlag } from 'contract-first/cli';

const USAGE =
  'Usage: node --import tsx scripts/bench/seed-organizations.ts --organization ORG --more N --seeds S --transactions T --balance CENTS';

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    {
      organization: { type: 'string' },
      more: { type: 'string' },
      seeds: { type: 'string' },
      transactions: { type: 'string' },
      balance: { type: 'string' },
      help: { type: 'boolean' },
    },
    USAGE,
  );
  if (typeof values === 'number') return values;
  const more = wholeNumberFlag('--more', values.more, 0, Number.MAX_SAFE_INTEGER);
  const seeds = wholeNumberFlag('--seeds', values.seeds, 0, Number.MAX_SAFE_INTEGER);
  const transactions = wholeNumberFlag('--transactions', values.transactions, 0, Number.MAX_SAFE_INTEGER);
  const balanceCents = wholeNumberFlag('--balance', values.balance, 0, Number.MAX_SAFE_INTEGER);
  const progress = (line: string): void => {
    process.stderr.write(`${line}\n`);
  };

  const database = await openDatabase({ url: process.env['DATABASE_URL'] || undefined });
  try {
    const { db } = database;
    const now = systemClock.now();
    // Seed 0 is the one `--demo` used; each further seed makes other cards, holders and records.
    const addSandbox = async (organizationId: string, firstSeed: number): Promise<void> => {
      for (let seed = firstSeed; seed < seeds; seed += 1) {
        await seedSandboxData(db, { organizationId, now, seed: DEFAULT_SANDBOX_SEED + seed });
      }
    };
    if (values.organization !== undefined) {
      progress(`adding ${seeds - 1} rounds of sandbox cards to ${values.organization}`);
      await addSandbox(values.organization, 1);
    }
    const onboarded: Onboarded[] = [];
    for (let i = 0; i < more; i += 1) {
      const result = await onboardOrganization(
        db,
        { ids: randomIds, clock: systemClock },
        { name: `Bench ${i + 2}`, balanceCents },
      );
      if (result.privateKeyPem === undefined) throw new Error('onboarding made no key pair');
      await addSandbox(result.organizationId, 0);
      const { inserted } = await insertBulkTransactions(db, {
        organizationId: result.organizationId,
        count: transactions,
        now,
      });
      progress(
        `organization ${i + 2} (${result.organizationId}): ${seeds} rounds of sandbox data, ${inserted} bulk ledger records`,
      );
      onboarded.push({
        organizationId: result.organizationId,
        clientId: result.clientId,
        clientSecret: result.clientSecret,
        privateKeyPem: result.privateKeyPem,
        scopes: result.scopes,
      });
    }
    process.stdout.write(`${JSON.stringify(onboarded)}\n`);
  } finally {
    await database.close();
  }
  return 0;
}

// A failure other than the command line is the benchmark's to report with this process's output:
// the stack says where.
runAsMain(import.meta.url, main, {
  usage: USAGE,
  describeError: (error) => (error instanceof Error ? (error.stack ?? error.message) : error),
  end: 'drain',
});
