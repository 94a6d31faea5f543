// A minimal stand-in for the app's HubClient (the contract's request/on/token/userId), for media's tests until
// the app's client lands. No reconnect.
export class StubClient extends EventTarget {
  constructor() { super(); this.nextId = 1; this.pending = new Map(); this.token = null; this.userId = null; }
  connect() {
    return new Promise((resolve, reject) => {
      this.socket = new WebSocket('ws://' + location.host + '/ws', 'switchboard.v1');
      this.socket.addEventListener('open', () => { this.emit('state', { state: 'open' }); resolve(); });
      this.socket.addEventListener('error', reject);
      this.socket.addEventListener('close', () => this.emit('state', { state: 'offline' }));
      this.socket.addEventListener('message', (event) => {
        const msg = JSON.parse(event.data);
        if (msg.ev) { this.emit(msg.ev, msg); return; }
        const p = this.pending.get(msg.re);
        if (!p) return;
        this.pending.delete(msg.re);
        if (msg.error) p.reject(Object.assign(new Error(msg.error.message), { code: msg.error.code }));
        else p.resolve(msg.ok);
      });
    });
  }
  emit(name, detail) { this.dispatchEvent(new CustomEvent(name, { detail })); }
  request(op, params = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, op, ...params }));
    }).then((ok) => {
      if (ok && ok.session_token) { this.token = ok.session_token; this.userId = ok.user_id; }
      return ok;
    });
  }
  on(name, fn) { this.addEventListener(name, fn); return () => this.removeEventListener(name, fn); }
}
