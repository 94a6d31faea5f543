// The chat list: every conversation by last activity, with unread counts and a preview of the newest message.
// It reloads (at most every RELOAD_MS) when something that changes the list arrives.
import { el, heading, errorBox, formatTime } from '../ui.js';
import { previewText } from '../messages.js';

const RELOAD_MS = 250;
const CHANGES = ['message', 'conversation.read', 'message.hidden', 'resumed', 'friend.request.accepted', 'profile.updated'];

let unsubscribe = [];
let reloadTimer = null;

export function show(root, params, app) {
  const { t, client } = app;
  const list = el('ul', { class: 'list', 'aria-label': t('chats.list_label'), 'aria-busy': 'true' });
  const error = errorBox();
  root.append(heading(t('chats.title')), error, list);

  const load = async () => {
    try {
      const { conversations } = await client.request('conversations.list');
      error.show('');
      render(list, conversations, app);
    } catch (failure) {
      error.show(app.errorText(failure));
    }
    list.setAttribute('aria-busy', 'false');
  };
  const reloadSoon = () => {
    clearTimeout(reloadTimer);
    reloadTimer = setTimeout(load, RELOAD_MS);
  };
  unsubscribe = CHANGES.map((name) => client.on(name, reloadSoon));
  load();
}

export function hide() {
  clearTimeout(reloadTimer);
  for (const off of unsubscribe) off();
  unsubscribe = [];
}

function render(list, conversations, app) {
  const { t } = app;
  if (!conversations.length) {
    list.replaceChildren(el('li', { class: 'empty' }, t('chats.empty'), ' ',
      el('a', { href: '#/friends' }, t('chats.empty_link'))));
    return;
  }
  list.replaceChildren(...conversations.map((c) => {
    app.rememberNames(c.members);
    const nameOf = (id) => id === app.me.userId ? t('you') : app.names.get(id) ?? t('someone');
    const unread = c.unread_count > 0
      ? el('span', { class: 'unread', 'aria-label': t('chats.unread', { count: c.unread_count }) }, String(c.unread_count))
      : null;
    return el('li', { dataset: { conversation: c.conversation_id } },
      el('a', { class: 'chat-link', href: `#/chat/${c.conversation_id}` },
        el('span', { class: 'name' }, c.name), unread,
        el('span', { class: 'when' }, formatTime(c.last_activity_at)),
        el('span', { class: 'detail' }, c.active ? previewText(c.last_message, nameOf) : t('chats.left'))));
  }));
}
