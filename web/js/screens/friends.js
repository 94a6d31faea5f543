// Friends: the list (alphabetical, with presence and last seen), adding by phone number, requests in and out
// (accept, decline, cancel), removing a friend (after a confirmation), and finding friends from a pasted list
// of phone numbers (contacts.match).
import { el, heading, field, errorBox, busy, presenceText } from '../ui.js';
import { openReport } from '../report.js';
import { avatar } from '../photos.js';

const CHANGES = ['friend.request.received', 'friend.request.accepted', 'friend.request.declined',
  'friend.request.cancelled', 'friend.removed', 'profile.updated', 'resumed'];

let unsubscribe = [];

export function show(root, params, app) {
  const { t, client } = app;
  const error = errorBox();
  const friendsList = el('ul', { class: 'list', 'aria-label': t('friends.list_label') });
  const incoming = el('ul', { class: 'list', 'aria-label': t('friends.incoming') });
  const outgoing = el('ul', { class: 'list', 'aria-label': t('friends.outgoing') });
  let friends = [];

  const act = async (op, params, button) => busy(button, async () => {
    await client.request(op, params);
    await load();
  }, (text) => app.toast(text));

  const renderFriends = () => {
    friendsList.replaceChildren(...(friends.length ? friends.map((f) => {
      const presence = app.presence.get(f.user_id);
      const status = presence?.status ?? 'offline';
      const chat = el('button', { type: 'button', 'aria-label': t('friends.message_label', { name: f.display_name }) },
        t('friends.message'));
      chat.addEventListener('click', () => busy(chat, async () => {
        const { conversation } = await client.request('conversations.direct', { user_id: f.user_id });
        app.navigate(`#/chat/${conversation.conversation_id}`);
      }, (text) => app.toast(text)));
      const remove = el('button', { type: 'button', class: 'danger',
        'aria-label': t('friends.remove_label', { name: f.display_name }) }, t('friends.remove'));
      remove.addEventListener('click', () => {
        if (!confirm(t('friends.remove_confirm', { name: f.display_name }))) return;
        busy(remove, async () => {
          await client.request('friends.remove', { user_id: f.user_id });
          app.toast(t('friends.removed', { name: f.display_name }));
          await load();
        }, (text) => app.toast(text));
      });
      return el('li', { dataset: { user: f.user_id } }, avatar(app, f),
        el('div', { class: 'who' }, el('div', { class: 'name' }, f.display_name),
          el('div', { class: `detail status-${status}` }, presenceText(presence))),
        el('div', { class: 'actions tight' }, chat, remove,
          el('button', { type: 'button', class: 'quiet', 'aria-label': t('report.user_title', { name: f.display_name }),
            onclick: () => openReport(app, { kind: 'user', id: f.user_id, title: t('report.user_title', { name: f.display_name }) }) },
          t('report.action'))));
    }) : [el('li', { class: 'empty' }, t('friends.none'))]));
  };

  const requestItem = (request, direction) => {
    const other = direction === 'in' ? request.from : request.to;
    const buttons = direction === 'in'
      ? [el('button', { type: 'button', 'aria-label': t('friends.accept_label', { name: other.display_name }),
          onclick: (e) => act('friends.accept', { request_id: request.request_id }, e.currentTarget) }, t('friends.accept')),
        el('button', { type: 'button', class: 'quiet', 'aria-label': t('friends.decline_label', { name: other.display_name }),
          onclick: (e) => act('friends.decline', { request_id: request.request_id }, e.currentTarget) }, t('friends.decline'))]
      : [el('button', { type: 'button', class: 'quiet', 'aria-label': t('friends.cancel_label', { name: other.display_name }),
          onclick: (e) => act('friends.cancel', { request_id: request.request_id }, e.currentTarget) }, t('friends.cancel'))];
    return el('li', {}, el('div', { class: 'who' }, el('div', { class: 'name' }, other.display_name)), ...buttons);
  };

  const load = async () => {
    try {
      const [list, requests] = await Promise.all([client.request('friends.list'), client.request('friends.requests')]);
      friends = list.friends;
      app.rememberNames(friends);
      renderFriends();
      incoming.replaceChildren(...(requests.incoming.length ? requests.incoming.map((r) => requestItem(r, 'in'))
        : [el('li', { class: 'empty' }, t('friends.no_incoming'))]));
      outgoing.replaceChildren(...(requests.outgoing.length ? requests.outgoing.map((r) => requestItem(r, 'out'))
        : [el('li', { class: 'empty' }, t('friends.no_outgoing'))]));
      error.show('');
    } catch (failure) {
      error.show(app.errorText(failure));
    }
  };

  root.append(heading(t('friends.title')), error,
    el('h2', {}, t('friends.incoming')), incoming,
    el('h2', {}, t('friends.your_friends')), friendsList,
    addByPhone(app, load),
    el('h2', {}, t('friends.outgoing')), outgoing,
    matchContacts(app, load));

  unsubscribe = [...CHANGES.map((name) => client.on(name, load)),
    client.on('presence', renderFriends), client.on('presence.snapshot', renderFriends)];
  load();
}

