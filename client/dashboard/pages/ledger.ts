/**
 * The transaction ledger (GET /dashboard/api/transaction) with the partner API's filters (dates
 * as Cairo calendar days, statuses, categories, review statuses, merchant, department ids) and
 * keyset paging.
 */
import { api, describeError, type Paths, type Schemas } from '../api.js';
import { field, h, message, replaceChildren, table } from '../dom.js';
import { cairoDayEnd, cairoDayStart, formatDateTime, formatMoney } from '../format.js';
import { heading, morePager } from './shared.js';

type Query = NonNullable<Paths['/dashboard/api/transaction']['get']['parameters']['query']>;
type Transaction = Schemas['Transaction'];
const STATUSES: readonly Schemas['TransactionStatus'][] = ['SUCCEEDED', 'DECLINED', 'REVERSED'];
const REVIEW_STATUSES: readonly Schemas['ReviewStatus'][] = [
  'NOT_REVIEWED',
  'UNDER_REVIEW',
  'BALANCE_SETTLED',
  'APPROVED',
  'REJECTED',
];
const CATEGORIES: readonly Schemas['Category'][] = [
  'AGRICULTURE',
  'ART',
  'AUTOMOTIVE',
  'CASH',
  'CHARITY',
  'CLOTHING',
  'CONSTRUCTION',
  'DESIGN',
  'E_COMMERCE',
  'EDUCATION',
  'ENERGY',
  'ENGINEERING',
  'ENTERTAINMENT',
  'FINANCIAL_SERVICES',
  'FITNESS',
  'FUEL',
  'FOOD_BEVERAGE',
  'GOVERNMENT',
  'HOSPITALITY',
  'INSURANCE',
  'LEGAL',
  'LOGISTICS',
  'MANUFACTURING',
  'MARKETING',
  'MEDIA',
  'MEDICAL',
  'MEMBERSHIP',
  'PHARMACEUTICAL',
  'PROFESSIONAL_SERVICES',
  'REAL_ESTATE',
  'RETAIL',
  'TECHNOLOGY',
  'TOWING',
  'TRANSPORTATION',
  'TRAVEL',
  'UTILITIES',
  'OTHER',
];
const PAGE_SIZE = 25;

const words = (code: string): string => code.charAt(0) + code.slice(1).toLowerCase().replaceAll('_', ' ');

function multiSelect(name: string, values: readonly string[]): HTMLSelectElement {
  return h('select', { name, multiple: true, size: 4 }, ...values.map((value) => h('option', { value }, words(value))));
}

const chosen = (control: HTMLSelectElement): string[] => [...control.selectedOptions].map((option) => option.value);

function render(transaction: Transaction): HTMLTableRowElement {
  const amount = formatMoney(transaction.amountCents);
  return h(
    'tr',
    { 'data-transaction-id': transaction.id },
    h('td', {}, formatDateTime(transaction.authorizationDate)),
    h(
      'td',
      {},
      transaction.merchant,
      transaction.description === undefined ? null : h('small', { class: 'muted block' }, transaction.description),
    ),
    h(
      'td',
      {},
      transaction.person.fullName,
      transaction.department === null ? null : h('small', { class: 'muted block' }, transaction.department),
    ),
    h(
      'td',
      {},
      words(transaction.method),
      transaction.last4 === null ? null : h('small', { class: 'muted block' }, `•••• ${transaction.last4}`),
    ),
    h('td', {}, transaction.categoryLabel),
    h(
      'td',
      {},
      words(transaction.status),
      transaction.reviewStatus == null ? null : h('small', { class: 'muted block' }, words(transaction.reviewStatus)),
    ),
    h('td', { class: 'money' }, transaction.refund ? `${amount} refund` : amount),
  );
}

export async function showLedger(main: HTMLElement): Promise<void> {
  const feedback = h('div', { class: 'feedback' });
  const from = h('input', { type: 'date', name: 'fromDate' });
  const to = h('input', { type: 'date', name: 'toDate' });
  const statuses = multiSelect('statuses', STATUSES);
  const categories = multiSelect('categories', CATEGORIES);
  const reviews = multiSelect('reviewStatuses', REVIEW_STATUSES);
  const merchant = h('input', { name: 'merchant', maxlength: 100, autocomplete: 'off' });
  const departments = h('input', { name: 'departmentIds', autocomplete: 'off', placeholder: 'dep_…' });
  const form = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter transactions' },
    field('From (Cairo day)', from),
    field('To (Cairo day)', to),
    field('Statuses', statuses, 'Ctrl or ⌘ to choose several.'),
    field('Categories', categories),
    field('Review statuses', reviews),
    field('Merchant contains', merchant),
    field('Department ids', departments, 'Comma-separated.'),
    h('button', { type: 'submit' }, 'Apply filters'),
  );
  const rows = h('tbody');
  let query: Query = {};

  const pager = morePager(async (cursor) => {
    const { data, error, response } = await api.GET('/dashboard/api/transaction', {
      params: { query: { ...query, limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) } },
    });
    if (data === undefined) {
      replaceChildren(feedback, message('error', describeError(error, response)));
      return undefined;
    }
    if (cursor === undefined) rows.replaceChildren();
    rows.append(...data.transactions.map(render));
    if (cursor === undefined && data.transactions.length === 0)
      rows.append(h('tr', {}, h('td', { colspan: 7 }, 'No transactions match.')));
    return data.nextCursor;
  }, 'transactions');

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const fromDate = from.value === '' ? undefined : cairoDayStart(from.value);
    const toDate = to.value === '' ? undefined : cairoDayEnd(to.value);
    if (fromDate !== undefined && toDate !== undefined && fromDate > toDate) {
      replaceChildren(feedback, message('error', 'The first day is after the last.'));
      return;
    }
    const ids = departments.value
      .split(',')
      .map((id) => id.trim())
      .filter((id) => id !== '');
    query = {
      ...(fromDate === undefined ? {} : { fromDate }),
      ...(toDate === undefined ? {} : { toDate }),
      ...(chosen(statuses).length === 0 ? {} : { statuses: chosen(statuses) as Schemas['TransactionStatus'][] }),
      ...(chosen(categories).length === 0 ? {} : { categories: chosen(categories) as Schemas['Category'][] }),
      ...(chosen(reviews).length === 0 ? {} : { reviewStatuses: chosen(reviews) as Schemas['ReviewStatus'][] }),
      ...(merchant.value.trim() === '' ? {} : { merchant: merchant.value.trim() }),
      ...(ids.length === 0 ? {} : { departmentIds: ids }),
    };
    feedback.replaceChildren();
    void pager.reset();
  });

  replaceChildren(
    main,
    ...heading('Ledger', 'Card payments, ATM withdrawals, cash expenses and fees, newest first. Times are Cairo time.'),
    h('details', { class: 'filter-box' }, h('summary', {}, 'Filters'), form),
    feedback,
    table(
      'Transactions, newest first',
      ['Authorized (Cairo)', 'Merchant', 'Person', 'Method', 'Category', 'Status', 'Amount'],
      rows,
    ),
    pager.element,
  );
  await pager.reset();
}
