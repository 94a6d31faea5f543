// The chat page: the newest messages (older pages when scrolling up), live messages in seq order and each
// once, sending text and voice (queued while offline, with their client ids), typing and recording
// indicators both ways, read markers, delete for everyone and hide, reactions, pinned messages (a bar above the
// messages, Pin and Unpin in a message's options), call buttons in one-to-one chats.
import { el, field, errorBox, formatTime, presenceText } from '../ui.js';
import { systemText } from '../messages.js';
import { voiceRecorder, voicePlayer } from '../voice.js';
import { startCall } from '../calls.js';
import { openReport } from '../report.js';

const PAGE_SIZE = 10;
const TYPING_REFRESH_MS = 3000;
const LOAD_OLDER_WITHIN_PX = 40;
const READ_DELAY_MS = 300;
// The reactions offered in a message's options, with their spoken names (strings.js, `emoji.`).
const REACTIONS = [['👍', 'thumbs_up'], ['❤️', 'heart'], ['😂', 'laugh'], ['😮', 'surprised'], ['😢', 'sad']];

let cleanup = [];

export function show(root, params, app) {
  const page = new ChatPage(root, Number(params.id), app);
  cleanup.push(() => page.close());
  page.open();
}

export function hide() {
  for (const fn of cleanup) fn();
  cleanup = [];
}

class ChatPage {
  constructor(root, conversationId, app) {
    this.root = root;
    this.id = conversationId;
    this.app = app;
    this.t = app.t;
    this.client = app.client;
    this.conversation = null;
    this.members = new Map();      // user id -> {display_name, read_seq}
    this.bySeq = new Map();        // seq -> element
    this.byId = new Map();         // message id -> element
    this.oldestSeq = null;
    this.hasMore = false;
    this.loadingOlder = false;
    this.typists = new Map();      // user id -> {activity, timer}
    this.typingSentAt = 0;
    this.readTimer = null;
    this.pins = [];                // the pinned messages I see, latest pin first ({message, pinned_by, pinned_at})
    this.maxPins = 0;
    this.offs = [];
  }

  async open() {
    const { t } = this;
    this.error = errorBox();
    this.title = el('h1', { tabindex: '-1' }, t('chat.loading'));
    this.detail = el('p', { class: 'detail' });
    this.tools = el('div', { class: 'actions' });
    this.older = el('button', { type: 'button', class: 'quiet', hidden: true, onclick: () => this.loadOlder() },
      t('chat.older'));
    this.list = el('ol', { class: 'message-list' });
    this.scroller = el('div', { class: 'messages', role: 'log', 'aria-label': t('chat.messages_label'), tabindex: '0' },
      this.list);
    this.scroller.addEventListener('scroll', () => {
      if (this.scroller.scrollTop < LOAD_OLDER_WITHIN_PX) this.loadOlder();
    });
    this.indicator = el('p', { class: 'indicator', 'aria-live': 'polite' });
    this.composer = el('div');
    this.pinBar = this.buildPinBar();
    this.root.append(el('div', { class: 'chat-head' }, this.title, this.tools), this.detail, this.error,
      this.pinBar, this.older, this.scroller, this.indicator, this.composer);

    // Subscribe before loading, so nothing arriving meanwhile is missed (insertion drops repeats by seq).
    this.offs = [
      this.client.on('message', ({ message }) => message.conversation_id === this.id && this.received(message)),
      this.client.on('typing', (e) => e.conversation_id === this.id && e.user_id !== this.app.me.userId && this.typing(e)),
      this.client.on('conversation.read', (e) => e.conversation_id === this.id && this.readBy(e.user_id, e.seq)),
      this.client.on('message.hidden', (e) => e.conversation_id === this.id && this.removeMessage(e.message_id)),
      this.client.on('message.pinned', (e) => e.conversation_id === this.id && this.pinned(e.pin)),
      this.client.on('message.unpinned', (e) => e.conversation_id === this.id && this.unpinned(e.message_id)),
      // Pins are not replayed by the resume: read them again.
      this.client.on('resumed', () => this.loadPins()),
      this.client.on('message.reaction', (e) => e.conversation_id === this.id && this.reacted(e)),
      this.client.on('user.deleted', (e) => this.senderDeleted(e.user_id)),
      this.client.on('presence', () => this.showDetail()),
      this.client.on('presence.snapshot', () => this.showDetail()),
    ];
    this.visibility = () => this.markReadSoon();
    document.addEventListener('visibilitychange', this.visibility);

    try {
      const [{ conversation }, { friends }] = await Promise.all([
        this.client.request('conversations.get', { conversation_id: this.id }), this.client.request('friends.list')]);
      this.app.rememberNames(friends);
      this.setConversation(conversation);
      const [page] = await Promise.all([
        this.client.request('messages.history', { conversation_id: this.id, limit: PAGE_SIZE }), this.loadPins()]);
      this.addPage(page);
      this.showPins();
      this.scrollToEnd();
    } catch (failure) {
      this.title.textContent = t('chat.title_unknown');
      this.error.show(this.app.errorText(failure));
    }
  }

