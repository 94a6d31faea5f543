// Which messages the app has been given, per conversation, so a resume asks for exactly the rest and a
// message that arrives twice (live and in a catch-up) is given once. The same rules as the Swift client's
// ResumeTracker (Sources/SwitchboardClient/ResumeTracker.swift, docs/client.md "Reconnect and resume").
//
// Per conversation: a floor (every seq up to it is accounted for) and the seqs seen above it. The highest
// seq alone is not enough: the acknowledgement of our own seq 8 may arrive before someone else's seq 7.
export class ResumeTracker {
  constructor() {
    this.windows = new Map();   // conversation id -> {floor: number|null, seen: Set<number>}
    this.baselines = new Map(); // conversation id -> last_seq when the session began
    this.duplicatesDropped = 0;
  }

  // A `message` event: true when it is new, false for a duplicate.
  observe(conversationId, seq) {
    const w = this.window(conversationId);
    if ((w.floor !== null && seq <= w.floor) || w.seen.has(seq)) {
      this.duplicatesDropped += 1;
      return false;
    }
    // The first event of a conversation: events come in seq order, so everything before it is older.
    if (w.floor === null) w.floor = seq - 1;
    w.seen.add(seq);
    compact(w);
    return true;
  }

  // The acknowledgement of a message this client sent (the sending connection gets no event for it).
  acknowledge(conversationId, seq) {
    const w = this.window(conversationId);
    if (w.floor !== null && seq <= w.floor) return;
    w.seen.add(seq);
    compact(w);
  }

  // The session starts at lastSeq in this conversation (conversations.list read after authenticating).
  setBaseline(conversationId, lastSeq) {
    this.baselines.set(conversationId, Math.max(this.baselines.get(conversationId) ?? lastSeq, lastSeq));
  }

  // Everything up to lastSeq is accounted for (a sync reply: its catch-up was sent before it).
  advance(conversationId, lastSeq) {
    const w = this.window(conversationId);
    w.floor = Math.max(w.floor ?? lastSeq, lastSeq);
    compact(w);
  }

  // `sync {since}`: per known conversation, the seq after which everything is wanted. A conversation in
  // which we only sent resumes from its baseline; without one it is left out (it comes from the joining).
  resumePoints() {
    const since = {};
    for (const [c, seq] of this.baselines) since[c] = seq;
    for (const [c, w] of this.windows) {
      if (w.floor !== null) {
        since[c] = w.floor;
      } else if (this.baselines.has(c)) {
        const baseline = this.baselines.get(c);
        since[c] = Math.min(baseline, (w.seen.size ? Math.min(...w.seen) : baseline + 1) - 1);
      } else {
        delete since[c];
      }
    }
    return since;
  }

  // Whether a message before seq is missing once seq was observed (the floor is known and below seq - 1): a
  // connection's message events come in seq order, so it is one the live stream missed; a sync brings it.
  hasGap(conversationId, seq) {
    const w = this.windows.get(conversationId);
    return !!w && w.floor !== null && w.floor < seq - 1;
  }

  // Whether any conversation has seqs seen above a known floor (the floor's next seq is missing).
  hasAnyGap() {
    for (const w of this.windows.values()) if (w.floor !== null && w.seen.size > 0) return true;
    return false;
  }

  reset() {
    this.windows.clear();
    this.baselines.clear();
  }

  window(conversationId) {
    let w = this.windows.get(conversationId);
    if (!w) {
      w = { floor: null, seen: new Set() };
      this.windows.set(conversationId, w);
    }
    return w;
  }
}

function compact(w) {
  if (w.floor === null) return;
  for (const seq of w.seen) if (seq <= w.floor) w.seen.delete(seq);
  while (w.seen.delete(w.floor + 1)) w.floor += 1;
}
