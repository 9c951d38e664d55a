/**
 * Transfers, pending first (GET /dashboard/api/transfer with its status and amount filters and
 * keyset paging), with approve and reject for approvers (reject asks for a reason). Each decided
 * transfer says who decided it and when; an approved one's row follows it to SUCCEEDED or FAILED
 * without a reload (settle-watch.ts).
 */
import { api, csrf, describeError, isApprover, type Schemas } from '../api.js';
import { announce, field, h, message, replaceChildren, select, table } from '../dom.js';
import { formatDateTime, formatMoney, parseMoney } from '../format.js';
import { awaitsSettlement, settleWatchDelays } from '../settle-watch.js';
import { heading, morePager } from './shared.js';

type DashboardTransfer = Schemas['DashboardTransfer'];
const STATUSES: readonly Schemas['TransferStatus'][] = [
  'PENDING',
  'PROCESSING',
  'SUCCEEDED',
  'FAILED',
  'REJECTED',
  'CANCELLED',
];
const PAGE_SIZE = 20;

interface Filters {
  status?: Schemas['TransferStatus'];
  minAmountCents?: number;
  maxAmountCents?: number;
}

function decision(entry: DashboardTransfer): HTMLElement | string {
  const review = entry.review;
  if (review === null)
    return entry.transfer.status === 'CANCELLED' && entry.transfer.cancelledAt != null
      ? `Cancelled ${formatDateTime(entry.transfer.cancelledAt)}`
      : '—';
  const who = review.operator === null ? 'the partner API (execute)' : review.operator.username;
  const verb = review.decision === 'APPROVED' ? 'Approved' : 'Rejected';
  return h(
    'span',
    { class: 'decision' },
    `${verb} by ${who}, ${formatDateTime(review.decidedAt)}`,
    review.reason === undefined ? null : h('span', { class: 'reason' }, `Reason: ${review.reason}`),
  );
}

function payee(entry: DashboardTransfer): HTMLElement {
  const { payee: to } = entry.transfer;
  return h(
    'span',
    {},
    to.accountName,
    h('br'),
    h('small', { class: 'muted' }, `${to.bank.shortName} · ${to.accountNumber}`),
  );
}

