// A community's course (#/course/COMMUNITY_ID): its lessons in order (text, a video link, a voice clip), my
// progress ("2 of 5 lessons completed", a progress bar) and a "Completed" toggle per lesson (`courses.complete`;
// `course.progress` keeps my other devices in step). Core members and administrators add lessons and see every
// member's progress.
import { el, heading, errorBox, busy, formatTime, pagedList } from '../ui.js';
import { voicePlayer } from '../voice.js';
import { postForm } from './community.js';

let stop = [];

export function show(root, params, app) {
  const { t, client } = app;
  const id = Number(params.id);
  const title = heading(t('course.title'));
  const error = errorBox();
  const progressText = el('p', { id: 'course-progress-text', role: 'status' });
  const bar = el('progress', { max: '1', value: '0', 'aria-labelledby': 'course-progress-text' });
  const lessons = el('ol', { class: 'list lessons', 'aria-label': t('course.lessons'), 'aria-busy': 'true' });
  const extra = el('div');
  root.append(title, error, el('p', {}, el('a', { href: `#/community/${id}` }, t('course.back'))), progressText, bar, lessons, extra);
  let community = null;
  let loads = 0;   // the latest load: an older one's reply gives way
  let changes = 0; // progress changes seen (my marks, `course.progress`): a reply read before one is stale

  const showProgress = (completed, total) => {
    progressText.textContent = total ? t('course.progress', { completed, total }) : t('course.no_lessons');
    bar.max = Math.max(total, 1);
    bar.value = completed;
    bar.hidden = total === 0;
  };

  const toggles = new Map(); // lesson id -> (completed) => void
  const lesson = (p, index) => {
    const toggle = el('button', { type: 'button', 'aria-label': t('course.completed_label', { title: p.title }) });
    const set = (completed) => {
      p.completed = completed;
      toggle.setAttribute('aria-pressed', String(completed));
      toggle.className = completed ? '' : 'quiet';
      toggle.textContent = completed ? t('course.completed') : t('course.mark_completed');
    };
    set(p.completed);
    toggles.set(p.post_id, set);
    toggle.addEventListener('click', () => busy(toggle, async () => {
      // The wanted state, fixed before asking: `course.progress` may arrive before the reply and set it already.
      const wanted = !p.completed;
      const result = await client.request('courses.complete', { post_id: p.post_id, completed: wanted });
      changes += 1;
      set(wanted);
      showProgress(result.completed, result.total);
    }, (text) => app.toast(text)));
    return el('li', { dataset: { post: p.post_id } },
      el('article', { class: 'who lesson', 'aria-labelledby': `lesson-${p.post_id}` },
        el('h2', { id: `lesson-${p.post_id}`, class: 'name' }, t('course.lesson_title', { number: index + 1, title: p.title })),
        el('p', { class: 'detail' }, t('community.post_by', { name: p.author?.display_name ?? t('someone'), time: formatTime(p.created_at) })),
        p.body ? el('p', { class: 'post-body' }, p.body) : null,
        p.video_url ? el('p', {}, el('a', { href: p.video_url, target: '_blank', rel: 'noopener noreferrer' }, t('course.video'))) : null,
        p.voice_clip_id ? voicePlayer(app, { voice_id: p.voice_clip_id, duration_ms: 0 }) : null),
      // Progress is a member's: an administrator who is not a member reads the course without it.
      community?.joined ? el('div', { class: 'actions tight' }, toggle) : null);
  };

  const load = async () => {
    try {
      if (!community) {
        ({ community } = await client.request('communities.get', { community_id: id }));
        title.textContent = t('course.title_named', { name: community.name });
        document.title = t('app.document_title', { name: title.textContent });
        const canPost = community.role === 'core' || app.me.role === 'admin';
        if (canPost) extra.append(postForm(app, id, 'lesson', () => load()), progressSection(app, id));
      }
      const mine = ++loads;
      const seen = changes;
      const result = await client.request('courses.get', { community_id: id });
      if (mine !== loads) return;
      // A mark made while this was read may be missing from it (reads may overtake writes): read again.
      if (seen !== changes) {
        load();
        return;
      }
      toggles.clear();
      lessons.replaceChildren(...(result.lessons.length ? result.lessons.map(lesson) : [el('li', { class: 'empty' }, t('course.no_lessons'))]));
      showProgress(result.completed, result.total);
      error.show('');
    } catch (failure) {
      error.show(app.errorText(failure));
    }
    lessons.setAttribute('aria-busy', 'false');
  };

  stop = [
    // Another device of mine (or this one) marked a lesson: that toggle and the totals change in place.
    client.on('course.progress', ({ community_id: c, post_id: post, completed, completed_count: done, total }) => {
      if (c !== id) return;
      changes += 1;
      if (toggles.has(post)) {
        toggles.get(post)(completed);
        showProgress(done, total);
      } else {
        load();
      }
    }),
    client.on('community.notification', ({ notification: n }) => { if (n?.community_id === id && n.kind === 'lesson') load(); }),
    client.on('community.post.updated', ({ post }) => { if (post?.community_id === id) load(); }),
    client.on('community.post.deleted', ({ community_id: c }) => { if (c === id) load(); }),
  ];
  load();
}

export function hide() {
  for (const off of stop) off();
  stop = [];
}

// Every member's progress (core members and administrators).
function progressSection(app, id) {
  const { t, client } = app;
  const list = el('ul', { class: 'list', 'aria-labelledby': 'course-members' });
  const more = el('button', { type: 'button', class: 'quiet', hidden: true }, t('community.members_more'));
  const load = pagedList({ list, more, emptyText: t('community.no_members'), fetchPage: async (cursor) => {
    const page = await client.request('courses.progress', { community_id: id, ...(cursor ? { cursor } : {}) });
    return {
      items: page.members.map((m) => el('li', {}, el('div', { class: 'who' },
        el('div', { class: 'name' }, m.user.display_name),
        el('div', { class: 'detail' }, t('course.progress', { completed: m.completed, total: page.total }))))),
      next: page.next_cursor,
    };
  } });
  load();
  return el('section', { 'aria-labelledby': 'course-members' },
    el('h2', { id: 'course-members' }, t('course.members_progress')), list, el('div', { class: 'actions' }, more));
}
