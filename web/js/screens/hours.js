// Active hours on the profile (settings) screen: the last 30 days as a bar series (stats.active_hours) and the
// hours of a chosen date (stats.active_day). Each bar is an image whose name is its figure in words.
import { el, errorBox, field, busy } from '../ui.js';

// "1 h 5 min", "45 min", "less than a minute", "none".
export function durationText(t, seconds) {
  if (!seconds) return t('hours.none');
  if (seconds < 60) return t('hours.under_minute');
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (!hours) return t('hours.minutes', { minutes });
  return minutes ? t('hours.hours_minutes', { hours, minutes }) : t('hours.hours', { hours });
}

function dateText(date) {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d)).toLocaleDateString(undefined, { timeZone: 'UTC', weekday: 'short', month: 'short', day: 'numeric' });
}

// A list of bars: `items` = [{label, seconds, key}]; the tallest bar is `max` seconds.
function bars(t, items, max, { label, className }) {
  return el('ol', { class: `bars ${className}`, 'aria-label': label },
    items.map((item) => {
      const text = t('hours.bar', { label: item.label, duration: durationText(t, item.seconds) });
      // An image with its figure in words (read by screen readers, shown on hover).
      const bar = el('span', { class: 'bar', role: 'img', 'aria-label': text, title: text });
      // Through the CSSOM: the page's CSP refuses style attributes.
      bar.style.height = `${max ? Math.round((item.seconds / max) * 100) : 0}%`;
      return el('li', { dataset: { key: item.key, seconds: String(item.seconds) } }, bar);
    }));
}

// The section (an element), filled when its requests answer. `userId`: another user's (a friend's), else yours.
export function activeHoursSection(app, userId = null) {
  const { t, client } = app;
  const error = errorBox();
  const summary = el('p', { class: 'hint' });
  const series = el('div', { class: 'hours-series' });
  const picker = el('input', { type: 'date', id: 'hours-date' });
  const dayTotal = el('p', { 'aria-live': 'polite', class: 'hours-day-total' });
  const dayBars = el('div', { class: 'hours-day' });
  const who = userId ? { user_id: userId } : {};

  const showDay = async (date) => {
    if (!date) return;
    try {
      const day = await client.request('stats.active_day', { ...who, date });
      dayTotal.textContent = t('hours.day_total', { date: dateText(day.date), duration: durationText(t, day.seconds) });
      const max = Math.max(3600, ...day.hours);
      dayBars.replaceChildren(bars(t, day.hours.map((seconds, hour) => ({
        key: String(hour), seconds, label: t('hours.hour_label', { hour: String(hour).padStart(2, '0') }),
      })), max, { label: t('hours.day_label', { date: dateText(day.date) }), className: 'hourly' }));
    } catch (failure) { error.show(app.errorText(failure)); }
  };
  picker.addEventListener('change', () => showDay(picker.value));

  // Your own time zone (profile.update time_zone): the days are counted in it from now on.
  const zone = field(t('hours.zone'), { as: 'select' }, t('hours.zone_hint'));
  const zoneError = errorBox();
  const zoneSave = el('button', { type: 'submit' }, t('hours.zone_save'));
  const zoneForm = userId ? null : el('form', { novalidate: true }, zone.row, zoneError, el('div', { class: 'actions' }, zoneSave));
  const fillZones = (current) => {
    const names = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
    const all = [...new Set(['UTC', current, ...names])].filter(Boolean);
    zone.input.replaceChildren(...all.map((name) => el('option', { value: name, selected: name === current }, name)));
  };

  const section = el('section', { class: 'active-hours', 'aria-labelledby': 'hours-title' },
    el('h2', { id: 'hours-title' }, t('hours.title')), error, summary, series,
    el('div', { class: 'field' }, el('label', { for: 'hours-date' }, t('hours.pick_date')), picker),
    dayTotal, dayBars, zoneForm);

  const load = () => client.request('stats.active_hours', who).then((result) => {
    const total = result.days.reduce((sum, d) => sum + d.seconds, 0);
    summary.textContent = t('hours.summary', { duration: durationText(t, total), zone: result.time_zone });
    const max = Math.max(3600, ...result.days.map((d) => d.seconds));
    series.replaceChildren(bars(t, result.days.map((d) => ({ key: d.date, seconds: d.seconds, label: dateText(d.date) })),
      max, { label: t('hours.series_label'), className: 'daily' }));
    picker.min = result.since;
    picker.max = result.today;
    picker.value = result.today;
    if (zoneForm) fillZones(result.time_zone);
    return showDay(result.today);
  }).catch((failure) => error.show(app.errorText(failure)));

  zoneForm?.addEventListener('submit', (event) => {
    event.preventDefault();
    zoneError.show('');
    busy(zoneSave, async () => {
      await client.request('profile.update', { time_zone: zone.input.value });
      app.toast(t('hours.zone_saved'));
      await load();
    }, zoneError.show);
  });
  load();
  return section;
}
