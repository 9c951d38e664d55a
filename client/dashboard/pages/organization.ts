/** The organization's balance and its API clients (ids and scopes: the API never hands out a secret). */
import { api, describeError, session } from '../api.js';
import { h, message, replaceChildren, table } from '../dom.js';
import { formatDateTime, formatMoney } from '../format.js';
import { heading } from './shared.js';

export async function showOrganization(main: HTMLElement): Promise<void> {
  const [balance, clients] = await Promise.all([api.GET('/dashboard/api/balance'), api.GET('/dashboard/api/client')]);
  const parts: HTMLElement[] = [
    ...heading(
      session()?.organization.name ?? 'Organization',
      'The balance approvals reserve from, and the API clients of the partner API.',
    ),
  ];
  parts.push(h('h2', {}, 'Balance'));
  if (balance.data === undefined) {
    parts.push(message('error', describeError(balance.error, balance.response)));
  } else {
    const { availableCents, processingCents, pendingCents } = balance.data;
    parts.push(
      h(
        'dl',
        { class: 'balance' },
        h(
          'div',
          {},
          h('dt', {}, 'Available'),
          h('dd', { class: 'money', id: 'balance-available' }, formatMoney(availableCents)),
        ),
        h('div', {}, h('dt', {}, 'Processing (reserved)'), h('dd', { class: 'money' }, formatMoney(processingCents))),
        h('div', {}, h('dt', {}, 'Pending a decision'), h('dd', { class: 'money' }, formatMoney(pendingCents))),
      ),
    );
  }
  parts.push(h('h2', {}, 'API clients'));
  if (clients.data === undefined) {
    parts.push(message('error', describeError(clients.error, clients.response)));
  } else {
    const rows = h(
      'tbody',
      {},
      ...clients.data.clients.map((client) =>
        h(
          'tr',
          {},
          h('td', {}, h('code', {}, client.clientId)),
          h('td', {}, client.scopes.join(', ')),
          h('td', {}, formatDateTime(client.createdAt)),
          h('td', {}, client.activePublicKeys),
        ),
      ),
    );
    parts.push(
      table('API clients, oldest first', ['Client id', 'Scopes', 'Created (Cairo)', 'Active public keys'], rows),
    );
    parts.push(
      h('p', { class: 'muted' }, 'A client secret and private key are shown once, at onboarding, and never again.'),
    );
  }
  replaceChildren(main, ...parts);
}
