/**
 * The partner dashboard's pages: one HTML page, served at /dashboard, and these views, chosen by
 * the address's hash (`#/transfers`, `#/cards`, `#/ledger`, `#/organization`). The session is the
 * browser's cookie; at start GET /dashboard/api/session says whether there is one (and gives the
 * CSRF token back after a reload), else the login form shows.
 */
import { api, describeError, session, setSession, csrf, whenSessionEnds } from './api.js';
import { announce, h, message, replaceChildren } from './dom.js';
import { showLogin } from './pages/login.js';
import { showTransfers } from './pages/transfers.js';
import { showCards } from './pages/cards.js';
import { showLedger } from './pages/ledger.js';
import { showOrganization } from './pages/organization.js';

interface View {
  readonly title: string;
  readonly show: (main: HTMLElement) => Promise<void>;
}

const VIEWS: Record<string, View> = {
  transfers: { title: 'Transfers', show: showTransfers },
  cards: { title: 'Cards', show: showCards },
  ledger: { title: 'Ledger', show: showLedger },
  organization: { title: 'Organization', show: showOrganization },
};
const HOME = 'transfers';

const main = document.getElementById('main') as HTMLElement;
const top = document.getElementById('top') as HTMLElement;

function currentView(): string {
  const name = window.location.hash.replace(/^#\/?/, '');
  return name in VIEWS ? name : HOME;
}

function renderHeader(): void {
  const active = session();
  if (active === undefined) {
    top.hidden = true;
    top.replaceChildren();
    return;
  }
  const here = currentView();
  top.hidden = false;
  replaceChildren(
    top,
    h(
      'p',
      { class: 'brand' },
      h('strong', {}, active.organization.name),
      h('span', { class: 'muted' }, ` · ${active.operator.username} (${active.operator.role})`),
    ),
    h(
      'nav',
      { 'aria-label': 'Dashboard' },
      h(
        'ul',
        {},
        ...Object.entries(VIEWS).map(([name, view]) =>
          h('li', {}, h('a', { href: `#/${name}`, ...(name === here ? { 'aria-current': 'page' } : {}) }, view.title)),
        ),
      ),
    ),
    h('button', { type: 'button', class: 'secondary', id: 'logout', onclick: () => void logout() }, 'Log out'),
  );
}

async function route(focus: boolean): Promise<void> {
  if (session() === undefined) {
    renderHeader();
    return;
  }
  const name = currentView();
  const view = VIEWS[name] ?? VIEWS[HOME];
  if (view === undefined) return;
  document.title = `${view.title} · Partner dashboard`;
  renderHeader();
  replaceChildren(main, h('p', { class: 'muted' }, 'Loading…'));
  main.dataset['view'] = name;
  await view.show(main);
  if (focus) main.focus();
}

function loggedOut(note?: string): void {
  setSession(undefined);
  document.title = 'Log in · Partner dashboard';
  renderHeader();
  delete main.dataset['view'];
  showLogin(main, note, () => {
    void route(true);
  });
}

async function logout(): Promise<void> {
  const { error, response } = await api.DELETE('/dashboard/api/session', { params: { header: csrf() } });
  if (response.status === 204 || response.status === 401) {
    loggedOut('You are logged out.');
    announce('Logged out');
    return;
  }
  main.prepend(message('error', describeError(error, response)));
}

async function start(): Promise<void> {
  whenSessionEnds(() => loggedOut('Your session has ended. Log in again.'));
  window.addEventListener('hashchange', () => void route(true));
  const { data, response, error } = await api.GET('/dashboard/api/session');
  if (data !== undefined) {
    setSession(data);
    await route(false);
  } else if (response.status === 401) {
    loggedOut();
  } else {
    replaceChildren(main, message('error', describeError(error, response)));
  }
}

void start();
