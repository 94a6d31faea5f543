#!/usr/bin/env python3
# One row of `msg-bench.sh table` (issue 17): a msg-bench fanout result and the server's /metrics before and
# after the run, printed as deliveries per server CPU-second (and with PostgreSQL's CPU counted), deliveries
# per send call, the latency tails, and the ratio to uWebSockets' figure for the same load (issue 17's table:
# measured by the author with picows clients, a different generator; a reference, not a same-sitting
# comparison).
# Usage: table-row.py LOAD RESULT_JSON METRICS_BEFORE_FILE METRICS_AFTER_FILE
import json
import re
import sys

UWS = {"20/s": 143_397, "32": 2_103_264, "256": 192_805}


def counter(text: str, name: str, labels: str = "") -> float:
    """The sum of a Prometheus counter's samples whose labels contain `labels`."""
    total = 0.0
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([0-9.eE+-]+)$", line.strip())
        if m and m.group(1) == name and labels in (m.group(2) or ""):
            total += float(m.group(3))
    return total


def main() -> None:
    load, result = sys.argv[1], json.loads(sys.argv[2])
    with open(sys.argv[3]) as f:
        before = f.read()
    with open(sys.argv[4]) as f:
        after = f.read()
    frames = counter(after, "switchboard_frames_total", 'direction="out"') - counter(before, "switchboard_frames_total", 'direction="out"')
    writes = counter(after, "switchboard_write_calls_total") - counter(before, "switchboard_write_calls_total")
    stored = counter(after, "switchboard_messages_stored_total") - counter(before, "switchboard_messages_stored_total")
    commits = counter(after, "switchboard_message_batches_total") - counter(before, "switchboard_message_batches_total")
    seconds = result["seconds"]
    deliveries = result["deliveries_per_second"] * seconds
    server = result.get("server_cpu_seconds", result.get("server_cpu_percent", 0) / 100 * seconds)
    postgres = result.get("postgres_cpu_seconds", result.get("postgres_cpu_percent", 0) / 100 * seconds)
    per_server = deliveries / server if server else float("nan")
    per_both = deliveries / (server + postgres) if server + postgres else float("nan")
    per_call = f"{frames / writes:.1f}" if writes else "n/a (no switchboard_write_calls_total)"
    ack, delivery = result["ack_latency_us"], result["delivery_latency_us"]
    row = {
        "load": load,
        "messages_per_second": result["messages_per_second"],
        "deliveries_per_second": result["deliveries_per_second"],
        "server_cpu_percent": result.get("server_cpu_percent"),
        "postgres_cpu_percent": result.get("postgres_cpu_percent"),
        "other_cpu_percent": result.get("other_cpu_percent"),
        "deliveries_per_server_cpu_second": round(per_server),
        "deliveries_per_cpu_second_with_postgres": round(per_both),
        "versus_uws": round(per_both / UWS[load], 2) if load in UWS else None,
        "frames_per_write_call": per_call,
        "messages_per_commit": round(stored / commits, 1) if commits else None,
        "ack_p99_ms": ack.get("p99", 0) / 1000,
        "delivery_p99_ms": delivery.get("p99", 0) / 1000,
        "delivery_max_ms": delivery.get("max", 0) / 1000,
    }
    print(
        f"{load:>5}: {row['messages_per_second']:>6} msg/s {row['deliveries_per_second']:>9} deliveries/s | server "
        f"{row['server_cpu_percent']}% pg {row['postgres_cpu_percent']}% other {row['other_cpu_percent']}% | "
        f"{row['deliveries_per_server_cpu_second']:>9} /server CPU-s {row['deliveries_per_cpu_second_with_postgres']:>9} "
        f"/CPU-s with pg ({row['versus_uws']}x uWS) | {per_call} frames/send, {row['messages_per_commit']} msg/commit | ack p99 {row['ack_p99_ms']:.1f} ms "
        f"delivery p99 {row['delivery_p99_ms']:.1f} ms max {row['delivery_max_ms']:.1f} ms"
    )
    print(json.dumps(row), file=sys.stderr)


if __name__ == "__main__":
    main()
