// A group's settings: its members, rename, add a friend, leave. Each change appears in the chat as the
// system message the server stores.
import { el, heading, field, errorBox, busy } from '../ui.js';

let unsubscribe = null;

export function show(root, params, app) {
  const { t, client } = app;
  const id = Number(params.id);
  const title = heading(t('group.title'));
  const error = errorBox();
  const members = el('ul', { class: 'list', 'aria-label': t('group.members') });
  const body = el('div');
  root.append(title, error, body);

  const load = async () => {
    try {
      const [{ conversation }, { friends }] = await Promise.all([
        client.request('conversations.get', { conversation_id: id }), client.request('friends.list')]);
      title.textContent = t('group.title_named', { name: conversation.name });
      members.replaceChildren(...conversation.members.map((m) =>
        el('li', {}, el('div', { class: 'who' }, el('div', { class: 'name' },
          m.user_id === app.me.userId ? t('group.you', { name: m.display_name }) : m.display_name)))));
      const parts = [el('p', {}, el('a', { href: `#/chat/${id}` }, t('group.back'))),
        el('h2', {}, t('group.members')), members];
      if (conversation.active) {
        const inGroup = new Set(conversation.members.map((m) => m.user_id));
        parts.push(renameForm(app, id, conversation.name, load), addForm(app, id, friends.filter((f) => !inGroup.has(f.user_id)), load),
          leaveSection(app, id));
      } else {
        parts.push(el('p', { class: 'empty' }, t('chat.left')));
      }
      body.replaceChildren(...parts);
      error.show('');
    } catch (failure) {
      error.show(app.errorText(failure));
    }
  };
  unsubscribe = client.on('message', ({ message }) => {
    if (message.conversation_id === id && message.kind === 'system') load();
  });
  load();
}

export function hide() {
  unsubscribe?.();
  unsubscribe = null;
}

function renameForm(app, id, current, reload) {
  const { t, client } = app;
  const name = field(t('group.rename_label'), { type: 'text', maxlength: '128', value: current });
  const error = errorBox();
  const submit = el('button', { type: 'submit' }, t('group.rename_submit'));
  const form = el('form', { novalidate: true }, name.row, error, el('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!name.input.value.trim()) return error.show(t('group.rename_missing'));
    busy(submit, async () => {
      await client.request('groups.rename', { conversation_id: id, name: name.input.value.trim() });
      app.toast(t('group.renamed'));
      await reload();
    }, error.show);
  });
  return el('section', { 'aria-labelledby': 'rename-group' }, el('h2', { id: 'rename-group' }, t('group.rename_title')), form);
}

// The acting connection gets no `message` event for its own change (docs/protocol.md): `reload` redraws.
function addForm(app, id, candidates, reload) {
  const { t, client } = app;
  const section = el('section', { 'aria-labelledby': 'add-member' }, el('h2', { id: 'add-member' }, t('group.add_title')));
  if (!candidates.length) {
    section.append(el('p', { class: 'empty' }, t('group.add_none')));
    return section;
  }
  const select = field(t('group.add_label'), { as: 'select' });
  const chooser = select.input;
  chooser.append(...candidates.map((f) => el('option', { value: String(f.user_id) }, f.display_name)));
  const error = errorBox();
  const submit = el('button', { type: 'submit' }, t('group.add_submit'));
  const form = el('form', { novalidate: true }, select.row, error, el('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    busy(submit, async () => {
      await client.request('groups.add', { conversation_id: id, user_id: Number(chooser.value) });
      app.toast(t('group.added'));
      await reload();
    }, error.show);
  });
  section.append(form);
  return section;
}

function leaveSection(app, id) {
  const { t, client } = app;
  const button = el('button', { type: 'button', class: 'danger' }, t('group.leave'));
  button.addEventListener('click', () => {
    if (!confirm(t('group.leave_confirm'))) return;
    busy(button, async () => {
      await client.request('groups.leave', { conversation_id: id });
      app.navigate('#/chats');
    }, (text) => app.toast(text));
  });
  return el('section', { 'aria-labelledby': 'leave-group' }, el('h2', { id: 'leave-group' }, t('group.leave_title')),
    el('p', {}, t('group.leave_hint')), button);
}
