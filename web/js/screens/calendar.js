// The calendar of the events I joined (#/calendar/RANGE:DATE, e.g. #/calendar/month:2026-11-24): a day, week,
// month or year in the browser's time zone, weeks starting on the locale's first weekday (the server says which),
// previous/next and "Today", today highlighted (the server says which date today is in that zone), an event that
// spans midnight shown on every day it touches, cancelled ones marked. Moving between ranges keeps the focus on
// the button pressed (the address changes without a new screen).
import { el, heading, errorBox } from '../ui.js';
import { eventItem } from './event.js';
import { viewerZone, viewerLocale, localDate, formatClock, daysBetween, addDays, dayLabel, weekdayNames, column } from '../when.js';

const RANGES = ['day', 'week', 'month', 'year'];

let stop = [];

export function show(root, params, app) {
  const { t, client } = app;
  const [wanted, wantedDate] = (params.id ?? '').split(':');
  const state = { range: RANGES.includes(wanted) ? wanted : 'month', date: /^\d{4}-\d{2}-\d{2}$/.test(wantedDate ?? '') ? wantedDate : null };
  const zone = viewerZone();
  const locale = viewerLocale();
  const error = errorBox();
  const label = el('h2', { id: 'calendar-range', tabindex: '-1', 'aria-live': 'polite' });
  const zoneNote = el('p', { class: 'hint' }, t('calendar.zone', { zone }));
  const grid = el('div', { class: 'calendar-body', 'aria-busy': 'true' });
  const viewButtons = RANGES.map((range) => el('button', { type: 'button', dataset: { range },
    onclick: () => go(range, state.date) }, t(`calendar.view.${range}`)));
  const previous = el('button', { type: 'button', class: 'quiet', onclick: () => go(state.range, last?.previous) });
  const today = el('button', { type: 'button', class: 'quiet', onclick: () => go(state.range, last?.today ?? null) }, t('calendar.today'));
  const next = el('button', { type: 'button', class: 'quiet', onclick: () => go(state.range, last?.next) });
  let last = null;
  let generation = 0;

  const go = (range, date) => {
    state.range = range;
    state.date = date ?? null;
    history.replaceState(null, '', `#/calendar/${range}${state.date ? `:${state.date}` : ''}`);
    load();
  };

  const load = async () => {
    const mine = ++generation;
    for (const b of viewButtons) {
      const on = b.dataset.range === state.range;
      b.setAttribute('aria-pressed', String(on));
      b.className = on ? '' : 'quiet';
    }
    previous.textContent = t(`calendar.previous.${state.range}`);
    next.textContent = t(`calendar.next.${state.range}`);
    grid.setAttribute('aria-busy', 'true');
    try {
      const result = await client.request('calendar.get', { range: state.range, time_zone: zone, locale,
        ...(state.date ? { date: state.date } : {}) });
      if (mine !== generation) return;
      last = result;
      if (!state.date) state.date = result.today;
      label.textContent = rangeLabel(t, result, locale);
      const focusLost = grid.contains(document.activeElement);
      grid.replaceChildren(render(app, result, locale, go));
      // A day opened from the month or year: its link is gone, the focus goes to the new range's name.
      if (focusLost) label.focus();
      error.show('');
    } catch (failure) {
      if (mine === generation) error.show(app.errorText(failure));
    }
    grid.setAttribute('aria-busy', 'false');
  };

  root.append(heading(t('calendar.title')), error,
    el('div', { class: 'actions', role: 'group', 'aria-label': t('calendar.views') }, viewButtons),
    el('div', { class: 'actions', role: 'group', 'aria-label': t('calendar.move') }, previous, today, next),
    label, zoneNote, grid);
  const reload = () => load();
  stop = ['event.joined', 'event.dropped', 'community.left', 'session'].map((name) => client.on(name, reload));
  stop.push(client.on('community.notification', ({ notification: n }) => {
    if (n?.event_id && last?.events.some((e) => e.event_id === n.event_id)) reload();
  }));
  load();
}