export function hide() {
  for (const off of unsubscribe) off();
  unsubscribe = [];
}

function addByPhone(app, reload) {
  const { t, client } = app;
  const phone = field(t('friends.add_phone'), { type: 'tel', autocomplete: 'off' }, t('friends.add_hint'));
  const error = errorBox();
  const submit = el('button', { type: 'submit' }, t('friends.add_submit'));
  const form = el('form', { novalidate: true }, phone.row, error, el('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!phone.input.value.trim()) return error.show(t('friends.add_missing'));
    error.show('');
    busy(submit, async () => {
      const result = await client.request('friends.request', { phone: phone.input.value.trim() });
      phone.input.value = '';
      app.toast(result.friend ? t('friends.now_friends', { name: result.friend.display_name })
        : t('friends.request_sent', { name: result.request.to.display_name }));
      await reload();
    }, error.show);
  });
  return el('section', { 'aria-labelledby': 'add-friend' }, el('h2', { id: 'add-friend' }, t('friends.add_title')), form);
}

function matchContacts(app, reload) {
  const { t, client } = app;
  const numbers = field(t('friends.match_numbers'), { as: 'textarea', rows: '4' }, t('friends.match_hint'));
  const error = errorBox();
  const results = el('ul', { class: 'list', 'aria-label': t('friends.match_results'), 'aria-live': 'polite' });
  const submit = el('button', { type: 'submit' }, t('friends.match_submit'));
  const form = el('form', { novalidate: true }, numbers.row, error, el('div', { class: 'actions' }, submit), results);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const phones = numbers.input.value.split(/[\n,;]+/).map((s) => s.trim()).filter(Boolean);
    if (!phones.length) return error.show(t('friends.match_missing'));
    error.show('');
    busy(submit, async () => {
      const { matches } = await client.request('contacts.match', { phones });
      results.replaceChildren(...(matches.length ? matches.map((m) => el('li', {},
        el('div', { class: 'who' }, el('div', { class: 'name' }, m.display_name), el('div', { class: 'detail' }, m.phone)),
        el('button', { type: 'button', 'aria-label': t('friends.add_label', { name: m.display_name }),
          onclick: (e) => busy(e.currentTarget, async () => {
            const result = await client.request('friends.request', { user_id: m.user_id });
            app.toast(result.friend ? t('friends.now_friends', { name: m.display_name })
              : t('friends.request_sent', { name: m.display_name }));
            await reload();
          }, (text) => app.toast(text)) }, t('friends.add_submit'))))
        : [el('li', { class: 'empty' }, t('friends.match_none'))]));
    }, error.show);
  });
  return el('section', { 'aria-labelledby': 'match-contacts' },
    el('h2', { id: 'match-contacts' }, t('friends.match_title')), form);
}
