// Create an account: phone number, display name, password twice, and optionally a handle (issue 18). The server's reason for refusing a
// password is shown in plain words (error.weak_password.* in strings.js). When the server requires phone verification (issue 37) the
// first attempt answers invalid_code: the screen then asks the server to text a code, shows the code field and a "send again" button,
// and the next attempt carries the code.
import { el, heading, field, checkbox, errorBox, busy } from '../ui.js';

export function show(root, params, app) {
  const { t, client } = app;
  const phone = field(t('register.phone'), { type: 'tel', autocomplete: 'tel', required: true }, t('register.phone_hint'));
  const name = field(t('register.name'), { type: 'text', autocomplete: 'name', required: true, maxlength: '64' },
    t('register.name_hint'));
  const password = field(t('register.password'), { type: 'password', autocomplete: 'new-password', required: true },
    t('register.password_hint'));
  const again = field(t('register.password_again'), { type: 'password', autocomplete: 'new-password', required: true });
  const handle = field(t('register.handle'), { type: 'text', autocomplete: 'off', spellcheck: 'false', autocapitalize: 'off', maxlength: '30' },
    t('register.handle_hint'));
  const code = field(t('register.code'), { type: 'text', inputmode: 'numeric', autocomplete: 'one-time-code', maxlength: '6' },
    t('register.code_hint'));
  const sendCode = el('button', { type: 'button', class: 'quiet' }, t('register.send_code'));
  const sent = el('p', { class: 'notice', role: 'status' });
  code.row.append(sendCode, sent);
  code.row.hidden = true;
  const remember = checkbox(t('login.remember'));
  const error = errorBox();
  const submit = el('button', { type: 'submit' }, t('register.submit'));

  const requestCode = async () => {
    await client.startVerification(phone.input.value.trim(), 'register');
    sent.textContent = t('register.code_sent');
  };
  sendCode.addEventListener('click', () => {
    if (!phone.input.value.trim()) return error.show(t('register.missing'));
    error.show('');
    busy(sendCode, requestCode, error.show);
  });

  const form = el('form', { novalidate: true }, phone.row, name.row, password.row, again.row, handle.row, code.row,
    remember.row, error, el('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = handle.input.value.trim().replace(/^@/, '');
    const problem = !phone.input.value.trim() || !name.input.value.trim() || !password.input.value
      ? 'register.missing'
      : password.input.value !== again.input.value ? 'register.mismatch'
        : chosen && !/^[A-Za-z0-9_]{3,30}$/.test(chosen) ? 'social_settings.handle_invalid' : null;
    if (problem) return error.show(t(problem));
    error.show('');
    busy(submit, async () => {
      const displayName = name.input.value.trim();
      let result;
      try {
        result = await client.register({ phone: phone.input.value.trim(), password: password.input.value, displayName,
          handle: chosen || null, code: code.row.hidden ? null : code.input.value.trim() || null });
      } catch (e) {
        if (e?.code !== 'invalid_code' || !code.row.hidden) throw e;
        // This server wants a code sent to the phone: ask for one and show the field.
        code.row.hidden = false;
        await requestCode();
        code.input.focus();
        return;
      }
      app.saveSession({ token: result.session_token, userId: result.user_id, displayName }, remember.input.checked);
      app.navigate('#/chats');
    }, error.show);
  });

  root.append(heading(t('register.title')), form,
    el('p', {}, t('register.have_account'), ' ', el('a', { href: '#/login' }, t('register.login_link'))));
}
