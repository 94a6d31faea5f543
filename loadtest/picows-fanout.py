#!/usr/bin/env python3
# A group fan-out load from an independent generator (issue 17): Python picows clients, the kind of generator the
# issue measured uWebSockets and Node's ws with, instead of the project's own msg-bench (a Swift client on the
# project's transport). Same loads and the same JSON fields as `msg-bench fanout --json`, so `table-row.py` reads
# either (`GENERATOR=picows loadtest/msg-bench.sh table`).
#
# Every user of a `msg-bench setup` users file (the group's members) connects and authenticates with its token;
# the first SENDERS users send 128-byte texts to the group: closed loops of WINDOW unacknowledged `messages.send`
# each, or paced to RATE messages/s in all. Every member but the sender gets each message as an event. Counted
# over DURATION seconds after WARMUP: messages acknowledged, deliveries, the server's CPU (utime + stime from
# /proc/PID/stat) and its descendants' (the embedded PostgreSQL). Latencies: send to acknowledgement and send to
# delivery (the send time travels in the client id), p50/p99/max. Bounded: connects within 60 s, sends for
# warm-up + duration, drains for at most 10 s; exits 1 when a send failed or a delivery is missing.
#
# Usage: picows-fanout.py --port P --users FILE --server-pid PID [--senders 4] [--window 8] [--rate 0]
#                         [--text-size 128] [--duration 10] [--warmup 2]
import argparse
import asyncio
import json
import os
import sys
import time

from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

MESSAGE_PREFIX = b'{"ev":"message","message":{"client_id":"'


