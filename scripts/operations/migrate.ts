// npm run migrate: brings the database to the latest schema and prints what it applied.
// DATABASE_URL selects the database as for the server; unset, the embedded
// database under ./.data/ (which must not be open in a running server at the same time).
import { openDatabase } from '../../server/database/open.js';
import { migrateToLatest } from '../../server/database/migrate.js';
import { parseFlags, runAsMain } from 'contract-first/cli';

const USAGE = `Usage: npm run migrate

Brings the database to the latest schema and prints the migrations it applied (the server also
applies them when it starts). The database is DATABASE_URL (postgres://...), or the embedded
database under ./.data/ when it is unset, which must not be open in a running server.`;

async function main(argv: readonly string[]): Promise<number> {
  const flags = parseFlags(argv, { help: { type: 'boolean', short: 'h' } }, USAGE);
  if (typeof flags === 'number') return flags;
  const database = await openDatabase({ url: process.env['DATABASE_URL'] || undefined });
  try {
    const { applied } = await migrateToLatest(database.db);
    const where = database.kind === 'postgres' ? 'PostgreSQL' : 'the embedded database';
    if (applied.length === 0) {
      console.log(`Schema of ${where} is up to date; nothing to apply.`);
    } else {
      console.log(`Applied to ${where}:`);
      for (const name of applied) console.log(`  ${name}`);
    }
    return 0;
  } finally {
    await database.close();
  }
}

runAsMain(import.meta.url, main);
