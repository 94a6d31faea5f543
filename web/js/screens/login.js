// Log in with phone number and password; "remember me" keeps the session token after the browser closes.
import { el, heading, field, checkbox, errorBox, busy } from '../ui.js';

export function show(root, params, app) {
  const { t, client } = app;
  const phone = field(t('login.phone'), { type: 'tel', autocomplete: 'tel', required: true }, t('login.phone_hint'));
  const password = field(t('login.password'), { type: 'password', autocomplete: 'current-password', required: true });
  const remember = checkbox(t('login.remember'));
  const error = errorBox();
  const submit = el('button', { type: 'submit' }, t('login.submit'));

  const form = el('form', { novalidate: true }, phone.row, password.row, remember.row, error,
    el('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!phone.input.value.trim() || !password.input.value) return error.show(t('login.missing'));
    error.show('');
    busy(submit, async () => {
      const result = await client.login({ phone: phone.input.value.trim(), password: password.input.value });
      const profile = await client.request('profile.get');
      app.saveSession({ token: result.session_token, userId: result.user_id,
        displayName: profile.profile.display_name }, remember.input.checked);
      app.navigate('#/chats');
    }, error.show);
  });

  const notice = el('p', { class: 'notice', role: 'status' }, app.notice);
  notice.hidden = !app.notice;
  app.notice = '';
  root.append(heading(t('login.title')), notice, form,
    el('p', {}, el('a', { href: '#/reset' }, t('login.forgot_link'))),
    el('p', {}, t('login.no_account'), ' ', el('a', { href: '#/register' }, t('login.register_link'))));
}
