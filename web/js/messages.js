// How messages read in plain words: system messages (group changes, calls) and one-line previews.
import { t } from './strings.js';
import { formatDuration } from './ui.js';

// `nameOf(userId)` gives a member's display name (or "you").
export function systemText(message, nameOf) {
  const s = message.system;
  // Inside a sentence "You" is "you" ("Ann added you."); a sentence may still start with it.
  const inner = (id) => { const name = nameOf(id); return name === t('you') ? t('you_inside') : name; };
  const names = (ids) => (ids ?? []).map(inner).join(', ');
  switch (s.event) {
    case 'created': {
      const others = (s.user_ids ?? []).filter((id) => id !== s.actor_id);
      const vars = { actor: nameOf(s.actor_id), name: s.name, names: names(others) };
      return t(s.name ? 'system.created' : 'system.created_unnamed', vars);
    }
    case 'member_added': return t('system.member_added', { actor: nameOf(s.actor_id), names: names(s.user_ids) });
    case 'member_left': return t('system.member_left', { names: (s.user_ids ?? []).map(nameOf).join(', ') });
    case 'renamed': return t('system.renamed', { actor: nameOf(s.actor_id), name: s.name });
    case 'message_deleted': return t('system.message_deleted', { actor: nameOf(s.actor_id) });
    case 'message_removed': return t('system.message_removed');
    case 'call': return callText(s);
    default: return t('system.other');
  }
}

function callText(s) {
  const media = t(s.media === 'video' ? 'system.call.video' : 'system.call.voice');
  const key = `system.call.${s.outcome}`;
  return t(key, { media, duration: formatDuration(s.duration_ms ?? 0) });
}

// One line for the chat list.
export function previewText(message, nameOf) {
  if (!message) return t('chats.no_messages');
  if (message.deleted) return t('message.deleted');
  if (message.kind === 'system') return systemText(message, nameOf);
  const body = message.kind === 'voice'
    ? t('message.voice_preview', { duration: formatDuration(message.voice.duration_ms) })
    : message.text;
  return t('chats.preview', { name: nameOf(message.sender_id), text: body });
}
