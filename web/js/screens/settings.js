// Settings: your name (profile.update), your phone number, the devices logged in to your account
// (sessions.list, sessions.revoke), and logging out.
import { el, heading, field, errorBox, busy, formatTime } from '../ui.js';
import { activeHoursSection } from './hours.js';
import { socialSettingsSection } from './social-settings.js';
import { avatarSection } from './avatar-settings.js';

let social = null;
let picture = null;

export function show(root, params, app) {
  const { t, client } = app;
  const error = errorBox();
  const name = field(t('settings.name'), { type: 'text', maxlength: '64', autocomplete: 'name' });
  const phone = el('p');
  const nameError = errorBox();
  const save = el('button', { type: 'submit' }, t('settings.save'));
  const form = el('form', { novalidate: true }, name.row, nameError, el('div', { class: 'actions' }, save));
  const sessions = el('ul', { class: 'list', 'aria-label': t('settings.sessions') });
  const logout = el('button', { type: 'button', class: 'danger', onclick: () => app.logout() }, t('nav.logout'));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!name.input.value.trim()) return nameError.show(t('settings.name_missing'));
    nameError.show('');
    busy(save, async () => {
      const { profile } = await client.request('profile.update', { display_name: name.input.value.trim() });
      app.me.displayName = profile.display_name;
      app.toast(t('settings.saved'));
    }, nameError.show);
  });

  const loadSessions = async () => {
    const list = await client.request('sessions.list');
    sessions.replaceChildren(...list.sessions.map((s) => el('li', {},
      el('div', { class: 'who' }, el('div', { class: 'name' }, s.device),
        el('div', { class: 'detail' }, s.current ? t('settings.this_device')
          : t('settings.last_used', { time: formatTime(s.last_seen_at) }))),
      s.current ? null : el('button', { type: 'button', class: 'quiet',
        'aria-label': t('settings.revoke_label', { device: s.device, time: formatTime(s.created_at) }),
        onclick: (e) => busy(e.currentTarget, async () => {
          await client.request('sessions.revoke', { session_id: s.session_id });
          await loadSessions();
        }, (text) => app.toast(text)) }, t('settings.revoke')))));
  };

  social = socialSettingsSection(app);
  root.append(heading(t('settings.title')), error,
    el('h2', {}, t('settings.profile')), phone, form,
    picture = avatarSection(app),
    social,
    activeHoursSection(app),
    el('h2', {}, t('settings.sessions')), el('p', { class: 'hint' }, t('settings.sessions_hint')), sessions,
    el('h2', {}, t('settings.leave')), el('div', { class: 'actions' }, logout),
    el('h2', {}, t('account.title')), el('p', {}, el('a', { href: '#/account' }, t('account.link'))));

  Promise.all([client.request('profile.get').then(({ profile }) => {
    name.input.value = profile.display_name;
    phone.textContent = t('settings.phone', { phone: profile.phone });
  }), loadSessions()]).catch((failure) => error.show(app.errorText(failure)));
}

export function hide() {
  social?.stop();
  social = null;
  picture?.stop();
  picture = null;
}
