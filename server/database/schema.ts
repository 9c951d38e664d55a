import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

// The Kysely view of the database that server/database/migrations/001-baseline.ts creates.
// Conventions (see the migration for the SQL):
// - money is integer cents in `bigint` columns; the int8 parsers of server/database/int8.ts make them
//   `number` (always a safe integer) on both drivers;
// - record times are Unix milliseconds in `bigint` columns, `number` here;
// - jsonb columns are written as JSON text (`JSON.stringify`) so that both drivers store the
//   same thing, and read back as parsed values (`unknown` until narrowed).

/** A jsonb column: selected as a parsed value, written as JSON text. */
export type JsonColumn<T = unknown> = ColumnType<T, string, string>;

export const TRANSFER_STATUSES = ['PENDING', 'CANCELLED', 'REJECTED', 'PROCESSING', 'FAILED', 'SUCCEEDED'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/** The payment network's outcomes for a PROCESSING transfer. */
export type SettlementOutcome = 'SUCCEEDED' | 'FAILED';

export interface OrganizationsTable {
  id: string;
  name: string;
  /** Available balance: start - sum(SUCCEEDED) - sum(PROCESSING); never negative (its domain, available_balance_cents). */
  balance_cents: number;
  created_at: number;
}

export interface ClientsTable {
  id: string;
  organization_id: string;
  /** Slow salted hash (scrypt); never the secret itself. */
  secret_hash: string;
  scopes: string[];
  created_at: number;
  /** Tokens issued before this time (Unix ms) are rejected; null when none was revoked. */
  tokens_not_before: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ClientKeysTable {
  id: string;
  client_id: string;
  public_key_pem: string;
  active: Generated<boolean>;
  created_at: number;
  deactivated_at: number | null;
}

export interface ServiceSecretsTable {
  name: string;
  value: string;
  created_at: number;
}

export interface IdempotencyKeysTable {
  client_id: string;
  key: string;
  /** Method, path and SHA-256 of the body. */
  fingerprint: string;
  response_status: number;
  /** The stored response's JSON text, verbatim (text rather than jsonb, which reorders keys). */
  response_body: string;
  created_at: number;
}

export interface AuthFailuresTable {
  client_id: string;
  window_start: number;
  failures: number;
}

export interface TransfersTable {
  id: string;
  organization_id: string;
  client_id: string;
  idempotency_key: string;
  amount_cents: number;
  currency: string;
  status: TransferStatus;
  category: string;
  submission_date: number;
  reviewed_at: number | null;
  cancelled_at: number | null;
  /** When a PROCESSING transfer is due for settlement by the payment network. */
  settle_after: number | null;
  /** When the payment network's outcome was recorded (SUCCEEDED or FAILED). */
  settled_at: number | null;
  bank_id: string;
  account_number: string;
  account_name: string;
  memo: string | null;
  note: string | null;
  /** The operator who approved or rejected it in the dashboard; null when undecided or executed through the API. */
  reviewed_by_operator_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The reason given for REJECTED, and only for it. */
  rejection_reason: ColumnType<string | null, string | null | undefined, string | null>;
}

export const OPERATOR_ROLES = ['viewer', 'approver'] as const;
/** A viewer reads; an approver also approves and rejects transfers and sets card limits. */
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

/** A person of an organization who uses the dashboard. */
export interface OperatorsTable {
  id: string;
  organization_id: string;
  username: string;
  /** Slow salted hash (scrypt); never the password itself. */
  password_hash: string;
  role: OperatorRole;
  created_at: number;
  disabled_at: ColumnType<number | null, number | null | undefined, number | null>;
}

/** A dashboard session, keyed by the SHA-256 of its cookie value. */
export interface OperatorSessionsTable {
  token_hash: string;
  operator_id: string;
  created_at: number;
  expires_at: number;
  ended_at: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface DepartmentsTable {
  id: string;
  organization_id: string;
  name: string;
}

export interface CardHoldersTable {
  id: string;
  organization_id: string;
  full_name: string;
  user_external_id_one: string | null;
  user_external_id_two: string | null;
  user_external_id_three: string | null;
  department_id: string | null;
  /** The holder's outstanding cash in cents, kept by the database as the ledger changes. */
  outstanding_cash_cents: ColumnType<number, never, never>;
}

export interface CardsTable {
  id: string;
  organization_id: string;
  card_holder_id: string;
  nickname: string;
  /** Null when the card is not activated. */
  last4: string | null;
  daily_limit: number;
  monthly_limit: number;
  atm_limit: number;
  /** Null for a card that is not approval-based. */
  approval_based_limit: number | null;
  created_at: number;
  /**
   * The card as the API shows it (the Card schema) but for its availableBalance, as JSON:
   * written by the database from the row, its holder and the holder's
   * department, never by the application.
   */
  record: ColumnType<unknown, never, never>;
}

export interface TransactionTag {
  id: string;
  name: string;
}

export interface TransactionsTable {
  id: string;
  organization_id: string;
  card_id: string | null;
  /** The card holder (card_holders.id) the transaction belongs to. */
  person_id: string;
  authorization_date: number;
  merchant: string;
  method: string;
  category: string;
  review_status: string | null;
  status: string;
  currency: string;
  amount_cents: number;
  tags: JsonColumn<TransactionTag[]>;
  note: string | null;
  description: string | null;
  refund: boolean;
  authorization_code: string | null;
  last4: string | null;
  cleared: boolean;
  /**
   * The record as the API shows it (the Transaction schema), as JSON:
   * written by the database from the row, its holder and the holder's department, never by the
   * application.
   */
  record: ColumnType<unknown, never, never>;
}

export interface DB {
  organizations: OrganizationsTable;
  clients: ClientsTable;
  client_keys: ClientKeysTable;
  service_secrets: ServiceSecretsTable;
  idempotency_keys: IdempotencyKeysTable;
  auth_failures: AuthFailuresTable;
  transfers: TransfersTable;
  departments: DepartmentsTable;
  card_holders: CardHoldersTable;
  cards: CardsTable;
  transactions: TransactionsTable;
  operators: OperatorsTable;
  operator_sessions: OperatorSessionsTable;
}

export type OrganizationRow = Selectable<OrganizationsTable>;
export type ClientRow = Selectable<ClientsTable>;
export type ClientKeyRow = Selectable<ClientKeysTable>;
export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;
export type TransferRow = Selectable<TransfersTable>;
export type NewTransferRow = Insertable<TransfersTable>;
export type DepartmentRow = Selectable<DepartmentsTable>;
export type NewDepartmentRow = Insertable<DepartmentsTable>;
export type CardHolderRow = Selectable<CardHoldersTable>;
export type NewCardHolderRow = Insertable<CardHoldersTable>;
export type CardRow = Selectable<CardsTable>;
export type NewCardRow = Insertable<CardsTable>;
export type TransactionRow = Selectable<TransactionsTable>;
export type NewTransactionRow = Insertable<TransactionsTable>;
