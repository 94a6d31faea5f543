// An event's page (#/event/ID): title, community, when (in the viewer's time zone, and in the organiser's when
// that is another), place, description, places taken of the capacity ("Full"), its status (ended, cancelled),
// join or drop ("event has already ended" and the other refusals in words), the participants. Administrators
// edit and cancel it. Also the event form and the event list item the community page and calendar use.
import { el, heading, field, errorBox, busy, pagedList } from '../ui.js';
import { viewerZone, zoneNames, formatRange, instantOf, localInputValue } from '../when.js';

let stop = [];

export function show(root, params, app) {
  const { t, client } = app;
  const id = Number(params.id);
  const title = heading(t('event.loading'));
  const error = errorBox();
  const body = el('div');
  root.append(title, error, body);

  const load = async () => {
    let event;
    try {
      ({ event } = await client.request('events.get', { event_id: id }));
    } catch (failure) {
      title.textContent = t('event.unavailable');
      error.show(app.errorText(failure));
      return;
    }
    error.show('');
    title.textContent = event.title;
    document.title = t('app.document_title', { name: event.title });
    // The community: its name, and whether I am a member (only members join events).
    let communityName = app.communityNames.get(event.community_id) ?? t('event.community_unknown');
    let member = true;
    try {
      const { community } = await client.request('communities.get', { community_id: event.community_id });
      app.unread.rememberCommunities([community]);
      communityName = community.name;
      member = community.joined;
    } catch {
      // The name stays as known; the server decides about joining.
    }
    body.replaceChildren(...[...details(app, event, communityName),
      member ? actions(app, event, load) : el('p', { class: 'hint' }, t('event.members_only')), participants(app, event),
      app.me.role === 'admin' ? adminTools(app, event, load) : null].filter(Boolean));
    // A button that was pressed (join, drop, cancel) is gone with the old page: the focus goes to the heading.
    if (document.activeElement === document.body) title.focus();
  };

  stop = [
    client.on('community.notification', ({ notification: n }) => { if (n?.event_id === id) load(); }),
    client.on('event.joined', ({ event }) => { if (event?.event_id === id) load(); }),
    client.on('event.dropped', ({ event_id: e }) => { if (e === id) load(); }),
  ];
  load();
}

export function hide() {
  for (const off of stop) off();
  stop = [];
}

function statusText(app, event) {
  const { t } = app;
  if (event.status === 'cancelled') return t('event.status.cancelled');
  if (event.status === 'ended') return t('event.status.ended');
  if (event.status === 'ongoing') return t('event.status.ongoing');
  return null;
}

function isFull(event) {
  return event.capacity !== null && event.capacity !== undefined && event.participant_count >= event.capacity;
}

function placesText(app, event) {
  const { t } = app;
  if (event.capacity === null || event.capacity === undefined) return t('event.places_open', { count: event.participant_count });
  return isFull(event) ? t('event.places_full', { count: event.participant_count, capacity: event.capacity })
    : t('event.places', { count: event.participant_count, capacity: event.capacity });
}

function details(app, event, communityName) {
  const { t } = app;
  const zone = viewerZone();
  const status = statusText(app, event);
  const parts = [
    el('p', {}, el('a', { href: `#/community/${event.community_id}` }, t('event.back', { name: communityName }))),
  ];
  if (status) parts.push(el('p', { class: `event-status status-${event.status}` }, status));
  const facts = el('dl', { class: 'facts' },
    el('dt', {}, t('event.when')), el('dd', { class: 'when' }, formatRange(event.starts_at, event.ends_at, zone),
      el('span', { class: 'zone' }, ` (${zone})`)));
  if (event.time_zone && event.time_zone !== zone) {
    facts.append(el('dt', {}, t('event.organiser_time')),
      el('dd', { class: 'organiser-when' }, formatRange(event.starts_at, event.ends_at, event.time_zone), ` (${event.time_zone})`));
  }
  if (event.place) facts.append(el('dt', {}, t('event.place')), el('dd', {}, event.place));
  facts.append(el('dt', {}, t('event.places_title')), el('dd', { class: 'places' }, placesText(app, event)));
  parts.push(facts);
  if (event.description) parts.push(el('p', { class: 'description' }, event.description));
  return parts;
}

function actions(app, event, reload) {
  const { t, client } = app;
  const error = errorBox();
  const box = el('div', { class: 'actions' });
  const run = (button, op, done) => busy(button, async () => {
    error.show('');
    await client.request(op, { event_id: event.event_id });
    app.toast(done);
    await reload();
  }, error.show);
  if (event.joined) {
    box.append(el('p', { class: 'going' }, event.status === 'ended' ? t('event.you_went') : t('event.you_are_going')));
    if (event.status === 'upcoming' || event.status === 'ongoing') {
      box.append(el('button', { type: 'button', class: 'danger', onclick: (e) => run(e.currentTarget, 'events.drop', t('event.dropped')) },
        t('event.drop')));
    }
  } else if (event.status !== 'cancelled') {
    // An ended or full event keeps the button: the server says why it refuses, in words.
    box.append(el('button', { type: 'button', class: 'primary', onclick: (e) => run(e.currentTarget, 'events.join', t('event.joined')) },
      t('event.join')));
    if (isFull(event) && event.status !== 'ended') box.append(el('p', { class: 'hint' }, t('event.full_hint')));
  }
  return el('section', { 'aria-label': t('event.participation') }, box, error);
}

