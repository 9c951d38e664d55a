/**
 * The organization's version (migration 009): it moves in the same transaction as any change of
 * the organization's cards, card holders, departments or ledger, and never comes back to a value
 * it had. 0 for an organization none of whose rows has changed since the migration.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { DB } from './schema.js';

export async function organizationVersion(db: Kysely<DB>, organizationId: string): Promise<number> {
  // Compiled by hand: it is the whole statement of a kept read, and building it costs more than running it.
  const { rows } = await db.executeQuery<{ version: number }>(
    CompiledQuery.raw('select version from organization_versions where organization_id = $1', [organizationId]),
  );
  return rows[0]?.version ?? 0;
}
