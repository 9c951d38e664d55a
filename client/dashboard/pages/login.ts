/** The login form: POST /dashboard/api/session; 401 and 429 (with its wait) said in words. */
import { api, describeError, setSession } from '../api.js';
import { announce, field, h, message, replaceChildren } from '../dom.js';

export function showLogin(main: HTMLElement, note: string | undefined, loggedIn: () => void): void {
  const username = h('input', {
    name: 'username',
    id: 'username',
    autocomplete: 'username',
    required: true,
    maxlength: 254,
    autocapitalize: 'none',
    spellcheck: 'false',
  });
  const password = h('input', {
    name: 'password',
    id: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    maxlength: 1024,
  });
  const feedback = h('div', { class: 'feedback' }, note === undefined ? null : message('ok', note));
  const submit = h('button', { type: 'submit' }, 'Log in');
  const form = h(
    'form',
    { class: 'login', novalidate: false },
    h('h1', {}, 'Partner dashboard'),
    h('p', { class: 'muted' }, 'Log in with the username and password your organization gave you.'),
    feedback,
    field('Username', username),
    field('Password', password),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit.disabled = true;
    void api
      .POST('/dashboard/api/session', { body: { username: username.value.trim(), password: password.value } })
      .then(
        ({ data, error, response }) => {
          submit.disabled = false;
          if (data !== undefined) {
            password.value = '';
            setSession(data);
            announce(`Logged in as ${data.operator.username}`);
            loggedIn();
            return;
          }
          const text = response.status === 401 ? 'Wrong username or password.' : describeError(error, response);
          replaceChildren(feedback, message('error', text));
          password.select();
        },
        () => {
          submit.disabled = false;
          replaceChildren(
            feedback,
            message('error', 'The service cannot be reached. Check the connection and try again.'),
          );
        },
      );
  });
  replaceChildren(main, form);
}
