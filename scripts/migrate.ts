// npm run migrate: brings the database to the latest schema and prints what it applied.
// DATABASE_URL selects the database as for the server; unset, the embedded
// database under ./.data/ (which must not be open in a running server at the same time).
import { openDatabase } from '../server/store/connection.js';
import { migrateToLatest } from '../server/store/migrate.js';

async function main(): Promise<void> {
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
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
