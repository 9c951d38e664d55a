import { generateKeyPairSync } from 'node:crypto';
import type { Kysely } from 'kysely';
import { generateClientSecret, hashSecret } from './domain/credentials.js';
import { parsePublicKey } from './domain/signature.js';
import { SCOPES, type Scope } from './domain/tokens.js';
import type { Clock, IdGenerator } from './clock-and-ids.js';
import { addClientKey, createClient, createOrganization } from './store/organizations.js';
import { type DB, inTransaction } from './database/index.js';
import { addOperator, OperatorError, type NewOperatorLogin } from './operators.js';

export interface OnboardingRequest {
  readonly name: string;
  /** The organization's opening sandbox balance, in cents. */
  readonly balanceCents: number;
  /** The partner's own RSA public key (PEM); when absent a key pair is made and the private key returned once. */
  readonly publicKeyPem?: string | undefined;
  readonly scopes?: readonly Scope[];
  /** The username of the organization's first dashboard operator (an approver); default `admin-` and the organization id's last 8 characters. */
  readonly operatorUsername?: string | undefined;
}

/** What a partner is handed once; the service keeps only the secret's hash and the public key. */
export interface OnboardingResult {
  readonly organizationId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly privateKeyPem: string | undefined;
  readonly scopes: readonly Scope[];
  /** The first dashboard operator, an approver, and their password (shown once). */
  readonly operator: NewOperatorLogin;
}

/** A throw for input the operator gave (a bad public key, a bad balance), with what to fix. */
export class OnboardingError extends Error {
  override readonly name = 'OnboardingError';
}

/** The most an opening balance may hold: the largest transfer amount (99 999 999 999 cents) a hundred times over. */
const MAX_OPENING_BALANCE_CENTS = 9_999_999_999_900;

export async function onboardOrganization(
  db: Kysely<DB>,
  deps: { readonly ids: IdGenerator; readonly clock: Clock },
  request: OnboardingRequest,
): Promise<OnboardingResult> {
  if (request.name.trim() === '' || request.name.length > 200) {
    throw new OnboardingError('The organization name must be 1 to 200 characters.');
  }
  if (
    !Number.isSafeInteger(request.balanceCents) ||
    request.balanceCents < 0 ||
    request.balanceCents > MAX_OPENING_BALANCE_CENTS
  ) {
    throw new OnboardingError(`The balance must be whole cents from 0 to ${MAX_OPENING_BALANCE_CENTS}.`);
  }
  let publicKeyPem = request.publicKeyPem;
  let privateKeyPem: string | undefined;
  if (publicKeyPem === undefined) {
    const pair = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    publicKeyPem = pair.publicKey;
    privateKeyPem = pair.privateKey;
  } else {
    const parsed = parsePublicKey(publicKeyPem);
    if (!parsed.ok) throw new OnboardingError(`The public key cannot be used: ${parsed.reason}`);
  }
  const scopes = request.scopes ?? [...SCOPES];
  const clientSecret = generateClientSecret();
  const secretHash = await hashSecret(clientSecret);
  const now = deps.clock.now();
  const organizationId = deps.ids.next('org');
  const clientId = deps.ids.next('cli');
  const operator = await inTransaction(db, async (tx) => {
    await createOrganization(tx, {
      id: organizationId,
      name: request.name.trim(),
      balanceCents: request.balanceCents,
      now,
    });
    await createClient(tx, { id: clientId, organizationId, secretHash, scopes: [...scopes], now });
    await addClientKey(tx, { id: deps.ids.next('key'), clientId, publicKeyPem: publicKeyPem, now });
    const username = request.operatorUsername ?? `admin-${organizationId.slice(-8)}`;
    try {
      return await addOperator(tx, deps, { organizationId, username, role: 'approver' });
    } catch (error) {
      if (error instanceof OperatorError) throw new OnboardingError(error.message);
      throw error;
    }
  });
  return { organizationId, clientId, clientSecret, privateKeyPem, scopes, operator };
}