  close() {
    for (const off of this.offs) off();
    document.removeEventListener('visibilitychange', this.visibility);
    clearTimeout(this.readTimer);
    for (const { timer } of this.typists.values()) clearTimeout(timer);
    if (this.typingSentAt) this.sendTyping(false);
  }

  // MARK: the conversation

  setConversation(conversation) {
    const { t } = this;
    this.conversation = conversation;
    this.members = new Map(conversation.members.map((m) => [m.user_id, m]));
    this.app.rememberNames(conversation.members);
    this.title.textContent = conversation.name;
    document.title = t('app.document_title', { name: conversation.name });
    this.showDetail();
    this.tools.replaceChildren();
    const other = this.otherUserId();
    if (conversation.kind === 'direct' && other !== null && conversation.active) {
      this.tools.append(
        el('button', { type: 'button', class: 'quiet', onclick: () => startCall(this.app, other, { video: false }) },
          t('chat.call_voice')),
        el('button', { type: 'button', class: 'quiet', onclick: () => startCall(this.app, other, { video: true }) },
          t('chat.call_video')));
    }
    if (conversation.kind === 'group') {
      this.tools.append(el('a', { href: `#/group/${this.id}` }, t('chat.group_settings')));
    }
    // Rebuilt only when it changes (a rename or a new member must not lose what is being typed).
    if (this.composer.dataset.active !== String(conversation.active)) {
      this.composer.dataset.active = String(conversation.active);
      this.composer.replaceChildren(conversation.active ? this.buildComposer() : el('p', { class: 'empty' }, t('chat.left')));
    }
  }

  otherUserId() {
    const other = this.conversation.members.find((m) => m.user_id !== this.app.me.userId);
    return other ? other.user_id : null;
  }

  showDetail() {
    if (!this.conversation) return;
    const { t } = this;
    if (this.conversation.kind === 'direct') {
      const other = this.otherUserId();
      this.detail.textContent = other === null ? '' : presenceText(this.app.presence.get(other));
    } else {
      this.detail.textContent = t('chat.members', { names: [...this.members.keys()].map((id) => this.nameOf(id)).join(', ') });
    }
  }

  nameOf(userId) {
    if (userId === this.app.me.userId) return this.t('you');
    return this.members.get(userId)?.display_name ?? this.app.names.get(userId) ?? this.t('someone');
  }

  // MARK: messages

  addPage({ messages, has_more }) {
    for (const message of messages) this.place(message);
    // A removal's tombstone names the removed message, which history shows as deleted: say it was moderation.
    for (const message of messages) {
      if (message.system?.event === 'message_removed') this.applySystem(message.system);
    }
    if (messages.length) {
      const oldest = messages[messages.length - 1].seq;
      this.oldestSeq = this.oldestSeq === null ? oldest : Math.min(this.oldestSeq, oldest);
    }
    this.hasMore = has_more;
    this.older.hidden = !has_more;
    this.markReadSoon();
  }

