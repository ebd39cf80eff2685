/**
 * The status page of serve's admin port, rendered on the server from the
 * same view /status serves: no build step, no framework. The page's script
 * (page-script.ts) fetches the rendered fragment again every second and
 * swaps it in, so there is one renderer and everything shown went through
 * `escapeHtml`: resource names, file names, NACK texts and node ids are
 * user input.
 */
import type { ClientView, ProxyView, ResourceView, SidecarView, StatusView, TypeView } from './view.js';
import type { SnapshotChange } from './book.js';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Template tag: every interpolated value is escaped unless it is markup made by this module. */
class Markup {
  constructor(readonly html: string) {}
}
type Part = string | number | undefined | Markup | Markup[];

function h(strings: TemplateStringsArray, ...values: Part[]): Markup {
  let out = strings[0]!;
  values.forEach((v, i) => {
    if (v instanceof Markup) out += v.html;
    else if (Array.isArray(v)) out += v.map((m) => m.html).join('');
    else if (v !== undefined) out += escapeHtml(String(v));
    out += strings[i + 1]!;
  });
  return new Markup(out);
}

/** The page's header facts: what /status says besides the view. */
export interface PageMeta {
  ready: boolean;
  version?: string;
  generation: number;
  snapshotAt?: string;
  lastCompile?: { ok: boolean; at: string; durationMs: number };
}

/** Versions are 16 hex digits: the first 8 tell them apart on a page. */
const version = (v: string | undefined) =>
  v ? h`<code title="${v}">${v.slice(0, 8)}</code>` : h`<span class="dim">none</span>`;

const time = (iso: string | undefined) =>
  iso
    ? h`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time>`
    : h`<span class="dim">never</span>`;

function typeCell(t: TypeView): Markup {
  const state = t.upToDate
    ? h`<span class="ok">up to date</span>`
    : t.nacked
      ? h`<span class="bad">NACK</span>`
      : h`<span class="warn">behind${t.behindSince ? h` since ${time(t.behindSince)}` : ''}</span>`;
  const nack = t.nacked
    ? h`<div class="nack${t.upToDate ? ' past' : ''}">NACK of ${version(t.nacked.version)} at ${time(t.nacked.at)}: <pre>${t.nacked.message}</pre></div>`
    : '';
  return h`<tr><td>${t.type}</td><td>${version(t.acked)}</td><td>${version(t.current)}</td><td>${state}${nack}</td></tr>`;
}

/** `role`: the proxy the node is, for Envoys (sidecars name none). */
function clientBlock(c: ClientView, role: boolean, extra: Markup | string = ''): Markup {
  return h`<div class="client" data-node="${c.nodeId}">
<div class="client-head"><b>${c.nodeId || '(no node id)'}</b> ${extra} ${role ? h`<span class="dim">role</span> ${c.proxy} ` : ''}<span class="dim">address</span> ${c.address} <span class="dim">connected since</span> ${time(c.connectedAt)} <span class="dim">${c.protocol} · ${c.userAgent || c.cluster}</span></div>
<table><thead><tr><th>type</th><th>ACKed</th><th>current</th><th>state</th></tr></thead><tbody>${c.types.map(typeCell)}</tbody></table>
</div>`;
}

function proxySection(p: ProxyView): Markup {
  return h`<div class="proxy"><h3>${p.name} <span class="dim">snapshot</span> ${version(p.version)}</h3>${
    p.envoys.length === 0 ? h`<p class="bad">no Envoy connected</p>` : p.envoys.map((e) => clientBlock(e, true))
  }</div>`;
}

function sidecarBlock(s: SidecarView): Markup {
  return clientBlock(s, false, s.ready ? h`<span class="ok">ready</span>` : h`<span class="bad">not ready</span>`);
}

