// Media's test page until the app's chat page lands: a chat with one friend showing voice messages, the
// recorder, call buttons and call records, using media's modules exactly as the chat page does.
import { StubClient } from './stubclient.js';
import { voiceRecorder, voicePlayer } from '/js/voice.js';
import { installCalls, startCall } from '/js/calls.js';

const client = new StubClient();
const toasts = [];
const app = { client, strings: {}, toast: (text) => toasts.push(text), navigate() {}, me: {} };

function show(message) {
  const list = document.getElementById('messages');
  const item = document.createElement('li');
  item.dataset.seq = String(message.seq);
  item.dataset.kind = message.kind;
  if (message.kind === 'voice') item.append(voicePlayer(app, message));
  else if (message.kind === 'system') item.textContent = `call ${message.system.outcome} ${message.system.media}`;
  else item.textContent = message.text;
  list.append(item);
}

window.dev = {
  app, toasts,
  async start(phone, name) {
    await client.connect();
    const ok = await client.request('register', { phone, password: 'plain tulips 4711', display_name: name, device: 'browser' });
    app.me = { userId: ok.user_id, displayName: name };
    installCalls(app);
    return ok.user_id;
  },
  async login(phone, name) {
    await client.connect();
    const ok = await client.request('login', { phone, password: 'plain tulips 4711', device: 'second browser' });
    app.me = { userId: ok.user_id, displayName: name };
    installCalls(app);
    return ok.user_id;
  },
  async chatWith(peerId) {
    const conv = (await client.request('conversations.direct', { user_id: peerId })).conversation;
    client.on('message', (e) => { if (e.detail.message.conversation_id === conv.conversation_id) show(e.detail.message); });
    const composer = document.getElementById('composer');
    composer.append(voiceRecorder(app, {
      async onSend(voiceId) {
        const ack = await client.request('messages.send', { conversation_id: conv.conversation_id, voice_id: voiceId, client_id: 'v' + Date.now() });
        const history = await client.request('messages.history', { conversation_id: conv.conversation_id, limit: 1 });
        show(history.messages[0]);
        return ack;
      },
    }));
    const calls = document.getElementById('calls');
    for (const video of [false, true]) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = video ? 'Video call' : 'Voice call';
      b.addEventListener('click', () => startCall(app, peerId, { video }));
      calls.append(b);
    }
    return conv.conversation_id;
  },
};