  async loadOlder() {
    if (!this.hasMore || this.loadingOlder || this.oldestSeq === null) return;
    this.loadingOlder = true;
    const before = this.scroller.scrollHeight;
    try {
      const page = await this.client.request('messages.history',
        { conversation_id: this.id, before: this.oldestSeq, limit: PAGE_SIZE });
      this.addPage(page);
      this.scroller.scrollTop += this.scroller.scrollHeight - before;
    } catch (failure) {
      this.error.show(this.app.errorText(failure));
    } finally {
      this.loadingOlder = false;
    }
  }

  received(message) {
    const { scrollHeight, scrollTop, clientHeight } = this.scroller;
    const atEnd = scrollHeight - scrollTop - clientHeight < 80;
    if (message.kind === 'system') this.applySystem(message.system);
    this.place(message);
    this.typists.delete(message.sender_id);
    this.showTypists();
    if (atEnd) this.scrollToEnd();
    this.markReadSoon();
  }

  // What a system message changes on the page (members, name); deletions mark their message.
  applySystem(system) {
    if (system.event === 'message_deleted') {
      const target = this.byId.get(system.message_id);
      if (target) this.fill(target, { ...target.message, deleted: true });
      this.unpinned(system.message_id); // a deleted message drops out of the pins (no event says it)
    } else if (system.event === 'message_removed') {
      const target = this.byId.get(system.message_id);
      if (target) this.fill(target, { ...target.message, deleted: true, removed: true });
      this.unpinned(system.message_id);
    } else if (['member_added', 'member_left', 'renamed'].includes(system.event)) {
      this.client.request('conversations.get', { conversation_id: this.id })
        .then(({ conversation }) => this.setConversation(conversation),
          (failure) => this.error.show(this.app.errorText(failure)));
    }
  }

  // Puts a message in seq order; a seq already shown is not shown twice.
  place(message) {
    if (this.bySeq.has(message.seq)) return;
    const item = el('li', { class: 'message', dataset: { kind: message.kind } });
    this.fill(item, message);
    this.insert(item, message.seq);
  }

  insert(item, seq) {
    item.dataset.seq = String(seq);
    this.bySeq.set(seq, item);
    this.byId.set(item.message.id, item);
    const after = [...this.list.children].find((li) => !li.dataset.seq || Number(li.dataset.seq) > seq);
    this.list.insertBefore(item, after ?? null);
    this.showReceipt(item);
  }

  fill(item, message) {
    const { t } = this;
    item.message = message;
    const mine = message.sender_id === this.app.me.userId;
    item.classList.toggle('mine', mine);
    if (message.kind === 'system') {
      item.replaceChildren(el('p', {}, systemText(message, (id) => this.nameOf(id))));
      return;
    }
    const sender = message.sender_deleted ? t('message.deleted_account') : this.nameOf(message.sender_id);
    const meta = el('p', { class: 'meta' }, `${sender} · ${formatTime(message.ts)}`);
    let body;
    if (message.removed) body = el('p', { class: 'deleted' }, t('message.removed'));
    else if (message.deleted) body = el('p', { class: 'deleted' }, t(message.sender_deleted ? 'message.deleted_account_text' : 'message.deleted'));
    else if (message.kind === 'voice') body = voicePlayer(this.app, message);
    else body = el('p', { class: 'text' }, message.text);
    const head = el('div', { class: 'message-head' }, meta);
    item.replaceChildren(head, body);
    if (mine) meta.append(' · ', el('span', { class: 'receipt' }));
    if (!message.deleted) {
      meta.append(el('span', { class: 'pin-mark', hidden: true }, ' · ',
        el('span', { 'aria-hidden': 'true' }, '📌 '), el('span', {}, t('message.pinned_mark'))));
      item.append(el('ul', { class: 'reactions', 'aria-label': this.t('message.reactions_label') }));
      this.addActions(item, head, mine);
      this.showReactions(item);
      this.showPinState(item);
    }
    this.showReceipt(item);
  }

