// A forgotten password (issue 37): the phone number, a code the server texts to it, and a new password twice. The server answers
// alike whether or not the number has an account; a wrong or expired code, or an unknown number, is one error (invalid_code).
// On success every other session of the account has ended and this browser is logged in with the new password.
import { el, heading, field, checkbox, errorBox, busy } from '../ui.js';

export function show(root, params, app) {
  const { t, client } = app;
  const phone = field(t('login.phone'), { type: 'tel', autocomplete: 'tel', required: true }, t('login.phone_hint'));
  const sendCode = el('button', { type: 'button', class: 'quiet' }, t('reset.send_code'));
  const sent = el('p', { class: 'notice', role: 'status' });
  const code = field(t('reset.code'), { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: '6' });
  const password = field(t('reset.password'), { type: 'password', autocomplete: 'new-password', required: true },
    t('register.password_hint'));
  const again = field(t('register.password_again'), { type: 'password', autocomplete: 'new-password', required: true });
  const remember = checkbox(t('login.remember'));
  const error = errorBox();
  const submit = el('button', { type: 'submit' }, t('reset.submit'));

  sendCode.addEventListener('click', () => {
    if (!phone.input.value.trim()) return error.show(t('reset.missing'));
    error.show('');
    busy(sendCode, async () => {
      await client.startVerification(phone.input.value.trim(), 'reset');
      sent.textContent = t('reset.code_sent');
      code.input.focus();
    }, error.show);
  });

  const form = el('form', { novalidate: true }, phone.row, el('div', { class: 'actions' }, sendCode), sent, code.row,
    password.row, again.row, remember.row, error, el('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const problem = !phone.input.value.trim() || !code.input.value.trim() || !password.input.value ? 'reset.missing'
      : password.input.value !== again.input.value ? 'register.mismatch' : null;
    if (problem) return error.show(t(problem));
    error.show('');
    busy(submit, async () => {
      const result = await client.resetPassword({ phone: phone.input.value.trim(), code: code.input.value.trim(),
        password: password.input.value });
      const profile = await client.request('profile.get');
      app.saveSession({ token: result.session_token, userId: result.user_id,
        displayName: profile.profile.display_name }, remember.input.checked);
      app.navigate('#/chats');
    }, error.show);
  });

  root.append(heading(t('reset.title')), el('p', {}, t('reset.intro')), form,
    el('p', {}, el('a', { href: '#/login' }, t('reset.back'))));
}
