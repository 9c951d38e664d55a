import type { Kysely, KyselyPlugin } from 'kysely';
import type { DB } from '../../server/database/schema.js';

/** The database with every statement that ran counted (Kysely hands each result to its plugins; a failed statement has none). */
export function counted(db: Kysely<DB>): { db: Kysely<DB>; statements: () => number } {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      statements += 1;
      return args.result;
    },
  };
  return { db: db.withPlugin(plugin), statements: () => statements };
}
