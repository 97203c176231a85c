/** Reading parley's Prometheus exposition in tests (test/ops/health-metrics, metrics-port). */

/** One sample value of the exposition (first line matching name + label fragment), or undefined. */
export function sample(text: string, name: string, labels = ''): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!(rest.startsWith('{') || rest.startsWith(' '))) continue;
    if (labels !== '' && !rest.includes(labels)) continue;
    return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/** `GET <url>/metrics`, with a Bearer token when given: status, Content-Type and body. */
export async function scrape(url: string, token?: string): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${url}/metrics`, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}