export function hide() {
  for (const off of stop) off();
  stop = [];
}

function rangeLabel(t, r, locale) {
  if (r.range === 'day') return dayLabel(r.from, locale, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' });
  if (r.range === 'week') {
    return t('calendar.week_of', { from: dayLabel(r.from, locale, { day: 'numeric', month: 'long' }),
      to: dayLabel(r.to, locale, { day: 'numeric', month: 'long', year: 'numeric' }) });
  }
  if (r.range === 'month') return dayLabel(r.from, locale, { month: 'long', year: 'numeric' });
  return r.from.slice(0, 4);
}

function render(app, r, locale, go) {
  const events = new Map(r.events.map((e) => [e.event_id, e]));
  const byDay = new Map(r.days.map((d) => [d.date, d.event_ids.map((id) => events.get(id)).filter(Boolean)]));
  if (r.range === 'day') return dayView(app, r, byDay, locale);
  if (r.range === 'week') return weekView(app, r, byDay, locale);
  if (r.range === 'month') return el('div', {}, monthTable(app, r, byDay, locale, r.from, r.to, false, go), monthList(app, r, locale));
  const year = el('div', { class: 'calendar-year' });
  const y = Number(r.from.slice(0, 4));
  for (let m = 1; m <= 12; m += 1) {
    const first = `${y}-${String(m).padStart(2, '0')}-01`;
    const lastDay = addDays(m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`, -1);
    year.append(monthTable(app, r, byDay, locale, first, lastDay, true, go));
  }
  return year;
}

// How an event shows on a date: its start time, or "continued" when it began on an earlier day; "until
// tomorrow" when it goes past that day's end.
function eventLine(app, event, date, r, locale, long) {
  const { t } = app;
  const startsDay = localDate(event.starts_at, r.time_zone);
  const endsDay = localDate(event.ends_at, r.time_zone);
  const endsAtMidnight = formatClock(event.ends_at, r.time_zone, 'en-GB') === '00:00';
  const lastDay = endsAtMidnight && endsDay > startsDay ? addDays(endsDay, -1) : endsDay;
  let when;
  if (startsDay === date) {
    when = long && lastDay === date ? t('calendar.from_to', { start: formatClock(event.starts_at, r.time_zone, locale), end: formatClock(event.ends_at, r.time_zone, locale) })
      : formatClock(event.starts_at, r.time_zone, locale);
  } else {
    when = lastDay === date ? t('calendar.until', { end: formatClock(event.ends_at, r.time_zone, locale) }) : t('calendar.all_day');
  }
  const marks = [];
  if (startsDay !== date) marks.push(t('calendar.continued'));
  if (lastDay > date) marks.push(t('calendar.continues'));
  if (event.status === 'cancelled') marks.push(t('calendar.mark_cancelled'));
  else if (event.status === 'ended') marks.push(t('calendar.mark_ended'));
  return el('li', { class: `calendar-event status-${event.status}`, dataset: { event: event.event_id } },
    el('a', { href: `#/event/${event.event_id}` }, el('span', { class: 'time' }, when), ' ', event.title,
      marks.length ? el('span', { class: 'marks' }, ` (${marks.join(', ')})`) : null));
}

function eventsOf(app, r, byDay, date, locale, long) {
  const list = byDay.get(date) ?? [];
  if (!list.length) return null;
  return el('ul', { class: 'calendar-events' }, list.map((e) => eventLine(app, e, date, r, locale, long)));
}

function dayView(app, r, byDay, locale) {
  const { t } = app;
  const node = el('section', { class: `calendar-day${r.from === r.today ? ' today' : ''}`, dataset: { date: r.from },
    'aria-label': dayLabel(r.from, locale, { weekday: 'long', day: 'numeric', month: 'long' }) });
  if (r.from === r.today) node.append(el('p', { class: 'today-mark' }, t('calendar.is_today')));
  node.append(eventsOf(app, r, byDay, r.from, locale, true) ?? el('p', { class: 'empty' }, t('calendar.no_events_day')));
  return node;
}

function weekView(app, r, byDay, locale) {
  const { t } = app;
  return el('ol', { class: 'calendar-week' }, daysBetween(r.from, r.to).map((date) => {
    const isToday = date === r.today;
    return el('li', { class: isToday ? 'today' : '', dataset: { date }, 'aria-current': isToday ? 'date' : null },
      el('h3', {}, el('a', { href: `#/calendar/day:${date}` }, dayLabel(date, locale, { weekday: 'long', day: 'numeric', month: 'long' })),
        isToday ? ` ${t('calendar.today_mark')}` : ''),
      eventsOf(app, r, byDay, date, locale, true) ?? el('p', { class: 'empty' }, t('calendar.no_events')));
  }));
}

// A month as a table of weeks (the locale's first weekday first). `small` (the year view): days with events are
// links to that day, with the count in their name; otherwise each day lists its events.
function monthTable(app, r, byDay, locale, from, to, small, go) {
  const { t } = app;
  const names = weekdayNames(r.first_weekday, locale, 'short');
  const longNames = weekdayNames(r.first_weekday, locale, 'long');
  const caption = dayLabel(from, locale, { month: 'long', year: 'numeric' });
  const table = el('table', { class: `calendar-month${small ? ' small' : ''}` },
    el('caption', { class: small ? '' : 'visually-hidden' }, caption),
    el('thead', {}, el('tr', {}, names.map((name, i) => el('th', { scope: 'col', abbr: longNames[i] }, name)))));
  const tbody = el('tbody');
  let row = el('tr');
  const lead = column(from, r.first_weekday);
  for (let i = 0; i < lead; i += 1) row.append(el('td', { class: 'outside' }));
  for (const date of daysBetween(from, to)) {
    if (row.children.length === 7) {
      tbody.append(row);
      row = el('tr');
    }
    const isToday = date === r.today;
    const dayEvents = byDay.get(date) ?? [];
    const number = String(Number(date.slice(8)));
    const full = dayLabel(date, locale, { weekday: 'long', day: 'numeric', month: 'long' });
    const cell = el('td', { class: [isToday ? 'today' : '', dayEvents.length ? 'has-events' : ''].join(' ').trim() || null,
      dataset: { date }, 'aria-current': isToday ? 'date' : null });
    const dayName = [full, isToday ? t('calendar.today_mark') : '',
      dayEvents.length ? t('calendar.event_count', { count: dayEvents.length }) : ''].filter(Boolean).join(', ');
    cell.append(el('a', { class: 'day-number', href: `#/calendar/day:${date}`, 'aria-label': dayName,
      onclick: (e) => { e.preventDefault(); go('day', date); } }, number));
    if (!small) {
      const list = eventsOf(app, r, byDay, date, locale, false);
      if (list) cell.append(list);
    }
    row.append(cell);
  }
  while (row.children.length < 7) row.append(el('td', { class: 'outside' }));
  tbody.append(row);
  table.append(tbody);
  return table;
}

// The month's events once each, in order, under the table (easier to read on a small screen or by ear).
function monthList(app, r, locale) {
  const { t } = app;
  const events = [...r.events].sort((a, b) => a.starts_at.localeCompare(b.starts_at) || a.event_id - b.event_id);
  const list = el('ul', { class: 'list events', 'aria-labelledby': 'calendar-month-events' },
    events.length ? events.map((e) => eventItem(app, e, r.time_zone)) : el('li', { class: 'empty' }, t('calendar.no_events_month')));
  return el('section', { 'aria-labelledby': 'calendar-month-events' },
    el('h3', { id: 'calendar-month-events' }, t('calendar.month_events', { month: dayLabel(r.from, locale, { month: 'long', year: 'numeric' }) })), list);
}
