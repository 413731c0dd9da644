/** Reading Prometheus text in tests: one sample's value, and every metric name a scrape exposes. */

/** The value of one sample (name and exact label set), 0 when absent; `partial`: the labels given must match, others may be there. */
export function sample(text: string, name: string, labels: Record<string, string> = {}, partial = false): number {
  return samples(text, name).find((s) => matches(s.labels, labels, partial))?.value ?? 0;
}

/** Every sample of one name, with its labels. */
export function samples(text: string, name: string): Array<{ labels: Record<string, string>; value: number }> {
  const out: Array<{ labels: Record<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

function matches(got: Record<string, string>, wanted: Record<string, string>, partial: boolean): boolean {
  const entries = Object.entries(wanted);
  return entries.every(([k, v]) => got[k] === v) && (partial || Object.keys(got).length === entries.length);
}

/** The series names a scrape exposes: each `# TYPE`'s name, and for a histogram its _bucket, _sum and _count. */
export function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(m[1]);
    if (m[2] === 'histogram' || m[2] === 'summary') for (const suffix of ['_bucket', '_sum', '_count']) names.add(m[1] + suffix);
  }
  return names;
}
