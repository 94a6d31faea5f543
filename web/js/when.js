// Dates, times and time zones for communities, events and the calendar (docs/web.md, "Communities").
// Instants come from the server as timestamps (`2026-11-23T01:02:03.456Z`); days as `YYYY-MM-DD`; zones as IANA
// names. Everything here is pure: no requests, no DOM.
import { t } from './strings.js';

// The viewer's zone and locale: the browser's.
export function viewerZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export function viewerLocale() {
  return navigator.language || 'en-US';
}

// Every IANA zone the browser knows, with `extra` (the current value) first when it is not among them.
export function zoneNames(extra) {
  let names = [];
  try {
    names = Intl.supportedValuesOf('timeZone');
  } catch {
    names = [];
  }
  const all = new Set(names);
  for (const name of [extra, viewerZone(), 'UTC']) if (name && !all.has(name)) names = [name, ...names];
  return [...new Set(names)];
}

function parts(instantMs, zone) {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit',
  });
  const out = {};
  for (const p of format.formatToParts(new Date(instantMs))) if (p.type !== 'literal') out[p.type] = Number(p.value);
  if (out.hour === 24) out.hour = 0;
  return out;
}

// The zone's offset from UTC at an instant, in milliseconds.
function offsetMs(instantMs, zone) {
  const p = parts(instantMs, zone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(instantMs / 1000) * 1000;
}

// The local date `YYYY-MM-DD` of an instant in a zone.
export function localDate(iso, zone) {
  const p = parts(Date.parse(iso), zone);
  return `${p.year}-${String(p.month).padStart(2, '0')}-${String(p.day).padStart(2, '0')}`;
}

// `YYYY-MM-DDTHH:MM` (the value of an <input type="datetime-local">) of an instant in a zone.
export function localInputValue(iso, zone) {
  const p = parts(Date.parse(iso), zone);
  const two = (n) => String(n).padStart(2, '0');
  return `${p.year}-${two(p.month)}-${two(p.day)}T${two(p.hour)}:${two(p.minute)}`;
}

// The instant (ISO timestamp) of a wall-clock time `YYYY-MM-DDTHH:MM` in a zone, or null when it does not parse.
// A time skipped by a daylight-saving change moves forward with the clock; a repeated one takes the first.
export function instantOf(localValue, zone) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(localValue || '');
  if (!m) return null;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  // The offsets half a day before and after; a candidate is right when the zone has that offset at it.
  const before = offsetMs(wall - 43200000, zone);
  const after = offsetMs(wall + 43200000, zone);
  const valid = [wall - before, wall - after].filter((instant, i) => offsetMs(instant, zone) === (i === 0 ? before : after));
  // Both (a repeated hour): the first; neither (a skipped hour): the earlier offset, which lands after the gap.
  const instant = valid.length ? Math.min(...valid) : wall - before;
  return new Date(instant).toISOString();
}

// "Tuesday 24 November 2026, 19:00 - 21:00" in a zone (the end's date too when it is another day).
export function formatRange(startIso, endIso, zone, locale = viewerLocale()) {
  const dateTime = new Intl.DateTimeFormat(locale, { timeZone: zone, weekday: 'long', day: 'numeric', month: 'long',
    year: 'numeric', hour: 'numeric', minute: '2-digit' });
  const time = new Intl.DateTimeFormat(locale, { timeZone: zone, hour: 'numeric', minute: '2-digit' });
  const start = new Date(startIso);
  const end = new Date(endIso);
  const sameDay = localDate(startIso, zone) === localDate(endIso, zone);
  return t('when.range', { start: dateTime.format(start), end: sameDay ? time.format(end) : dateTime.format(end) });
}

export function formatClock(iso, zone, locale = viewerLocale()) {
  return new Intl.DateTimeFormat(locale, { timeZone: zone, hour: 'numeric', minute: '2-digit' }).format(new Date(iso));
}

// MARK: days as `YYYY-MM-DD`, computed on the UTC calendar (no zone involved)

export function dayMs(date) {
  const [y, m, d] = date.split('-').map(Number);
  return Date.UTC(y, m - 1, d);
}

export function dayString(ms) {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(date, count) {
  return dayString(dayMs(date) + count * 86400000);
}

// Every date from `from` to `to`, inclusive (bounded: at most 400).
export function daysBetween(from, to) {
  const out = [];
  for (let d = from; d <= to && out.length < 400; d = addDays(d, 1)) out.push(d);
  return out;
}

// 0 = Sunday ... 6 = Saturday.
export function weekday(date) {
  return new Date(dayMs(date)).getUTCDay();
}

export function dayLabel(date, locale, options) {
  return new Intl.DateTimeFormat(locale, { timeZone: 'UTC', ...options }).format(new Date(dayMs(date)));
}

// Short weekday names starting at `firstWeekday` (1 = Sunday ... 7 = Saturday, as the server says).
export function weekdayNames(firstWeekday, locale, style = 'short') {
  const sunday = Date.UTC(2026, 10, 22); // a Sunday
  return Array.from({ length: 7 }, (_, i) => new Intl.DateTimeFormat(locale, { timeZone: 'UTC', weekday: style })
    .format(new Date(sunday + ((firstWeekday - 1 + i) % 7) * 86400000)));
}

// The column (0-6) of a date in a week starting at `firstWeekday`.
export function column(date, firstWeekday) {
  return (weekday(date) - (firstWeekday - 1) + 7) % 7;
}
