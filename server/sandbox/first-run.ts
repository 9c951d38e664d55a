/**
 * The demo organization of a first start (README, "Run the service"): on a database with no
 * organization yet, `npm start` onboards one with the sandbox's cards and ledger and a few
 * transfers waiting for the dashboard's approval. A database that has any organization is left
 * as it is, so a restart adds nothing.
 */
import type { Kysely } from 'kysely';
import type { Clock, IdGenerator } from '../clock-and-ids.js';
import { onboardOrganization, type OnboardingResult } from '../onboarding.js';
import { countOrganizations } from '../store/organizations.js';
import type { DB } from '../database/index.js';
import type { TransferRecord } from '../store/transfers.js';
import { seedSandboxData, type SandboxSummary } from './demo-organization.js';
import { seedPendingTransfers } from './pending-transfers.js';

export const DEMO_ORGANIZATION_NAME = 'Demo Partner';

export interface DemoOrganization {
  readonly onboarding: OnboardingResult;
  readonly sandbox: SandboxSummary;
  /** The PENDING transfers an operator finds in the dashboard (pending-transfers.ts). */
  readonly pendingTransfers: readonly TransferRecord[];
}

/** Onboards the demo organization when the database has no organization; undefined otherwise. */
export async function onboardDemoOrganization(
  db: Kysely<DB>,
  deps: { readonly ids: IdGenerator; readonly clock: Clock },
  options: { readonly balanceCents: number },
): Promise<DemoOrganization | undefined> {
  if ((await countOrganizations(db)) > 0) return undefined;
  const onboarding = await onboardOrganization(db, deps, {
    name: DEMO_ORGANIZATION_NAME,
    balanceCents: options.balanceCents,
  });
  const sandbox = await seedSandboxData(db, {
    organizationId: onboarding.organizationId,
    now: deps.clock.now(),
    ids: deps.ids,
  });
  const pendingTransfers = await seedPendingTransfers(db, {
    organizationId: onboarding.organizationId,
    clientId: onboarding.clientId,
    now: deps.clock.now(),
    ids: deps.ids,
  });
  return { onboarding, sandbox, pendingTransfers };
}
