// A new group: at least two friends; without a name the server names it after its members.
import { el, heading, field, checkbox, errorBox, busy } from '../ui.js';

const MIN_FRIENDS = 2;

export function show(root, params, app) {
  const { t, client } = app;
  const error = errorBox();
  const name = field(t('group_new.name'), { type: 'text', maxlength: '128' }, t('group_new.name_hint'));
  const choices = el('fieldset', {}, el('legend', {}, t('group_new.members')));
  const submit = el('button', { type: 'submit' }, t('group_new.submit'));
  const form = el('form', { novalidate: true }, choices, name.row, error, el('div', { class: 'actions' }, submit));
  let boxes = [];

  const chosen = () => boxes.filter(({ input }) => input.checked).map(({ friend }) => friend);
  const showDefaultName = () => {
    const names = chosen().map((f) => f.display_name);
    name.input.placeholder = names.length ? [app.me.displayName, ...names].join(', ') : '';
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const members = chosen();
    if (members.length < MIN_FRIENDS) return error.show(t('group_new.too_few'));
    error.show('');
    const params = { member_ids: members.map((f) => f.user_id) };
    if (name.input.value.trim()) params.name = name.input.value.trim();
    busy(submit, async () => {
      const { conversation } = await client.request('groups.create', params);
      app.navigate(`#/chat/${conversation.conversation_id}`);
    }, error.show);
  });

  root.append(heading(t('group_new.title')), form);
  client.request('friends.list').then(({ friends }) => {
    if (friends.length < MIN_FRIENDS) {
      choices.append(el('p', { class: 'empty' }, t('group_new.need_friends'), ' ',
        el('a', { href: '#/friends' }, t('group_new.friends_link'))));
      submit.disabled = true;
      return;
    }
    boxes = friends.map((friend) => ({ friend, ...checkbox(friend.display_name, { onchange: showDefaultName }) }));
    choices.append(...boxes.map((b) => b.row));
  }, (failure) => error.show(app.errorText(failure)));
}