  // MARK: pins

  // The bar above the messages: a button telling how many are pinned and the latest, which opens the list of all
  // of them, each with an Unpin button. Hidden while nothing is pinned.
  buildPinBar() {
    const { t } = this;
    const listId = `pins-${this.id}`;
    this.pinSummary = el('span', { class: 'pin-summary' });
    this.pinList = el('ul', { class: 'pin-list', id: listId, hidden: true });
    this.pinToggle = el('button', { type: 'button', class: 'quiet pin-toggle', 'aria-expanded': 'false',
      'aria-controls': listId, onclick: () => {
        this.pinList.hidden = !this.pinList.hidden;
        this.pinToggle.setAttribute('aria-expanded', String(!this.pinList.hidden));
      } }, el('span', { 'aria-hidden': 'true' }, '📌 '), this.pinSummary);
    return el('section', { class: 'pinned', 'aria-label': t('pins.label'), hidden: true },
      this.pinToggle, this.pinList);
  }

  async loadPins() {
    try {
      const { pins, max_pins } = await this.client.request('conversations.pins', { conversation_id: this.id });
      this.pins = pins;
      this.maxPins = max_pins;
    } catch (failure) {
      // A member who left has no pins; a lost connection reads them again when it resumes.
      if (failure.code === 'not_member') this.pins = [];
      else if (!['connection_lost', 'timeout'].includes(failure.code)) this.error.show(this.app.errorText(failure));
    }
    this.showPins();
  }

  pinText(message) {
    const text = message.kind === 'voice' ? this.t('message.voice_sending') : (message.text ?? '');
    return this.t('pins.item', { name: this.nameOf(message.sender_id), text });
  }

  showPins() {
    const { t } = this;
    this.pinBar.hidden = this.pins.length === 0;
    if (this.pins.length) {
      const latest = this.pinText(this.pins[0].message);
      this.pinSummary.textContent = t('pins.summary', { count: this.pins.length, latest });
    }
    const byName = (id) => (id === null ? t('message.deleted_account') : this.nameOf(id));
    this.pinList.replaceChildren(...this.pins.map(({ message, pinned_by }) => el('li',
      { dataset: { messageId: String(message.id) } },
      el('span', { class: 'pin-text' }, this.pinText(message)),
      el('span', { class: 'pin-by' }, t('pins.by', { name: byName(pinned_by) })),
      el('button', { type: 'button', class: 'quiet small',
        'aria-label': t('pins.unpin_label', { text: this.pinText(message) }),
        onclick: () => this.setPinned(message.id, false) }, t('message.unpin')))));
    for (const item of this.byId.values()) this.showPinState(item);
  }

  // A message's Pin or Unpin option and its "Pinned" mark.
  showPinState(item) {
    const pinned = this.pins.some((p) => p.message.id === item.message.id);
    const button = item.querySelector('button[data-pin]');
    if (button) button.textContent = this.t(pinned ? 'message.unpin' : 'message.pin');
    const mark = item.querySelector('.pin-mark');
    if (mark) mark.hidden = !pinned;
  }

  async setPinned(messageId, pin) {
    try {
      if (pin) {
        const { pin: stored } = await this.client.request('messages.pin', { message_id: messageId });
        this.pinned(stored);
      } else {
        await this.client.request('messages.unpin', { message_id: messageId });
        this.unpinned(messageId);
      }
    } catch (failure) {
      const full = failure.code === 'too_many';
      this.app.toast(full ? this.t('pins.full', { max: this.maxPins }) : this.app.errorText(failure));
    }
  }

  // A pin (mine, or `message.pinned`): first in the list, once.
  pinned(pin) {
    this.pins = [pin, ...this.pins.filter((p) => p.message.id !== pin.message.id)];
    this.showPins();
  }

  unpinned(messageId) {
    if (!this.pins.some((p) => p.message.id === messageId)) return;
    this.pins = this.pins.filter((p) => p.message.id !== messageId);
    this.showPins();
  }

