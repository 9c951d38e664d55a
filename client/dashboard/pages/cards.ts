/**
 * Cards with what each can still spend and its limits (GET /dashboard/api/card, keyset paging);
 * approvers edit limits with the partner API's bodies: PUT sets the whole limit state, PATCH
 * adds amounts to the current limits (both `application/merge-patch+json`, as the document says).
 */
import { api, csrf, describeError, isApprover, type Schemas } from '../api.js';
import { announce, field, h, message, replaceChildren, table } from '../dom.js';
import { centsToInput, formatMoney, parseMoney } from '../format.js';
import { heading, morePager } from './shared.js';

type Card = Schemas['Card'];
const PAGE_SIZE = 20;
const MERGE_PATCH = { 'Content-Type': 'application/merge-patch+json' } as const;

function cardName(card: Card): string {
  return `${card.nickname} ${card.last4 === null ? '(not activated)' : `•••• ${card.last4}`}`;
}

export async function showCards(main: HTMLElement): Promise<void> {
  const feedback = h('div', { class: 'feedback' });
  const rows = h('tbody');
  const editor = limitsDialog((updated) => {
    rows.querySelector(`tr[data-card-id="${CSS.escape(updated.id)}"]`)?.replaceWith(render(updated));
    const text = `Limits of ${cardName(updated)} saved.`;
    replaceChildren(feedback, message('ok', text));
    announce(text);
  });

  function render(card: Card): HTMLTableRowElement {
    const { limits } = card;
    const approval = limits.approvalBased !== null;
    return h(
      'tr',
      { 'data-card-id': card.id },
      h(
        'td',
        {},
        card.nickname,
        h('br'),
        h('small', { class: 'muted' }, card.last4 === null ? 'not activated' : `•••• ${card.last4}`),
      ),
      h('td', {}, card.cardHolder.fullName),
      h('td', { class: 'money' }, card.availableBalance === null ? '—' : formatMoney(card.availableBalance)),
      h('td', { class: 'money' }, approval ? '—' : formatMoney(limits.daily)),
      h('td', { class: 'money' }, approval ? '—' : formatMoney(limits.monthly)),
      h('td', { class: 'money' }, approval ? '—' : formatMoney(limits.atm)),
      h('td', { class: 'money' }, limits.approvalBased === null ? '—' : formatMoney(limits.approvalBased)),
      h(
        'td',
        { class: 'actions' },
        isApprover()
          ? h(
              'button',
              { type: 'button', 'aria-label': `Edit limits of ${cardName(card)}`, onclick: () => editor.open(card) },
              'Edit limits',
            )
          : null,
      ),
    );
  }

  const pager = morePager(async (cursor) => {
    const { data, error, response } = await api.GET('/dashboard/api/card', {
      params: { query: { limit: PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) } },
    });
    if (data === undefined) {
      replaceChildren(feedback, message('error', describeError(error, response)));
      return undefined;
    }
    if (cursor === undefined) rows.replaceChildren();
    rows.append(...data.cards.map(render));
    return data.nextCursor;
  }, 'cards');

  replaceChildren(
    main,
    ...heading('Cards', 'What each card can still spend, and its limits (per calendar day and month in Cairo time).'),
    feedback,
    table(
      'Cards, newest first',
      ['Card', 'Holder', 'Available', 'Daily limit', 'Monthly limit', 'ATM limit (month)', 'Approval-based', 'Actions'],
      rows,
    ),
    pager.element,
    editor.element,
  );
  await pager.reset();
}

function moneyInput(name: string, negative = false): HTMLInputElement {
  return h('input', {
    name,
    inputmode: negative ? 'text' : 'decimal',
    autocomplete: 'off',
    placeholder: negative ? '-250.00' : '0.00',
  });
}

