/**
 * `npm run demo [-- --base-url URL] [--credentials FILE]`: a partner's day through the SDK,
 * against a running service. By default it reads `.data/demo-credentials.json`, which `npm start`
 * writes on its first start; nothing else needs setting up.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createPartnerClient, isApiError, isErrorType, type PartnerClient, type Schemas } from '../../client/index.js';
import { parseFlags, runAsMain } from 'contract-first/cli';

const DEFAULT_CREDENTIALS = '.data/demo-credentials.json';
const DEFAULT_BASE_URL = 'http://localhost:3000';
/** The sandbox network settles after PAYMENT_NETWORK_DELAY_MS (2 s by default); a minute is ample. */
const SETTLEMENT_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 500;

class DemoError extends Error {}

interface Credentials {
  readonly baseUrl?: string;
  readonly organizationId?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly privateKeyPem: string;
}

const usage = `Usage: npm run demo [-- --base-url URL] [--credentials FILE]

  --base-url URL       where the service runs (default: the file's baseUrl, else ${DEFAULT_BASE_URL})
  --credentials FILE   JSON with clientId, clientSecret and privateKeyPem (default: ${DEFAULT_CREDENTIALS},
                       written by \`npm start\` when it creates the demo organization)`;

async function readCredentials(file: string, explicit: boolean): Promise<Credentials> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new DemoError(
      explicit
        ? `Cannot read the credentials file ${file}.`
        : `No demo credentials at ${file}.\n` +
            '  Start the service first with `npm start`: on its first start with an empty embedded database it creates a\n' +
            `  demo organization and writes ${file}. If the database already existed, remove .data/ and start again, or\n` +
            '  onboard a partner (`npm run onboard -- --name Demo --demo --json > creds.json`) and pass --credentials creds.json.',
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DemoError(`${file} is not JSON.`);
  }
  const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const missing = ['clientId', 'clientSecret', 'privateKeyPem'].filter(
    (field) => typeof record[field] !== 'string' || record[field] === '',
  );
  if (missing.length > 0)
    throw new DemoError(`${file} lacks ${missing.join(', ')}: it needs clientId, clientSecret and privateKeyPem.`);
  return record as unknown as Credentials;
}