  // MARK: reactions

  // The counts under a message (`message.reactions`: [{emoji, count, mine}]); the react buttons show mine.
  showReactions(item) {
    const { t } = this;
    const reactions = item.message.reactions ?? [];
    const list = item.querySelector('.reactions');
    if (!list) return;
    list.hidden = reactions.length === 0;
    list.replaceChildren(...reactions.map(({ emoji, count, mine }) => el('li', { class: mine ? 'mine' : null,
      'aria-label': t(mine ? 'message.reaction_count_mine' : 'message.reaction_count', { emoji_name: emojiName(t, emoji), count }) },
    el('span', { 'aria-hidden': 'true' }, `${emoji} ${count}`))));
    for (const button of item.querySelectorAll('button[data-emoji]')) {
      const pressed = reactions.some((r) => r.mine && r.emoji === button.dataset.emoji);
      button.setAttribute('aria-pressed', String(pressed));
    }
  }

  // Choosing my reaction again takes it back; another emoji replaces it.
  async react(item, emoji) {
    const mineNow = (item.message.reactions ?? []).some((r) => r.mine && r.emoji === emoji);
    const params = mineNow ? { message_id: item.message.id, emoji, active: false } : { message_id: item.message.id, emoji };
    try {
      const { reactions } = await this.client.request('reactions.set', params);
      item.message = { ...item.message, reactions };
      this.showReactions(item);
    } catch (failure) {
      this.app.toast(this.app.errorText(failure));
    }
  }

  // A `message.reaction` event: new counts without `mine`, which stays as it was unless the change is mine.
  reacted({ message_id, user_id, emoji, reactions }) {
    const item = this.byId.get(message_id);
    if (!item) return;
    const myEmoji = user_id === this.app.me.userId ? emoji
      : (item.message.reactions ?? []).find((r) => r.mine)?.emoji ?? null;
    item.message = { ...item.message, reactions: reactions.map((r) => ({ ...r, mine: r.emoji === myEmoji })) };
    this.showReactions(item);
  }

  // An "Options" button on the message's first line that opens the reactions, Hide (and Delete for my own
  // messages). Escape in the options closes them and puts the focus back on the button.
  addActions(item, head, mine) {
    const { t } = this;
    const panelId = `options-${item.message.id}`;
    const reactions = el('div', { class: 'react', role: 'group', 'aria-label': t('message.react_group') },
      REACTIONS.map(([emoji, name]) => el('button', { type: 'button', class: 'quiet small emoji', 'aria-pressed': 'false',
        dataset: { emoji }, 'aria-label': t('message.react', { emoji_name: t(`emoji.${name}`) }),
        onclick: () => this.react(item, emoji) }, emoji)));
    const panel = el('div', { class: 'message-actions', id: panelId, hidden: true }, reactions,
      el('button', { type: 'button', class: 'quiet', dataset: { pin: '' },
        onclick: () => this.setPinned(item.message.id, !this.pins.some((p) => p.message.id === item.message.id)) },
      t('message.pin')),
      el('button', { type: 'button', class: 'quiet', onclick: () => this.hideMessage(item) }, t('message.hide')),
      mine ? el('button', { type: 'button', class: 'danger', onclick: () => this.deleteMessage(item) }, t('message.delete')) : null,
      mine ? null : el('button', { type: 'button', class: 'quiet', onclick: () => openReport(this.app,
        { kind: 'message', id: item.message.id, title: t('report.message_title') }) }, t('report.action')));
    const setOpen = (open) => {
      panel.hidden = !open;
      toggle.setAttribute('aria-expanded', String(open));
    };
    const toggle = el('button', { type: 'button', class: 'quiet small', 'aria-expanded': 'false', 'aria-controls': panelId,
      'aria-label': t('message.options_label', { name: this.nameOf(item.message.sender_id) }),
      onclick: () => {
        setOpen(panel.hidden);
        if (!panel.hidden) panel.scrollIntoView({ block: 'nearest' }); // in sight even in a short list at 200%
      } }, t('message.options'));
    const escape = (event) => {
      if (event.key !== 'Escape' || panel.hidden) return;
      event.preventDefault();
      event.stopPropagation();
      setOpen(false);
      toggle.focus();
    };
    panel.addEventListener('keydown', escape);
    toggle.addEventListener('keydown', escape);
    head.append(toggle);
    item.append(panel);
  }