/** The dialog to edit one card's limits: set them (PUT) or adjust them (PATCH). */
function limitsDialog(saved: (card: Card) => void): { element: HTMLDialogElement; open: (card: Card) => void } {
  const title = h('h2', { id: 'limits-title' }, 'Edit limits');
  const feedback = h('div', { class: 'feedback' });
  const plain = h('input', { type: 'radio', name: 'kind', value: 'plain', id: 'kind-plain', checked: true });
  const approval = h('input', { type: 'radio', name: 'kind', value: 'approval', id: 'kind-approval' });
  const set = {
    daily: moneyInput('daily'),
    monthly: moneyInput('monthly'),
    atm: moneyInput('atm'),
    approvalBased: moneyInput('approvalBased'),
  };
  const add = {
    daily: moneyInput('daily', true),
    monthly: moneyInput('monthly', true),
    atm: moneyInput('atm', true),
    approvalBased: moneyInput('approvalBased', true),
  };
  const setForm = h(
    'form',
    { 'aria-labelledby': 'set-title' },
    h('h3', { id: 'set-title' }, 'Set limits'),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Kind of card'),
      h('div', { class: 'choice' }, plain, h('label', { for: 'kind-plain' }, 'Plain limits')),
      h('div', { class: 'choice' }, approval, h('label', { for: 'kind-approval' }, 'Approval-based')),
    ),
    field('Daily limit (EGP)', set.daily),
    field('Monthly limit (EGP)', set.monthly),
    field('Monthly ATM limit (EGP)', set.atm),
    field('Approved amount (EGP)', set.approvalBased, 'For an approval-based card only.'),
    h('button', { type: 'submit' }, 'Set limits'),
  );
  const addForm = h(
    'form',
    { 'aria-labelledby': 'add-title' },
    h('h3', { id: 'add-title' }, 'Adjust limits'),
    h(
      'p',
      { class: 'muted' },
      'Amounts to add to the current limits; a negative amount lowers one, an empty one leaves it.',
    ),
    field('Change of the daily limit (EGP)', add.daily),
    field('Change of the monthly limit (EGP)', add.monthly),
    field('Change of the ATM limit (EGP)', add.atm),
    field('Change of the approved amount (EGP)', add.approvalBased),
    h('button', { type: 'submit' }, 'Adjust limits'),
  );
  const close = h('button', { type: 'button', class: 'secondary' }, 'Close');
  const element = h(
    'dialog',
    { 'aria-labelledby': 'limits-title', class: 'wide' },
    title,
    feedback,
    h('div', { class: 'two' }, setForm, addForm),
    h('p', { class: 'buttons' }, close),
  );
  close.addEventListener('click', () => element.close());
  let card: Card | undefined;

  const fail = (text: string): void => replaceChildren(feedback, message('error', text));
  const amountError = 'Amounts are in pounds with at most two decimals, for example 5000 or 5000.50.';

  setForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (card === undefined) return;
    // The two shapes of the request's oneOf (openapi-fetch's body type has no `approvalBased: null`).
    let body: { daily: number; monthly: number; atm: number } | { approvalBased: number };
    if (approval.checked) {
      const approvalBased = parseMoney(set.approvalBased.value);
      if (approvalBased === undefined) return fail(amountError);
      body = { approvalBased };
    } else {
      const [daily, monthly, atm] = [
        parseMoney(set.daily.value),
        parseMoney(set.monthly.value),
        parseMoney(set.atm.value),
      ];
      if (daily === undefined || monthly === undefined || atm === undefined) return fail(amountError);
      body = { daily, monthly, atm };
    }
    void api
      .PUT('/dashboard/api/card/{id}/limits', {
        params: { path: { id: card.id }, header: csrf() },
        body,
        headers: MERGE_PATCH,
      })
      .then(({ data, error, response }) => (data === undefined ? fail(describeError(error, response)) : done(data)));
  });

  addForm.addEventListener('submit', (event) => {
    event.preventDefault();
    if (card === undefined) return;
    const body: Schemas['UpdateCardLimitsRequest'] = {};
    for (const name of ['daily', 'monthly', 'atm', 'approvalBased'] as const) {
      const text = add[name].value.trim();
      if (text === '') continue;
      const cents = parseMoney(text, { negative: true });
      if (cents === undefined) return fail(amountError);
      body[name] = cents;
    }
    if (Object.keys(body).length === 0) return fail('Enter at least one change.');
    void api
      .PATCH('/dashboard/api/card/{id}/limits', {
        params: { path: { id: card.id }, header: csrf() },
        body,
        headers: MERGE_PATCH,
      })
      .then(({ data, error, response }) => (data === undefined ? fail(describeError(error, response)) : done(data)));
  });

  function done(updated: Card): void {
    element.close();
    saved(updated);
  }

  return {
    element,
    open(chosen) {
      card = chosen;
      title.textContent = `Edit limits of ${cardName(chosen)}`;
      feedback.replaceChildren();
      const { limits } = chosen;
      plain.checked = limits.approvalBased === null;
      approval.checked = limits.approvalBased !== null;
      set.daily.value = centsToInput(limits.daily);
      set.monthly.value = centsToInput(limits.monthly);
      set.atm.value = centsToInput(limits.atm);
      set.approvalBased.value = limits.approvalBased === null ? '' : centsToInput(limits.approvalBased);
      for (const input of Object.values(add)) input.value = '';
      element.showModal();
      set.daily.focus();
    },
  };
}
