// The communities: joined ones first, then the others, each part by name (the server orders them), in pages
// ("Show more"), each with its category, member count, my role and unread count. Administrators also get a form
// to create a community. The unread counts follow `community.notification` and `community.read` live.
import { el, heading, field, errorBox, busy } from '../ui.js';

const PAGE = 20;

let stop = [];

export function show(root, params, app) {
  const { t, client } = app;
  const error = errorBox();
  const joined = el('ul', { class: 'list communities', 'aria-label': t('communities.joined'), 'aria-busy': 'true' });
  const others = el('ul', { class: 'list communities', 'aria-label': t('communities.others') });
  const joinedPart = el('section', { 'aria-labelledby': 'communities-joined' },
    el('h2', { id: 'communities-joined' }, t('communities.joined')), joined);
  const othersPart = el('section', { 'aria-labelledby': 'communities-others' },
    el('h2', { id: 'communities-others' }, t('communities.others')), others);
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('communities.more'));
  const empty = el('p', { class: 'empty', hidden: true }, t('communities.none'));
  let shown = []; // every community loaded so far, in the server's order
  let nextCursor = null;

  const item = (c) => {
    const unread = c.joined ? app.unread.of(c.community_id) : 0; // the live count (unread.js)
    const details = [c.category, t('communities.members_count', { count: c.member_count })];
    if (c.role === 'core') details.push(t('communities.role_core'));
    if (c.archived) details.push(t('communities.archived'));
    return el('li', { dataset: { community: c.community_id } },
      el('a', { class: 'chat-link', href: `#/community/${c.community_id}` },
        el('span', { class: 'name' }, c.name),
        unread > 0 ? el('span', { class: 'unread dot-count', 'aria-label': t('communities.unread', { count: unread }) }, String(unread)) : null,
        el('span', { class: 'detail' }, details.filter(Boolean).join(' · '))));
  };

  const render = () => {
    const mine = shown.filter((c) => c.joined);
    const rest = shown.filter((c) => !c.joined);
    joined.replaceChildren(...(mine.length ? mine.map(item) : [el('li', { class: 'empty' }, t('communities.none_joined'))]));
    others.replaceChildren(...rest.map(item));
    othersPart.hidden = rest.length === 0;
    empty.hidden = shown.length > 0;
  };

  const load = async (append = false) => {
    try {
      const page = await client.request('communities.list', { limit: PAGE, ...(append && nextCursor ? { cursor: nextCursor } : {}) });
      app.unread.rememberCommunities(page.communities);
      shown = append ? shown.concat(page.communities) : page.communities;
      nextCursor = page.next_cursor ?? null;
      more.hidden = nextCursor === null;
      render();
      error.show('');
    } catch (failure) {
      error.show(app.errorText(failure));
    }
    joined.setAttribute('aria-busy', 'false');
  };
  more.addEventListener('click', () => busy(more, () => load(true), error.show));

  root.append(heading(t('communities.title')), error,
    el('p', {}, el('a', { href: '#/calendar' }, t('communities.calendar_link'))),
    joinedPart, othersPart, empty, el('div', { class: 'actions' }, more));
  if (app.me.role === 'admin') root.append(createForm(app, (c) => app.navigate(`#/community/${c.community_id}`)));

  stop = [app.unread.onChange(render),
    ...['community.joined', 'community.left', 'community.updated', 'community.archived'].map((name) => client.on(name, () => load()))];
  load();
}

export function hide() {
  for (const off of stop) off();
  stop = [];
}

// Name, description, category and picture: creating (no `community`) or editing one.
export function communityForm(app, community, onDone) {
  const { t, client } = app;
  const name = field(t('community.form.name'), { type: 'text', maxlength: '80', required: true, value: community?.name ?? '' });
  const description = field(t('community.form.description'), { as: 'textarea', maxlength: '4000' });
  description.input.value = community?.description ?? '';
  const category = field(t('community.form.category'), { type: 'text', maxlength: '40', value: community?.category ?? '' },
    t('community.form.category_hint'));
  const picture = field(t('community.form.picture'), { type: 'url', maxlength: '512', value: community?.picture ?? '' },
    t('community.form.picture_hint'));
  const error = errorBox();
  const submit = el('button', { type: 'submit' }, community ? t('community.form.save') : t('community.form.create'));
  const form = el('form', { novalidate: true }, name.row, description.row, category.row, picture.row, error,
    el('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const values = {
      name: name.input.value.trim(),
      description: description.input.value.trim(),
      category: category.input.value.trim(),
      picture: picture.input.value.trim() || null,
    };
    if (!values.name) return error.show(t('community.form.name_missing'));
    if (values.picture && !/^https?:\/\//i.test(values.picture)) return error.show(t('community.form.picture_bad'));
    error.show('');
    busy(submit, async () => {
      const result = community
        ? await client.request('communities.update', { community_id: community.community_id, ...values })
        : await client.request('communities.create', values);
      app.toast(community ? t('community.form.saved') : t('community.form.created', { name: result.community.name }));
      onDone(result.community);
    }, error.show);
  });
  return form;
}

function createForm(app, onDone) {
  const { t } = app;
  return el('section', { 'aria-labelledby': 'community-create' },
    el('h2', { id: 'community-create' }, t('communities.create_title')), communityForm(app, null, onDone));
}