  async deleteMessage(item) {
    if (!confirm(this.t('message.delete_confirm'))) return;
    try {
      const { message: tombstone } = await this.client.request('messages.delete', { message_id: item.message.id });
      this.fill(item, { ...item.message, deleted: true });
      this.place(tombstone);
    } catch (failure) {
      this.app.toast(this.app.errorText(failure));
    }
  }

  async hideMessage(item) {
    try {
      await this.client.request('messages.hide', { message_id: item.message.id });
      this.removeMessage(item.message.id);
    } catch (failure) {
      this.app.toast(this.app.errorText(failure));
    }
  }

  // `user.deleted`: that account's messages on the page become tombstones at once (history has them so too).
  senderDeleted(userId) {
    for (const item of this.byId.values()) {
      const m = item.message;
      if (m.sender_id !== userId || m.kind === 'system' || m.sender_deleted) continue;
      const { text, voice, reactions, ...rest } = m;
      this.fill(item, { ...rest, deleted: true, sender_deleted: true });
    }
  }

  removeMessage(messageId) {
    this.unpinned(messageId); // hidden: out of my pins too
    const item = this.byId.get(messageId);
    if (!item) return;
    this.byId.delete(messageId);
    item.remove();
  }

  scrollToEnd() {
    this.scroller.scrollTop = this.scroller.scrollHeight;
  }

  // MARK: read markers

  markReadSoon() {
    clearTimeout(this.readTimer);
    this.readTimer = setTimeout(() => this.markRead(), READ_DELAY_MS);
  }

  async markRead() {
    const newest = Math.max(0, ...this.bySeq.keys());
    if (!this.conversation || document.visibilityState !== 'visible' || newest <= this.conversation.read_seq) return;
    try {
      const { read_seq } = await this.client.request('conversations.read', { conversation_id: this.id, seq: newest });
      this.conversation.read_seq = read_seq;
    } catch (failure) {
      // A marker lost with the connection goes again with the next message or visit; others are shown.
      if (failure.code !== 'connection_lost' && failure.code !== 'timeout') this.error.show(this.app.errorText(failure));
    }
  }

  readBy(userId, seq) {
    const member = this.members.get(userId);
    if (!member || userId === this.app.me.userId) return;
    member.read_seq = Math.max(member.read_seq, seq);
    for (const item of this.bySeq.values()) this.showReceipt(item);
  }

  // "Read" on my messages the other side has read; in groups, how many have read it.
  showReceipt(item) {
    const receipt = item.querySelector('.receipt');
    if (!receipt || !item.dataset.seq) return;
    const seq = Number(item.dataset.seq);
    const others = [...this.members.values()].filter((m) => m.user_id !== this.app.me.userId);
    const readers = others.filter((m) => m.read_seq >= seq).length;
    if (!readers) receipt.textContent = this.t('message.sent');
    else if (this.conversation?.kind === 'direct') receipt.textContent = this.t('message.read');
    else receipt.textContent = this.t('message.read_by', { count: readers, total: others.length });
  }

  // MARK: typing and recording

  typing({ user_id, activity, active, expires_in_ms }) {
    clearTimeout(this.typists.get(user_id)?.timer);
    if (active) {
      const timer = setTimeout(() => {
        this.typists.delete(user_id);
        this.showTypists();
      }, expires_in_ms);
      this.typists.set(user_id, { activity, timer });
    } else {
      this.typists.delete(user_id);
    }
    this.showTypists();
  }

