// Prometheus-style counters for GET /metrics: requests by route and status, time spent, in-flight
// requests, body bytes read, the vectorize line and the engine pool.
export class Metrics {
  private readonly byRoute = new Map<string, Map<number, number>>();
  private readonly seconds = new Map<string, number>();
  bytesIn = 0;
  inFlight = 0;

  /** Count one finished request. */
  record(route: string, status: number, ms: number, bytesIn: number): void {
    let byStatus = this.byRoute.get(route);
    if (!byStatus) this.byRoute.set(route, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    this.seconds.set(route, (this.seconds.get(route) ?? 0) + ms / 1000);
    this.bytesIn += bytesIn;
  }

  /** Prometheus text exposition (version 0.0.4). */
  render(gauges: Record<string, number>): string {
    const out: string[] = ['# TYPE inkprep_requests_total counter'];
    for (const [route, byStatus] of this.byRoute) for (const [status, v] of byStatus) out.push(`inkprep_requests_total{route="${route}",status="${status}"} ${v}`);
    out.push('# TYPE inkprep_request_seconds_total counter');
    for (const [k, v] of this.seconds) out.push(`inkprep_request_seconds_total{route="${k}"} ${v.toFixed(6)}`);
    out.push('# TYPE inkprep_body_bytes_total counter', `inkprep_body_bytes_total ${this.bytesIn}`);
    out.push('# TYPE inkprep_requests_in_flight gauge', `inkprep_requests_in_flight ${this.inFlight}`);
    for (const [k, v] of Object.entries(gauges)) out.push(`# TYPE ${k} gauge`, `${k} ${v}`);
    return out.join('\n') + '\n';
  }
}