function participants(app, event) {
  const { t, client } = app;
  const list = el('ul', { class: 'list', 'aria-labelledby': 'event-participants' });
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('event.participants_more'));
  const load = pagedList({ list, more, emptyText: t('event.no_participants'), fetchPage: async (cursor) => {
    const page = await client.request('events.participants', { event_id: event.event_id, limit: 50, ...(cursor ? { cursor } : {}) });
    return {
      items: page.participants.map((u) => el('li', {}, el('div', { class: 'name' },
        u.user_id === app.me.userId ? t('group.you', { name: u.display_name }) : u.display_name))),
      next: page.next_cursor,
    };
  } });
  load();
  return el('section', { 'aria-labelledby': 'event-participants' },
    el('h2', { id: 'event-participants' }, t('event.participants')), list, el('div', { class: 'actions' }, more));
}

function adminTools(app, event, reload) {
  const { t, client } = app;
  if (event.status === 'cancelled' || event.status === 'ended') return null;
  return el('section', { 'aria-labelledby': 'event-admin', class: 'admin-tools' },
    el('h2', { id: 'event-admin' }, t('event.admin')),
    el('h3', {}, t('event.edit')),
    eventForm(app, { event }, () => { app.toast(t('event.saved')); reload(); }),
    el('h3', {}, t('event.cancel_title')),
    el('p', { class: 'hint' }, t('event.cancel_hint')),
    el('div', { class: 'actions' }, el('button', { type: 'button', class: 'danger', onclick: (e) => {
      if (!confirm(t('event.cancel_confirm', { title: event.title }))) return;
      busy(e.currentTarget, async () => {
        await client.request('events.cancel', { event_id: event.event_id });
        app.toast(t('event.cancelled'));
        await reload();
      }, (text) => app.toast(text));
    } }, t('event.cancel'))));
}

// The form publishing an event in `communityId`, or editing `event`: times are typed as wall-clock times in the
// chosen zone (the organiser's; by default the browser's).
export function eventForm(app, { communityId = null, event = null }, onDone) {
  const { t, client } = app;
  const zone = event?.time_zone ?? viewerZone();
  const title = field(t('event.form.title'), { type: 'text', maxlength: '120', required: true, value: event?.title ?? '' });
  const description = field(t('event.form.description'), { as: 'textarea', maxlength: '4000' });
  description.input.value = event?.description ?? '';
  const place = field(t('event.form.place'), { type: 'text', maxlength: '200', value: event?.place ?? '' });
  const starts = field(t('event.form.starts'), { type: 'datetime-local', required: true,
    value: event ? localInputValue(event.starts_at, zone) : '' });
  const ends = field(t('event.form.ends'), { type: 'datetime-local', required: true,
    value: event ? localInputValue(event.ends_at, zone) : '' });
  const timeZone = field(t('event.form.time_zone'), { as: 'select' }, t('event.form.time_zone_hint'));
  timeZone.input.append(...zoneNames(zone).map((name) => el('option', { value: name, selected: name === zone }, name)));
  const capacity = field(t('event.form.capacity'), { type: 'number', min: '1', max: '100000', inputmode: 'numeric',
    value: event?.capacity ?? '' }, t('event.form.capacity_hint'));
  const error = errorBox();
  const submit = el('button', { type: 'submit' }, event ? t('event.form.save') : t('event.form.publish'));
  const form = el('form', { novalidate: true, class: 'event-form' }, title.row, starts.row, ends.row, timeZone.row, place.row,
    capacity.row, description.row, error, el('div', { class: 'actions' }, submit));
  form.addEventListener('submit', (submitEvent) => {
    submitEvent.preventDefault();
    const chosenZone = timeZone.input.value;
    const params = {
      title: title.input.value.trim(),
      description: description.input.value.trim(),
      place: place.input.value.trim(),
      starts_at: instantOf(starts.input.value, chosenZone),
      ends_at: instantOf(ends.input.value, chosenZone),
      time_zone: chosenZone,
    };
    if (!event) {
      if (!params.description) delete params.description;
      if (!params.place) delete params.place;
    }
    if (!params.title) return error.show(t('event.form.title_missing'));
    if (!params.starts_at || !params.ends_at) return error.show(t('event.form.times_missing'));
    if (Date.parse(params.ends_at) <= Date.parse(params.starts_at)) return error.show(t('event.form.ends_before'));
    const cap = capacity.input.value.trim();
    if (cap) {
      const n = Number(cap);
      if (!Number.isInteger(n) || n < 1 || n > 100000) return error.show(t('event.form.capacity_bad'));
      params.capacity = n;
    } else if (event?.capacity !== null && event?.capacity !== undefined) {
      params.capacity = null; // editing: an emptied field removes the limit
    }
    error.show('');
    busy(submit, async () => {
      const result = event
        ? await client.request('events.update', { event_id: event.event_id, ...params })
        : await client.request('events.create', { community_id: communityId, ...params });
      if (!event) {
        for (const input of [title, description, place, starts, ends, capacity]) input.input.value = '';
      }
      onDone(result.event);
    }, error.show);
  });
  return form;
}

// One event in a list: a link to its page with when (viewer's zone), and its marks (going, ended, cancelled, full).
export function eventItem(app, event, zone = viewerZone()) {
  const { t } = app;
  const marks = [];
  const status = statusText(app, event);
  if (status) marks.push(el('span', { class: `mark status-${event.status}` }, status));
  if (event.joined) marks.push(el('span', { class: 'mark going' }, t('event.mark_going')));
  if (isFull(event) && event.status !== 'ended' && event.status !== 'cancelled') marks.push(el('span', { class: 'mark' }, t('event.mark_full')));
  return el('li', { dataset: { event: event.event_id, status: event.status } },
    el('a', { class: 'chat-link', href: `#/event/${event.event_id}` },
      el('span', { class: 'name' }, event.title), ...marks,
      el('span', { class: 'detail' }, formatRange(event.starts_at, event.ends_at, zone), event.place ? ` · ${event.place}` : '')));
}