def percentiles(values: list[float]) -> dict:
    if not values:
        return {"count": 0, "p50": 0, "p99": 0, "max": 0}
    values.sort()
    n = len(values)
    return {"count": n, "p50": values[n // 2], "p99": values[min(n - 1, (n * 99) // 100)], "max": values[-1]}


def cpu_seconds(pid: int) -> tuple[float, float]:
    """CPU seconds of `pid` and of all its descendants."""
    tck = os.sysconf("SC_CLK_TCK")
    stats: dict[int, tuple[int, float]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                text = f.read()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        stats[int(entry)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tck)
    children: dict[int, list[int]] = {}
    for p, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(p)
    own = stats.get(pid, (0, 0.0))[1]
    total, stack = 0.0, list(children.get(pid, []))
    while stack:
        p = stack.pop()
        total += stats[p][1]
        stack.extend(children.get(p, []))
    return own, total


def machine_busy_seconds() -> float:
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


class Run:
    def __init__(self, args, users, group_id):
        self.args = args
        self.users = users
        self.group_id = group_id
        self.text = "x" * args.text_size
        self.measuring = False
        self.sending = True
        self.deliveries = 0
        # Deliveries of the messages sent in the measured window (`window_ns`), against `expected`.
        self.window_deliveries = 0
        self.window_ns = (1 << 63, 1 << 63)
        self.expected = 0
        self.acked = 0
        self.sent = 0
        self.errors: list[str] = []
        self.ack_latency: list[float] = []
        self.delivery_latency: list[float] = []
        self.authenticated = 0
        self.all_authenticated = asyncio.get_running_loop().create_future()
        self.clients: list["Client"] = []


class Client(WSListener):
    def __init__(self, run: Run, index: int):
        self.run = run
        self.index = index
        self.transport: WSTransport | None = None
        self.next_id = 1
        self.pending: dict[int, tuple[int, bool]] = {}  # request id -> (send time ns, counted)
        self.sequence = 0

    def request(self, body: str) -> int:
        rid = self.next_id
        self.next_id += 1
        self.transport.send(WSMsgType.TEXT, f'{{"id":{rid},{body}}}'.encode())
        return rid

    def on_ws_connected(self, transport: WSTransport):
        self.transport = transport
        self.auth_id = self.request(f'"op":"authenticate","token":"{self.run.users[self.index]["token"]}"')

    def send_message(self):
        run = self.run
        now = time.monotonic_ns()
        self.sequence += 1
        rid = self.request(
            f'"op":"messages.send","conversation_id":{run.group_id},"client_id":"{now}.{self.index}.{self.sequence}",'
            f'"text":"{run.text}"'
        )
        self.pending[rid] = (now, run.measuring)
        if run.measuring:
            run.sent += 1
            run.expected += len(run.users) - 1

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame):
        if frame.msg_type != WSMsgType.TEXT:
            if frame.msg_type == WSMsgType.CLOSE:
                self.run.errors.append(f"client {self.index}: closed {frame.get_close_code()}")
            return
        data = frame.get_payload_as_bytes()
        run = self.run
        if data.startswith(MESSAGE_PREFIX):
            end = data.index(b".", len(MESSAGE_PREFIX))
            sent_at = int(data[len(MESSAGE_PREFIX) : end])
            if run.window_ns[0] <= sent_at < run.window_ns[1]:
                run.window_deliveries += 1
            if run.measuring:
                run.deliveries += 1
                run.delivery_latency.append((time.monotonic_ns() - sent_at) / 1000)
            return
        if data.startswith(b'{"ok":') or data.startswith(b'{"error":'):
            i = data.rfind(b'"re":')
            j = i + 5
            while j < len(data) and 48 <= data[j] <= 57:
                j += 1
            rid = int(data[i + 5 : j]) if i >= 0 else -1
            if data.startswith(b'{"error":'):
                run.errors.append(f"client {self.index}: {data[:200].decode(errors='replace')}")
            if rid == getattr(self, "auth_id", -2):
                run.authenticated += 1
                if run.authenticated == len(run.users) and not run.all_authenticated.done():
                    run.all_authenticated.set_result(None)
                return
            entry = self.pending.pop(rid, None)
            if entry is None:
                return
            sent_at, counted = entry
            if counted:
                run.acked += 1
                run.ack_latency.append((time.monotonic_ns() - sent_at) / 1000)
            if run.args.rate == 0 and run.sending and self.index < run.args.senders:
                self.send_message()

    def on_ws_disconnected(self, transport: WSTransport):
        if self.run.sending:
            self.run.errors.append(f"client {self.index}: disconnected")


async def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--users", required=True)
    parser.add_argument("--server-pid", type=int, required=True)
    parser.add_argument("--senders", type=int, default=4)
    parser.add_argument("--window", type=int, default=8)
    parser.add_argument("--rate", type=float, default=0)
    parser.add_argument("--text-size", type=int, default=128)
    parser.add_argument("--duration", type=float, default=10)
    parser.add_argument("--warmup", type=float, default=2)
    args = parser.parse_args()
    with open(args.users) as f:
        file = json.load(f)
    users = file["users"][: file["group_size"]]
    run = Run(args, users, file["group_id"])
    url = f"ws://{args.host}:{args.port}/ws"
    headers = {"Sec-WebSocket-Protocol": "switchboard.v1"}
    started = time.monotonic()
    for i in range(len(users)):
        _, client = await ws_connect(lambda i=i: Client(run, i), url, extra_headers=headers)
        run.clients.append(client)
    await asyncio.wait_for(run.all_authenticated, timeout=max(1.0, 60 - (time.monotonic() - started)))
    print(f"{len(users)} connections authenticated in {time.monotonic() - started:.2f} s", file=sys.stderr)
    senders = run.clients[: args.senders]

    async def paced():
        interval = args.senders / args.rate  # each sender's interval
        for k, s in enumerate(senders):
            async def loop(s=s, offset=k * interval / len(senders)):
                await asyncio.sleep(offset)
                next_at = time.monotonic()
                while run.sending:
                    if len(s.pending) < args.window:
                        s.send_message()
                    next_at += interval
                    await asyncio.sleep(max(0, next_at - time.monotonic()))
            asyncio.ensure_future(loop())

    if args.rate > 0:
        await paced()
    else:
        for s in senders:
            for _ in range(args.window):
                s.send_message()
    await asyncio.sleep(args.warmup)
    own0, pg0 = cpu_seconds(args.server_pid)
    busy0 = machine_busy_seconds()
    me0 = time.process_time()
    t0 = time.monotonic()
    run.window_ns = (time.monotonic_ns(), 1 << 63)
    run.measuring = True
    await asyncio.sleep(args.duration)
    run.measuring = False
    run.window_ns = (run.window_ns[0], time.monotonic_ns())
    window = time.monotonic() - t0
    own1, pg1 = cpu_seconds(args.server_pid)
    busy1 = machine_busy_seconds()
    me1 = time.process_time()
    run.sending = False
    # Drain: the messages counted must all arrive.
    drain_started = time.monotonic()
    while run.window_deliveries < run.expected and time.monotonic() - drain_started < 10:
        await asyncio.sleep(0.05)
    server, postgres, mine = own1 - own0, pg1 - pg0, me1 - me0
    result = {
        "scenario": "fanout",
        "generator": "picows",
        "connections": len(users),
        "group_size": len(users),
        "senders": args.senders,
        "window": args.window,
        "target_rate": args.rate,
        "text_size": args.text_size,
        "seconds": round(window, 2),
        "sent": run.sent,
        "acked": run.acked,
        "messages_per_second": round(run.acked / window),
        "deliveries": run.deliveries,
        "expected_deliveries": run.expected,
        "missing_deliveries": max(0, run.expected - run.window_deliveries),
        "extra_deliveries": max(0, run.window_deliveries - run.expected),
        "deliveries_per_second": round(run.deliveries / window),
        "server_cpu_seconds": round(server, 2),
        "server_cpu_percent": round(server / window * 100),
        "postgres_cpu_seconds": round(postgres, 2),
        "postgres_cpu_percent": round(postgres / window * 100),
        "generator_cpu_percent": round(mine / window * 100),
        "other_cpu_percent": max(0, round((busy1 - busy0 - server - postgres - mine) / window * 100)),
        "ack_latency_us": percentiles(run.ack_latency),
        "delivery_latency_us": percentiles(run.delivery_latency),
        "errors": len(run.errors),
        "first_errors": run.errors[:10],
    }
    print(json.dumps(result))
    for c in run.clients:
        c.transport.disconnect()
    return 1 if run.errors or result["missing_deliveries"] or result["extra_deliveries"] else 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