function changeItem(c: SnapshotChange): Markup {
  const names = (label: string, list: string[]) => (list.length ? h`<div>${label}: ${list.join(', ')}</div>` : '');
  const xds = Object.entries(c.xds)
    .map(([type, counts]) => `${type} ${counts}`)
    .join(', ');
  return h`<li><b>generation ${c.generation}</b> ${version(c.version)} at ${time(c.at)}
${c.files.length ? h`<div>files: ${c.files.join(', ')}</div>` : ''}${names('added', c.resources.added)}${names('edited', c.resources.changed)}${names('removed', c.resources.removed)}
${xds ? h`<div class="dim">xDS: ${xds}</div>` : ''}</li>`;
}

function resourceRow(r: ResourceView): Markup {
  const where = r.file ? `${r.file}${r.line ? `:${r.line}` : ''}` : '';
  return h`<tr class="${r.state}"><td>${r.resource}</td><td class="dim">${where}</td><td>${r.state}</td><td>${
    r.messages.length ? h`<pre>${r.messages.join('\n')}</pre>` : ''
  }</td></tr>`;
}

/** The part of the page that changes: what the script swaps in. */
export function renderStatus(view: StatusView, meta: PageMeta): string {
  const counts = { accepted: 0, warning: 0, rejected: 0 };
  for (const r of view.resources) counts[r.state]++;
  const compile = meta.lastCompile
    ? h`last compile ${meta.lastCompile.ok ? h`<span class="ok">succeeded</span>` : h`<span class="bad">failed</span>`} at ${time(meta.lastCompile.at)} in ${Math.round(meta.lastCompile.durationMs)} ms`
    : h`no compile yet`;
  return h`<section id="summary"><p>${meta.ready ? h`<span class="ok">ready</span>` : h`<span class="bad">not ready</span>`}
· snapshot <span id="version">${version(meta.version)}</span> generation ${meta.generation} since ${time(meta.snapshotAt)} · ${compile}
· resources: ${counts.accepted} accepted, ${counts.warning} with warnings, ${counts.rejected} rejected</p></section>
<section id="proxies"><h2>Proxies and their Envoys</h2>${view.proxies.map(proxySection)}</section>
<section id="sidecars"><h2>Sidecars</h2>${view.sidecars.length ? view.sidecars.map(sidecarBlock) : h`<p class="dim">no sidecar connected</p>`}</section>
<section id="diagnostics"><h2>Last compile's diagnostics</h2>${
    view.diagnostics.length
      ? h`<pre>${view.diagnostics.map((d) => d.text).join('\n')}</pre>`
      : h`<p class="dim">none</p>`
  }</section>
<section id="changes"><h2>Snapshot changes</h2>${view.changes.length ? h`<ol>${view.changes.map(changeItem)}</ol>` : h`<p class="dim">no snapshot yet</p>`}</section>
<section id="resources"><h2>Resources</h2><table><thead><tr><th>resource</th><th>file</th><th>state</th><th>messages</th></tr></thead><tbody>${view.resources.map(resourceRow)}</tbody></table></section>`
    .html;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}h1{font-size:1.4em;margin:0 0 .3em}
h2{font-size:1.15em;border-bottom:1px solid #ddd;margin-top:1.4em}h3{font-size:1em;margin:.8em 0 .3em}
table{border-collapse:collapse;margin:.3em 0}td,th{border:1px solid #ddd;padding:.15em .5em;text-align:left;vertical-align:top}
th{background:#f4f4f4}pre{margin:0;white-space:pre-wrap;font-size:12px}code{font-size:12px}
.ok{color:#17702a;font-weight:600}.bad{color:#b00020;font-weight:600}.warn{color:#9a6200;font-weight:600}.dim{color:#777}
.client{margin:.4em 0 .8em 1em}.nack pre{color:#b00020}.nack.past pre{color:#777}
tr.rejected td:nth-child(3){color:#b00020;font-weight:600}tr.warning td:nth-child(3){color:#9a6200}
#live{float:right;font-size:12px}`;

/** The whole page: header, the status fragment, and the script that keeps it fresh. */
export function renderPage(view: StatusView, meta: PageMeta): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sluice status</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>${STYLE}</style></head>
<body><h1>Sluice status <span id="live" class="dim">refreshing every second</span></h1>
<main id="status">${renderStatus(view, meta)}</main>
<script src="ui/page.js"></script></body></html>`;
}
