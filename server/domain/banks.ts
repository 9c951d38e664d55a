/**
 * The banks a transfer can go to (the listBanks operation): the banks licensed by the
 * Central Bank of Egypt and operating in Egypt, under their current names (a bank that merged
 * into another appears once, under the surviving name), plus the mobile-wallet providers used
 * for wallet transfers.
 *
 * Ids are stable lowercase slugs: partners store them, so an id never changes even when a
 * bank is renamed (only `name` and `shortName` follow the bank).
 */

export type Bank = {
  readonly id: string;
  readonly name: string;
  readonly shortName: string;
  /** `wallet`: the account number is an Egyptian mobile number (CreateTransferRequest.accountNumber). */
  readonly kind: 'bank' | 'wallet';
};

const UNSORTED: readonly Bank[] = [
  // State-owned commercial and specialised banks.
  { id: 'nbe', name: 'National Bank of Egypt', shortName: 'NBE', kind: 'bank' },
  { id: 'banque-misr', name: 'Banque Misr', shortName: 'Banque Misr', kind: 'bank' },
  { id: 'banque-du-caire', name: 'Banque du Caire', shortName: 'Banque du Caire', kind: 'bank' },
  { id: 'agricultural-bank-of-egypt', name: 'Agricultural Bank of Egypt', shortName: 'ABE', kind: 'bank' },
  { id: 'idb', name: 'Industrial Development Bank', shortName: 'IDB', kind: 'bank' },
  { id: 'ealb', name: 'Egyptian Arab Land Bank', shortName: 'EALB', kind: 'bank' },
  { id: 'united-bank', name: 'The United Bank', shortName: 'United Bank', kind: 'bank' },
  { id: 'hdb', name: 'Housing and Development Bank', shortName: 'HDB', kind: 'bank' },
  { id: 'ebe', name: 'Export Development Bank of Egypt', shortName: 'EBank', kind: 'bank' },
  // Private, joint-venture and foreign banks.
  { id: 'cib', name: 'Commercial International Bank Egypt', shortName: 'CIB', kind: 'bank' },
  { id: 'qnb-alahli', name: 'QNB Alahli', shortName: 'QNB', kind: 'bank' },
  { id: 'hsbc-egypt', name: 'HSBC Bank Egypt', shortName: 'HSBC', kind: 'bank' },
  { id: 'alexbank', name: 'Bank of Alexandria', shortName: 'ALEXBANK', kind: 'bank' },
  { id: 'credit-agricole-egypt', name: 'Crédit Agricole Egypt', shortName: 'Crédit Agricole', kind: 'bank' },
  { id: 'faisal-islamic-bank', name: 'Faisal Islamic Bank of Egypt', shortName: 'Faisal Islamic Bank', kind: 'bank' },
  { id: 'adib-egypt', name: 'Abu Dhabi Islamic Bank Egypt', shortName: 'ADIB Egypt', kind: 'bank' },
  { id: 'adcb-egypt', name: 'Abu Dhabi Commercial Bank Egypt', shortName: 'ADCB Egypt', kind: 'bank' },
  { id: 'emirates-nbd-egypt', name: 'Emirates NBD Egypt', shortName: 'Emirates NBD', kind: 'bank' },
  { id: 'fab-misr', name: 'First Abu Dhabi Bank Misr', shortName: 'FABMISR', kind: 'bank' },
  { id: 'mashreq-egypt', name: 'Mashreq Bank Egypt', shortName: 'Mashreq', kind: 'bank' },
  { id: 'aaib', name: 'Arab African International Bank', shortName: 'AAIB', kind: 'bank' },
  { id: 'aib', name: 'Arab International Bank', shortName: 'AIB', kind: 'bank' },
  { id: 'arab-bank', name: 'Arab Bank', shortName: 'Arab Bank', kind: 'bank' },
  { id: 'bank-abc-egypt', name: 'Bank ABC Egypt', shortName: 'Bank ABC', kind: 'bank' },
  // Formerly Arab Investment Bank (aiBANK).
  { id: 'bank-nxt', name: 'Bank NXT', shortName: 'Bank NXT', kind: 'bank' },
  { id: 'suez-canal-bank', name: 'Suez Canal Bank', shortName: 'SCB', kind: 'bank' },
  { id: 'egyptian-gulf-bank', name: 'Egyptian Gulf Bank', shortName: 'EG Bank', kind: 'bank' },
  { id: 'al-baraka-bank-egypt', name: 'Al Baraka Bank Egypt', shortName: 'Al Baraka', kind: 'bank' },
  { id: 'attijariwafa-bank-egypt', name: 'Attijariwafa Bank Egypt', shortName: 'Attijariwafa', kind: 'bank' },
  { id: 'saib', name: 'Société Arabe Internationale de Banque', shortName: 'SAIB', kind: 'bank' },
  // Formerly Ahli United Bank Egypt.
  { id: 'kfh-egypt', name: 'Kuwait Finance House Egypt', shortName: 'KFH Egypt', kind: 'bank' },
  { id: 'nbk-egypt', name: 'National Bank of Kuwait Egypt', shortName: 'NBK Egypt', kind: 'bank' },
  // Formerly Piraeus Bank Egypt.
  { id: 'abk-egypt', name: 'Al Ahli Bank of Kuwait Egypt', shortName: 'ABK Egypt', kind: 'bank' },
  { id: 'citibank-egypt', name: 'Citibank Egypt', shortName: 'Citi', kind: 'bank' },
  // Formerly Misr Iran Development Bank.
  { id: 'midbank', name: 'MIDBANK', shortName: 'MIDBANK', kind: 'bank' },
  // Mobile wallets of the four mobile network operators.
  { id: 'vodafone-cash', name: 'Vodafone Cash', shortName: 'Vodafone Cash', kind: 'wallet' },
  { id: 'orange-cash', name: 'Orange Cash', shortName: 'Orange Cash', kind: 'wallet' },
  { id: 'etisalat-cash', name: 'e& cash (Etisalat Cash)', shortName: 'e& cash', kind: 'wallet' },
  { id: 'we-pay', name: 'WE Pay', shortName: 'WE Pay', kind: 'wallet' },
];

/**
 * Sort key: the name without accents, in lower case, compared by code unit. It does not depend
 * on the ICU locale data of the machine, so every instance responds to `GET /v1/bank` in the same
 * order (and with the same ETag).
 */
export function bankSortKey(name: string): string {
  return name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function byName(a: Bank, b: Bank): number {
  const ka = bankSortKey(a.name);
  const kb = bankSortKey(b.name);
  if (ka !== kb) return ka < kb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** All supported banks and wallets, sorted by name. Frozen: the HTTP layer may cache and hash it. */
export const BANKS: readonly Bank[] = Object.freeze(
  [...UNSORTED].sort(byName).map((bank) => Object.freeze({ ...bank })),
);

const BY_ID: ReadonlyMap<string, Bank> = new Map(BANKS.map((bank) => [bank.id, bank]));

export function findBank(id: string): Bank | undefined {
  return BY_ID.get(id);
}
