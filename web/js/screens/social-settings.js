// The social part of Settings: the handle (checked with `handle.check` as you type, saved with `handle.set`),
// the bio, a protected account, who may message you, follow requests to approve or deny, and the people you
// blocked or muted. Shown on the settings screen (settings.js).
import { el, field, checkbox, errorBox, busy, pagedList } from '../ui.js';
import { userLabel } from '../social.js';

const CHECK_DELAY_MS = 300;
const HANDLE_PATTERN = /^[A-Za-z0-9_]{3,30}$/;

export function socialSettingsSection(app) {
  const { t, client } = app;
  const node = el('section', { 'aria-labelledby': 'social-settings', class: 'social-settings' },
    el('h2', { id: 'social-settings' }, t('social_settings.title')));
  let profile = null;

  // MARK: handle
  const handle = field(t('social_settings.handle'), { type: 'text', maxlength: '30', autocomplete: 'off', spellcheck: 'false',
    autocapitalize: 'off' }, t('social_settings.handle_hint'));
  const handleStatus = el('p', { class: 'handle-status', role: 'status', 'aria-live': 'polite' });
  const handleError = errorBox();
  const handleSave = el('button', { type: 'submit' }, t('social_settings.handle_save'));
  const own = el('p');
  const handleForm = el('form', { novalidate: true }, handle.row, handleStatus, handleError, el('div', { class: 'actions' }, handleSave), own);
  let checkTimer = null;
  let checkCount = 0;
  const showOwn = () => {
    own.replaceChildren(profile?.handle
      ? el('a', { href: `#/u/${encodeURIComponent(profile.handle)}` }, t('social_settings.see_profile', { handle: profile.handle }))
      : t('social_settings.no_handle'));
  };
  const status = (text, good) => {
    handleStatus.textContent = text;
    handleStatus.className = `handle-status ${good === true ? 'good' : good === false ? 'bad' : ''}`;
  };
  handle.input.addEventListener('input', () => {
    clearTimeout(checkTimer);
    const value = handle.input.value.trim().replace(/^@/, '');
    handleError.show('');
    if (!value || value === profile?.handle) return status('', null);
    if (!HANDLE_PATTERN.test(value)) return status(t('social_settings.handle_invalid'), false);
    const mine = ++checkCount;
    checkTimer = setTimeout(async () => {
      try {
        const result = await client.request('handle.check', { handle: value });
        if (mine !== checkCount) return;
        if (result.available) status(t('social_settings.handle_available', { handle: value }), true);
        else status(t(`social_settings.handle_${result.reason ?? 'taken'}`, { handle: value }), false);
      } catch {
        if (mine === checkCount) status('', null);
      }
    }, CHECK_DELAY_MS);
  });
  handleForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const value = handle.input.value.trim().replace(/^@/, '');
    if (!HANDLE_PATTERN.test(value)) return handleError.show(t('social_settings.handle_invalid'));
    handleError.show('');
    busy(handleSave, async () => {
      ({ profile } = await client.request('handle.set', { handle: value }));
      handle.input.value = profile.handle;
      status('', null);
      showOwn();
      app.toast(t('social_settings.handle_saved', { handle: profile.handle }));
    }, handleError.show);
  });

  // MARK: bio, protected, DM policy
  const bio = field(t('social_settings.bio'), { as: 'textarea', maxlength: '400', rows: '3' }, t('social_settings.bio_hint'));
  const locked = checkbox(t('social_settings.protected'));
  const lockedHint = el('p', { class: 'hint' }, t('social_settings.protected_hint'));
  const policy = field(t('social_settings.dm_policy'), { as: 'select' });
  for (const value of ['friends', 'mutuals', 'anyone']) policy.input.append(el('option', { value }, t(`social_settings.dm.${value}`)));
  const profileError = errorBox();
  const profileSave = el('button', { type: 'submit' }, t('social_settings.save'));
  const profileForm = el('form', { novalidate: true }, bio.row, locked.row, lockedHint, policy.row, profileError,
    el('div', { class: 'actions' }, profileSave));
  profileForm.addEventListener('submit', (event) => {
    event.preventDefault();
    profileError.show('');
    busy(profileSave, async () => {
      const wasProtected = profile?.protected;
      ({ profile } = await client.request('profile.update', { bio: bio.input.value.trim(), protected: locked.input.checked,
        dm_policy: policy.input.value }));
      app.toast(t('social_settings.saved'));
      if (wasProtected && !profile.protected) loadRequests();
    }, profileError.show);
  });

  // MARK: follow requests, blocked, muted
  const peopleList = (headingKey, emptyKey, op, itemButtons) => {
    const id = `social-${op.replace('.', '-')}`;
    const list = el('ul', { class: 'list', 'aria-labelledby': id, 'aria-busy': 'true' });
    const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('social_settings.more'));
    const error = errorBox();
    let load = null;
    const item = (entry) => {
      const user = entry.user ?? entry;
      return el('li', { dataset: { user: user.user_id } },
        el('div', { class: 'who' }, el('div', { class: 'name' }, user.handle
          ? el('a', { href: `#/u/${encodeURIComponent(user.handle)}` }, userLabel(user)) : userLabel(user))),
        ...itemButtons(user, () => load()));
    };
    load = pagedList({ list, more, error, emptyText: t(emptyKey), fetchPage: async (before) => {
      const page = await client.request(op, { limit: 20, ...(before ? { before } : {}) });
      return { items: (page.requests ?? page.users ?? []).map(item), next: page.next_before ?? null };
    } });
    node.append(el('h3', { id }, t(headingKey)), error, list, el('div', { class: 'actions' }, more));
    return load;
  };

  const userButton = (op, key, labelKey, className, doneKey) => (user, reload) => el('button', { type: 'button', class: `${className} small`,
    'aria-label': t(labelKey, { name: user.display_name }),
    onclick: (e) => busy(e.currentTarget, async () => {
      await client.request(op, { user_id: user.user_id });
      app.toast(t(doneKey, { name: user.display_name }));
      await reload();
    }, (text) => app.toast(text)) }, t(key));

  node.append(el('h3', {}, t('social_settings.handle_title')), handleForm,
    el('h3', {}, t('social_settings.profile_title')), profileForm);
  const loadRequests = peopleList('social_settings.requests', 'social_settings.no_requests', 'follow.requests', (user, reload) => [
    userButton('follow.approve', 'social_settings.approve', 'social_settings.approve_label', 'primary', 'social_settings.approved')(user, reload),
    userButton('follow.deny', 'social_settings.deny', 'social_settings.deny_label', 'danger', 'social_settings.denied')(user, reload),
  ]);
  const loadBlocks = peopleList('social_settings.blocked', 'social_settings.no_blocked', 'blocks.list', (user, reload) => [
    userButton('unblock', 'social_settings.unblock', 'social_settings.unblock_label', 'quiet', 'social_settings.unblocked')(user, reload),
  ]);
  const loadMutes = peopleList('social_settings.muted', 'social_settings.no_muted', 'mutes.list', (user, reload) => [
    userButton('unmute', 'social_settings.unmute', 'social_settings.unmute_label', 'quiet', 'social_settings.unmuted')(user, reload),
  ]);

  const typed = new Set();
  for (const input of [handle.input, bio.input, locked.input, policy.input]) {
    input.addEventListener('input', () => typed.add(input));
    input.addEventListener('change', () => typed.add(input));
  }
  client.request('profile.get').then(({ profile: p }) => {
    profile = p;
    // What was typed before the profile arrived stays.
    if (!typed.has(handle.input)) handle.input.value = p.handle ?? '';
    if (!typed.has(bio.input)) bio.input.value = p.bio ?? '';
    if (!typed.has(locked.input)) locked.input.checked = Boolean(p.protected);
    if (!typed.has(policy.input)) policy.input.value = p.dm_policy ?? 'friends';
    showOwn();
  }, (failure) => profileError.show(app.errorText(failure)));
  loadRequests();
  loadBlocks();
  loadMutes();

  // A request arriving while Settings is open joins the list; so do blocks and mutes made on another device.
  const offs = [
    client.on('notification', ({ notification: n }) => { if (n?.kind === 'follow_request') loadRequests(); }),
    client.on('relationship.changed', () => { loadBlocks(); loadMutes(); }),
  ];
  node.stop = () => { for (const off of offs) off(); clearTimeout(checkTimer); };
  return node;
}