export async function showTransfers(main: HTMLElement): Promise<void> {
  const feedback = h('div', { class: 'feedback' });
  const status = select('status', STATUSES, 'Any status');
  const min = h('input', { name: 'minAmount', inputmode: 'decimal', placeholder: '0.00', autocomplete: 'off' });
  const max = h('input', { name: 'maxAmount', inputmode: 'decimal', placeholder: '0.00', autocomplete: 'off' });
  const filterForm = h(
    'form',
    { class: 'filters', 'aria-label': 'Filter transfers' },
    field('Status', status),
    field('Minimum amount (EGP)', min),
    field('Maximum amount (EGP)', max),
    h('button', { type: 'submit' }, 'Apply filters'),
  );
  const rows = h('tbody');
  const reasonDialog = rejectDialog();
  let filters: Filters = {};

  function render(entry: DashboardTransfer): HTMLTableRowElement {
    const { transfer } = entry;
    const what = `${formatMoney(transfer.amountCents)} to ${transfer.payee.accountName}`;
    const actions = h('td', { class: 'actions' });
    if (transfer.status === 'PENDING' && isApprover()) {
      actions.append(
        h(
          'button',
          { type: 'button', 'aria-label': `Approve ${what}`, onclick: () => void decide(entry, 'approve') },
          'Approve',
        ),
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            'aria-label': `Reject ${what}`,
            onclick: () => void decide(entry, 'reject'),
          },
          'Reject',
        ),
      );
    }
    return h(
      'tr',
      { 'data-transfer-id': transfer.id },
      h('td', {}, formatDateTime(transfer.submissionDate)),
      h('td', { class: 'money' }, formatMoney(transfer.amountCents)),
      h('td', {}, payee(entry)),
      h('td', {}, transfer.category),
      h('td', {}, h('span', { class: `badge ${transfer.status.toLowerCase()}` }, transfer.status)),
      h('td', {}, decision(entry)),
      actions,
    );
  }

  async function decide(entry: DashboardTransfer, action: 'approve' | 'reject'): Promise<void> {
    const id = entry.transfer.id;
    let result;
    if (action === 'approve') {
      result = await api.POST('/dashboard/api/transfer/{id}/approve', { params: { path: { id }, header: csrf() } });
    } else {
      const reason = await reasonDialog.ask(
        `${formatMoney(entry.transfer.amountCents)} to ${entry.transfer.payee.accountName}`,
      );
      if (reason === undefined) return;
      result = await api.POST('/dashboard/api/transfer/{id}/reject', {
        params: { path: { id }, header: csrf() },
        body: { reason },
      });
    }
    const row = rows.querySelector(`tr[data-transfer-id="${CSS.escape(id)}"]`);
    if (result.data === undefined) {
      replaceChildren(
        feedback,
        message(
          'error',
          `Could not ${action} the transfer of ${formatMoney(entry.transfer.amountCents)}: ${describeError(result.error, result.response)}`,
        ),
      );
      return;
    }
    const updated = render(result.data);
    row?.replaceWith(updated);
    const text = `${action === 'approve' ? 'Approved' : 'Rejected'}: ${formatMoney(result.data.transfer.amountCents)} to ${result.data.transfer.payee.accountName}; now ${result.data.transfer.status}.`;
    const note = message('ok', text);
    replaceChildren(feedback, note);
    announce(text);
    updated.querySelector('td')?.setAttribute('tabindex', '-1');
    if (awaitsSettlement(result.data.transfer.status)) void followSettlement(result.data, note);
  }

  /** The transfer as it is now (GET /dashboard/api/transfer/{id}), or undefined when the request fails. */
  async function refetch(entry: DashboardTransfer): Promise<DashboardTransfer | undefined> {
    const { data } = await api.GET('/dashboard/api/transfer/{id}', { params: { path: { id: entry.transfer.id } } });
    return data;
  }

  /**
   * After an approval: asks again after each wait of settleWatchDelays and replaces the row while
   * the transfer is on the page, until it is no longer PROCESSING; the approval's note, while it
   * is still shown, says the outcome too. It stops when the row has left the page (another view,
   * other filters), when a request fails, and after the last wait.
   */
  async function followSettlement(approved: DashboardTransfer, note: HTMLElement): Promise<void> {
    const id = approved.transfer.id;
    const onPage = (): Element | null =>
      rows.isConnected ? rows.querySelector(`tr[data-transfer-id="${CSS.escape(id)}"]`) : null;
    for (const delay of settleWatchDelays()) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (onPage() === null) return;
      let current: DashboardTransfer | undefined;
      try {
        current = await refetch(approved);
      } catch {
        return; // the network failed, or the page is going away
      }
      const row = onPage();
      if (current === undefined || row === null) return;
      if (awaitsSettlement(current.transfer.status)) continue;
      row.replaceWith(render(current));
      const text = `Settled: ${formatMoney(current.transfer.amountCents)} to ${current.transfer.payee.accountName}; now ${current.transfer.status}.`;
      if (feedback.contains(note)) replaceChildren(feedback, message('ok', text));
      announce(text);
      return;
    }
  }

  const pager = morePager(async (cursor) => {
    const { data, error, response } = await api.GET('/dashboard/api/transfer', {
      params: { query: { ...filters, limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) } },
    });
    if (data === undefined) {
      replaceChildren(feedback, message('error', describeError(error, response)));
      return undefined;
    }
    if (cursor === undefined) rows.replaceChildren();
    rows.append(...data.transfers.map(render));
    if (cursor === undefined && data.transfers.length === 0)
      rows.append(h('tr', {}, h('td', { colspan: 7 }, 'No transfers match.')));
    return data.nextCursor;
  }, 'transfers');

  filterForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const minCents = min.value.trim() === '' ? undefined : parseMoney(min.value);
    const maxCents = max.value.trim() === '' ? undefined : parseMoney(max.value);
    if ((min.value.trim() !== '' && minCents === undefined) || (max.value.trim() !== '' && maxCents === undefined)) {
      replaceChildren(
        feedback,
        message('error', 'Amounts are in pounds with at most two decimals, for example 1500 or 1500.50.'),
      );
      return;
    }
    if (minCents !== undefined && maxCents !== undefined && minCents > maxCents) {
      replaceChildren(feedback, message('error', 'The minimum amount is above the maximum.'));
      return;
    }
    filters = {
      ...(status.value === '' ? {} : { status: status.value as Schemas['TransferStatus'] }),
      ...(minCents === undefined ? {} : { minAmountCents: minCents }),
      ...(maxCents === undefined ? {} : { maxAmountCents: maxCents }),
    };
    feedback.replaceChildren();
    void pager.reset();
  });

  replaceChildren(
    main,
    ...heading(
      'Transfers',
      isApprover()
        ? 'Pending transfers first. Approve one to pay it out, or reject it with a reason.'
        : 'Pending transfers first. You are a viewer: an approver decides them.',
    ),
    filterForm,
    feedback,
    table(
      'Transfers, pending first, newest first',
      ['Submitted (Cairo)', 'Amount', 'Payee', 'Category', 'Status', 'Decision', 'Actions'],
      rows,
    ),
    pager.element,
    reasonDialog.element,
  );
  await pager.reset();
}

/** The reject dialog: a labelled reason, Reject or Cancel; resolves to the reason, or undefined. */
function rejectDialog(): { element: HTMLDialogElement; ask: (what: string) => Promise<string | undefined> } {
  const reason = h('textarea', { name: 'reason', required: true, maxlength: 500, rows: 3 });
  const title = h('h2', { id: 'reject-title' }, 'Reject transfer');
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const form = h(
    'form',
    { method: 'dialog' },
    title,
    field('Reason for rejecting', reason, 'The maker sees it on the transfer.'),
    h('p', { class: 'buttons' }, h('button', { type: 'submit', class: 'danger' }, 'Reject transfer'), cancel),
  );
  const element = h('dialog', { 'aria-labelledby': 'reject-title' }, form);
  let settle: ((value: string | undefined) => void) | undefined;
  const done = (value: string | undefined): void => {
    settle?.(value);
    settle = undefined;
    if (element.open) element.close();
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (reason.value.trim() === '') return;
    done(reason.value.trim());
  });
  cancel.addEventListener('click', () => done(undefined));
  element.addEventListener('close', () => done(undefined));
  return {
    element,
    ask(what) {
      title.textContent = `Reject ${what}`;
      reason.value = '';
      element.showModal();
      reason.focus();
      return new Promise((resolve) => {
        settle = resolve;
      });
    },
  };
}