async function checkServiceUp(baseUrl: string): Promise<void> {
  try {
    await fetch(new URL('/healthz', baseUrl), { signal: AbortSignal.timeout(3_000) });
  } catch {
    throw new DemoError(
      `No service responds at ${baseUrl}.\n  Start it in another terminal with \`npm start\`, or point the demo elsewhere with --base-url.`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Output

const egp = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EGP', currencyDisplay: 'code' });
/** Amounts are integer cents (the document's "Money" convention). */
function money(cents: number | null): string {
  return cents === null ? '-' : egp.format(cents / 100).replace(/\u00a0/g, ' ');
}

function step(title: string): void {
  console.log(`\n== ${title}`);
}

function line(text = ''): void {
  console.log(`   ${text}`);
}

/** Ends the demo with the service's own words when a step fails unexpectedly. */
function fail(what: string, error: unknown, response: Response): never {
  const detail = isApiError(error)
    ? `${error.type}: ${error.message}${error.details !== undefined ? ` ${error.details}` : ''}`
    : JSON.stringify(error);
  throw new DemoError(
    `${what} failed with HTTP ${response.status}: ${detail} (request id ${response.headers.get('x-request-id') ?? '-'})`,
  );
}

// ---------------------------------------------------------------------------------------------
// Sandbox accounts

/** ISO 13616 check digits: 98 - (BBAN + "EG00" as digits, letters as 10..35) mod 97. */
function egyptianIban(bban: string): string {
  let remainder = 0;
  for (const char of `${bban}EG00`) {
    const code = char.charCodeAt(0);
    remainder = code <= 57 ? (remainder * 10 + code - 48) % 97 : (remainder * 100 + code - 55) % 97;
  }
  return `EG${String(98 - remainder).padStart(2, '0')}${bban}`;
}

/** A 29-character EG IBAN (bank 0019, branch 0005, 17-digit account) that settles. */
const GOOD_IBAN = egyptianIban('0019000500000000263180001');
/** The sandbox network fails every account number ending in 0002 (see the executeTransfer operation). */
const FAILING_WALLET = '01000000002';

// ---------------------------------------------------------------------------------------------
// The day

type Transfer = Schemas['Transfer'];

async function waitForOutcome(partner: PartnerClient, id: string): Promise<Transfer> {
  const deadline = Date.now() + SETTLEMENT_TIMEOUT_MS;
  for (;;) {
    const { data, error, response } = await partner.GET('/v1/transfer/{id}', { params: { path: { id } } });
    if (data === undefined) fail(`Reading transfer ${id}`, error, response);
    if (data.status !== 'PROCESSING' && data.status !== 'PENDING') return data;
    if (Date.now() > deadline)
      throw new DemoError(
        `Transfer ${id} is still ${data.status} after ${SETTLEMENT_TIMEOUT_MS / 1000} s: is the settlement worker running?`,
      );
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

async function createAndExecute(partner: PartnerClient, body: Schemas['CreateTransferRequest']): Promise<Transfer> {
  const created = await partner.POST('/v1/transfer', { body });
  if (created.data === undefined) fail('Creating the transfer', created.error, created.response);
  line(
    `created  ${created.data.id}  ${money(created.data.amountCents)} to ${created.data.payee.accountName} (${created.data.payee.bank.shortName} ${created.data.payee.accountNumber})  ${created.data.status}`,
  );
  const executed = await partner.POST('/v1/transfer/{id}/execute', { params: { path: { id: created.data.id } } });
  if (executed.data === undefined) {
    if (isErrorType(executed.error, 'InsufficientFunds'))
      throw new DemoError('The demo organization has run out of sandbox money: onboard a new one.');
    fail('Executing the transfer', executed.error, executed.response);
  }
  line(`executed ${executed.data.id}  ${executed.data.status} (approved, sent to the payment network)`);
  const settled = await waitForOutcome(partner, executed.data.id);
  line(`settled  ${settled.id}  ${settled.status}`);
  return settled;
}

async function day(partner: PartnerClient): Promise<void> {
  step('1. Banks and wallets you can pay (GET /v1/bank, no token needed)');
  const banks = await partner.GET('/v1/bank');
  if (banks.data === undefined) fail('Listing banks', banks.error, banks.response);
  const wallets = banks.data.filter((bank) => bank.id.endsWith('-cash') || bank.id === 'we-pay');
  line(
    `${banks.data.length} entries, for example: ${banks.data
      .slice(0, 4)
      .map((bank) => `${bank.id} (${bank.shortName})`)
      .join(', ')}`,
  );
  line(`mobile wallets: ${wallets.map((bank) => bank.id).join(', ')}`);

  step('2. Cards (paginate GET /v1/card, 5 per page)');
  let shown = 0;
  let count = 0;
  let plain: Schemas['Card'] | undefined;
  for await (const card of partner.paginate('/v1/card', { query: { limit: 5 } })) {
    count += 1;
    if (plain === undefined && card.last4 !== null && card.limits.approvalBased === null) plain = card;
    if (shown < 6) {
      shown += 1;
      const kind =
        card.last4 === null
          ? 'not activated'
          : card.limits.approvalBased !== null
            ? `approval-based ${money(card.limits.approvalBased)}`
            : `daily ${money(card.limits.daily)}`;
      line(
        `${card.id}  ${card.nickname.padEnd(24)} ${card.cardHolder.fullName.padEnd(20)} ${card.last4 === null ? '····' : `*${card.last4}`}  ${kind.padEnd(32)} can spend ${money(card.availableBalance)}`,
      );
    }
  }
  line(`${count} cards in all`);

  if (plain !== undefined) {
    step(`3. Raise a daily limit (PATCH /v1/card/{id}/limits, application/merge-patch+json)`);
    const delta = plain.limits.daily + 500_00 <= 1_000_000_00 ? 500_00 : -500_00;
    const raised = await partner.PATCH('/v1/card/{id}/limits', {
      params: { path: { id: plain.id } },
      body: { daily: delta },
    });
    if (raised.data === undefined) fail('Updating the limits', raised.error, raised.response);
    line(
      `${plain.nickname}: daily ${money(plain.limits.daily)} ${delta > 0 ? '+' : '-'} ${money(Math.abs(delta))} = ${money(raised.data.limits.daily)}; can spend ${money(raised.data.availableBalance)}`,
    );
    const restored = await partner.PATCH('/v1/card/{id}/limits', {
      params: { path: { id: plain.id } },
      body: { daily: -delta },
    });
    if (restored.data === undefined) fail('Restoring the limits', restored.error, restored.response);
    line(
      `and back again: daily ${money(restored.data.limits.daily)} (each PATCH signed, with its own Idempotency-Key)`,
    );
  }

  step(
    '4. Successful transactions of the last 30 days (paginate GET /v1/transaction?statuses=SUCCEEDED&fromDate=..., 25 per page)',
  );
  const since = Date.now() - 30 * 24 * 3600 * 1000;
  let transactions = 0;
  let total = 0;
  const byMerchant = new Map<string, number>();
  for await (const transaction of partner.paginate('/v1/transaction', {
    query: { statuses: ['SUCCEEDED'], fromDate: since, limit: 25 },
  })) {
    transactions += 1;
    total += transaction.amountCents;
    byMerchant.set(transaction.merchant, (byMerchant.get(transaction.merchant) ?? 0) + transaction.amountCents);
  }
  line(
    `${transactions} transactions, ${money(total)} in all (${Math.max(1, Math.ceil(transactions / 25))} pages, each fetched with the previous page's nextCursor)`,
  );
  line('largest merchants:');
  for (const [merchant, cents] of [...byMerchant].sort((a, b) => b[1] - a[1]).slice(0, 3))
    line(`  ${merchant.padEnd(30)} ${money(cents)}`);

  step(`5. Pay a supplier: create, execute, wait for the network (IBAN ${GOOD_IBAN})`);
  const paid = await createAndExecute(partner, {
    amountCents: 1_250_00,
    currency: 'EGP',
    bankId: 'nbe',
    accountNumber: GOOD_IBAN,
    accountName: 'Nile Supplies',
    category: 'LOGISTICS',
    memo: 'Invoice 1042',
  });
  if (paid.status !== 'SUCCEEDED') throw new DemoError(`Expected SUCCEEDED, got ${paid.status}.`);

  step(`6. A payment the network rejects (Vodafone Cash ${FAILING_WALLET}: numbers ending 0002 fail in the sandbox)`);
  const rejected = await createAndExecute(partner, {
    amountCents: 300_00,
    currency: 'EGP',
    bankId: 'vodafone-cash',
    accountNumber: FAILING_WALLET,
    accountName: 'Karim Hassan',
    category: 'OTHER',
  });
  line(
    rejected.status === 'FAILED'
      ? 'FAILED: the reserved amount went back to the organization balance.'
      : `unexpected status ${rejected.status}`,
  );

  step('7. A retried create with the same Idempotency-Key returns the same transfer');
  const key = randomUUID();
  const body = {
    amountCents: 75_00,
    currency: 'EGP',
    bankId: 'cib',
    accountNumber: '100020003000',
    accountName: 'Cairo Office Rent',
    category: 'REAL_ESTATE',
  } as const;
  const first = await partner.POST('/v1/transfer', { params: { header: { 'Idempotency-Key': key } }, body });
  if (first.data === undefined) fail('Creating the transfer', first.error, first.response);
  const again = await partner.POST('/v1/transfer', { params: { header: { 'Idempotency-Key': key } }, body });
  if (again.data === undefined) fail('Retrying the create', again.error, again.response);
  line(`key ${key}`);
  line(`first  answer: ${first.data.id}`);
  line(
    `second response: ${again.data.id}  Idempotent-Replayed: ${again.response.headers.get('idempotent-replayed') ?? '(absent)'}`,
  );
  line(first.data.id === again.data.id ? 'one transfer, not two.' : 'DIFFERENT transfers: idempotency is broken!');
  if (first.data.id !== again.data.id) throw new DemoError('The retried create made a second transfer.');

  const cancelled = await partner.POST('/v1/transfer/{id}/cancel', { params: { path: { id: first.data.id } } });
  if (cancelled.data === undefined) fail('Cancelling the transfer', cancelled.error, cancelled.response);
  line(`cancelled ${cancelled.data.id} while still PENDING: ${cancelled.data.status}`);
  const late = await partner.POST('/v1/transfer/{id}/execute', { params: { path: { id: first.data.id } } });
  if (late.error !== undefined && isErrorType(late.error, 'InvalidRequest')) {
    line(`executing it now is rejected: HTTP ${late.response.status} ${late.error.type}: ${late.error.message}`);
  }

  step('8. Latest transfers, newest first (paginate GET /v1/transfer)');
  let listed = 0;
  for await (const transfer of partner.paginate('/v1/transfer', { query: { limit: 10 } })) {
    if (listed === 5) break;
    listed += 1;
    line(
      `${transfer.id}  ${transfer.status.padEnd(10)} ${money(transfer.amountCents).padStart(16)}  ${transfer.payee.accountName}`,
    );
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const values = parseFlags(
    argv,
    { 'base-url': { type: 'string' }, credentials: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    usage,
  );
  if (typeof values === 'number') return values;
  const file = values.credentials ?? DEFAULT_CREDENTIALS;
  const credentials = await readCredentials(file, values.credentials !== undefined);
  const baseUrl = values['base-url'] ?? credentials.baseUrl ?? DEFAULT_BASE_URL;
  let partner: PartnerClient;
  try {
    partner = createPartnerClient({
      baseUrl,
      clientId: credentials.clientId,
      clientSecret: credentials.clientSecret,
      privateKeyPem: credentials.privateKeyPem,
    });
  } catch (error) {
    throw new DemoError(
      `The credentials in ${file} cannot be used: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  await checkServiceUp(baseUrl);
  console.log(
    `Partner Payments Service demo at ${baseUrl}, client ${credentials.clientId}${credentials.organizationId !== undefined ? ` (organization ${credentials.organizationId})` : ''}`,
  );
  const started = Date.now();
  await day(partner);
  console.log(`\nDone in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  return 0;
}

runAsMain(import.meta.url, main, {
  describeError: (error) =>
    error instanceof DemoError
      ? `\ndemo: ${error.message}`
      : `\ndemo: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  end: 'drain',
});