  showTypists() {
    const lines = [...this.typists].map(([userId, { activity }]) =>
      this.t(activity === 'recording' ? 'chat.recording' : 'chat.typing', { name: this.nameOf(userId) }));
    this.indicator.textContent = lines.join(' ');
  }

  // Typing and recording signals are hints that expire by themselves: a refused one is not worth a message.
  sendTyping(active, activity = 'typing') {
    this.typingSentAt = active ? Date.now() : 0;
    this.client.request('typing', { conversation_id: this.id, activity, active }).catch(() => {});
  }

  // MARK: sending

  buildComposer() {
    const { t } = this;
    const text = field(t('chat.message'), { as: 'textarea', rows: '2', maxlength: '4096' });
    this.textInput = text.input;
    text.input.addEventListener('input', () => {
      const hasText = text.input.value.trim() !== '';
      if (hasText && Date.now() - this.typingSentAt > TYPING_REFRESH_MS) this.sendTyping(true);
      else if (!hasText && this.typingSentAt) this.sendTyping(false);
    });
    text.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    const form = el('form', { class: 'composer' }, text.row, el('button', { type: 'submit' }, t('chat.send')));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const value = text.input.value;
      if (!value.trim()) return;
      text.input.value = '';
      this.typingSentAt = 0; // sending a message ends the typing indicator on the server
      this.send({ kind: 'text', text: value });
    });
    const recorder = voiceRecorder(this.app, {
      onSend: (voiceId, durationMs, clip) => this.send({ kind: 'voice', voice: voiceOf(clip) }),
      onRecording: (active) => this.sendTyping(active, 'recording'),
    });
    return el('div', {}, form, el('div', { class: 'actions' }, recorder),
      el('p', { class: 'hint' }, t('chat.enter_hint')));
  }

  // Shows the message at once as waiting, sends it with its client id (kept while offline and resent on
  // reconnect by the client), and puts it in its seq place when acknowledged.
  send(content) {
    const clientId = newClientId();
    const message = { id: null, sender_id: this.app.me.userId, ts: new Date().toISOString(), client_id: clientId, ...content };
    const item = el('li', { class: 'message mine', dataset: { kind: content.kind } });
    item.message = message;
    item.append(el('p', { class: 'meta' }, this.t('you')),
      el('p', { class: content.kind === 'text' ? 'text' : 'meta' }, content.kind === 'text' ? content.text : this.t('message.voice_sending')),
      el('p', { class: 'pending', role: 'status' }, this.t(this.client.state === 'open' ? 'message.sending' : 'message.queued')));
    this.list.append(item);
    this.scrollToEnd();
    this.deliver(item);
  }

  async deliver(item) {
    const { message } = item;
    const params = { conversation_id: this.id, client_id: message.client_id };
    if (message.kind === 'text') params.text = message.text;
    else params.voice_id = message.voice.voice_id;
    try {
      const ack = await this.client.request('messages.send', params);
      item.remove();
      if (this.bySeq.has(ack.seq)) return;
      this.place({ ...message, id: ack.message_id, seq: ack.seq, ts: ack.ts });
      this.scrollToEnd();
    } catch (failure) {
      const retry = el('button', { type: 'button', class: 'quiet', onclick: () => {
        retry.remove();
        item.querySelector('.pending').textContent = this.t('message.sending');
        this.deliver(item);
      } }, this.t('message.retry'));
      item.querySelector('.pending').textContent = this.t('message.not_sent', { reason: this.app.errorText(failure) });
      item.append(retry);
    }
  }
}

// A voice message's `voice` object, from the upload's answer (docs/protocol.md, Voice).
function voiceOf({ voice_id, duration_ms, waveform, size, mime_type }) {
  return { voice_id, duration_ms, waveform, size, mime_type };
}

// The spoken name of an emoji offered in the options (any other one is "another emoji").
function emojiName(t, emoji) {
  const known = REACTIONS.find(([e]) => e === emoji);
  return `${emoji} ${t(known ? `emoji.${known[1]}` : 'emoji.other')}`;
}

function newClientId() {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return 'web-' + [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
