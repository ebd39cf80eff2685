/** The text form of an explanation: one line per step, its details indented, the answer last. */
import type { Answer, Explanation, Outcome } from './model.js';

export function describeOutcome(o: Outcome): string {
  const headers = Object.entries(o.headers ?? {})
    .map(([k, v]) => `, ${k}: ${v}`)
    .join('');
  // Headers on an upstream answer are the ones Envoy adds on the way back (rate limit counters, compression).
  if (o.status === 'upstream') return `upstream (cluster ${o.by} answers)${headers}`;
  const body = o.body ? ` ${JSON.stringify(o.body)}` : ' (empty body)';
  return `${o.status}${body}${headers} from ${o.by}`;
}

function answerLines(a: Answer): string[] {
  const lines: string[] = [];
  for (const text of a.assumptions) lines.push(`assuming ${text}`);
  if (a.otherwise.length > 0)
    lines.push(
      `otherwise: ${a.otherwise.map((o) => (o.body ? `${o.status} ${JSON.stringify(o.body)}` : String(o.status))).join(', ')}`,
    );
  lines.push(`answer: ${describeOutcome(a)}`);
  return lines;
}

export function renderText(e: Explanation): string {
  const width = Math.max(...e.steps.map((s) => s.stage.length), 6);
  const lines = [`${e.request.method} ${e.request.url}`];
  for (const s of e.steps) {
    lines.push(`  ${s.stage.padEnd(width)}  ${s.summary}`);
    for (const d of s.details) lines.push(`  ${' '.repeat(width)}    ${d}`);
  }
  lines.push(...answerLines(e.answer));
  return `${lines.join('\n')}\n`;
}
