/* autocue view: renders session events (schema v1) lazily; follows a live SSE stream. No network except DOC.live. */
(function () {
  'use strict';
  const DOC = JSON.parse(document.getElementById('autocue-data').textContent);
  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s == null ? '' : s).replace(/[&<>"]/g, (c) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;'}[c]));
  const CHUNK = 150, MAXDOM = 1500;
  // hostile text: a run of thousands of characters without a break takes a browser seconds to lay out, so every
  // text shown gets a break opportunity (<wbr>) every RUN characters of a long run, and shows its first SHOW
  // characters until its row's "show all" is pressed (search and the data block always have the whole text)
  const SHOW = 10000, RUN = 80;
  const rows = [], byCall = new Map(), els = new Map(), events = [];
  let view = null, lo = 0, hi = 0, cur = -1, query = '', matches = [], matchAt = -1, errCache = null, lastBranch = 0;
  const list = $('rows');
  const KIND = {'session.start': 'start', 'session.end': 'end', 'user': 'user', 'user.edit': 'user edit',
    'user.command': 'user cmd', 'thinking': 'thinking', 'assistant': 'assistant', 'tool.start': 'tool',
    'file.change': 'file', 'status': 'status', 'compaction': 'compaction', 'summary': 'branch summary',
    'iteration': 'iteration', 'bus': 'bus event', 'terminal': 'terminal', 'loop.end': 'loop end', 'screen': 'screen',
    'cast': 'recording', 'failure': 'failure'};

  function fmtT(t) {
    t = Math.max(0, Math.round(t || 0));
    if (t < 60000) return (t / 1000).toFixed(2) + 's';
    const m = Math.floor(t / 60000), s = Math.floor((t % 60000) / 1000);
    return m + ':' + String(s).padStart(2, '0');
  }
  const json = (v) => typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  function txt(v, full) {
    const s = v == null ? '' : String(v), cut = !full && s.length > SHOW, t = cut ? s.slice(0, SHOW) : s;
    const re = /\S{160,}/g; let h = '', at = 0, m;
    while ((m = re.exec(t)) !== null) {
      h += esc(t.slice(at, m.index));
      for (let i = 0; i < m[0].length; i += RUN) h += esc(m[0].slice(i, i + RUN)) + '<wbr>';
      at = m.index + m[0].length;
    }
    h += esc(t.slice(at));
    return cut ? h + more(s.length) : h;
  }
  const more = (n) => '<button type="button" class="showall">… show all ' + n.toLocaleString('en') + ' characters</button>';
  function short(v, n) { const s = typeof v === 'string' ? v : JSON.stringify(v); return s && s.length > n ? s.slice(0, n) + '…' : (s || ''); }

  /* ------------------------------------------------------------ model */
  function addEvent(ev) {
    events.push(ev);
    if (ev.toolCallId && ev.type !== 'tool.start' && byCall.has(ev.toolCallId)) {
      const r = byCall.get(ev.toolCallId);
      r.kids.push(ev); r.text = null;
      if (ev.error) { r.err = true; errCache = null; }
      return [r, false];
    }
    const r = {ev: ev, kids: [], open: false, err: !!ev.error, text: null, i: rows.length};
    if (ev.type === 'tool.start') byCall.set(ev.toolCallId, r);
    if (ev.type === 'screen' && ev.passed === false) r.open = true;
    rows.push(r); errCache = null;
    outlineAdd(r);
    return [r, true];
  }
  function rowText(r) {
    if (r.text === null) {
      const parts = [];
      for (const e of [r.ev].concat(r.kids)) {
        for (const k of ['text', 'toolName', 'content', 'message', 'result', 'path', 'label', 'summary', 'topic',
          'payload', 'cmd', 'patch', 'reason', 'errorMessage', 'actual', 'title', 'kind', 'diff']) {
          if (e[k] != null) parts.push(typeof e[k] === 'string' ? e[k] : JSON.stringify(e[k]));
        }
        if (e.args != null) parts.push(JSON.stringify(e.args));
      }
      r.text = parts.join('\n').toLowerCase();
    }
    return r.text;
  }
  const vlen = () => view ? view.length : rows.length;
  const rowAt = (p) => rows[view ? view[p] : p];

  /* ------------------------------------------------------------ terminal emulation (casts, loop output) */
  function Term(cols, lines) {
    this.cols = cols || 100; this.rows = lines || 30; this.clear();
  }
  Term.prototype.clear = function () { this.g = [[]]; this.x = 0; this.y = 0; };
  Term.prototype.line = function () { while (this.g.length <= this.y) this.g.push([]); return this.g[this.y]; };
  Term.prototype.write = function (s) {
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c === '\x1b') {
        const n = s[i + 1];
        if (n === '[') {
          let j = i + 2; while (j < s.length && !/[@-~]/.test(s[j])) j++;
          this.csi(s.slice(i + 2, j), s[j]); i = j;
        } else if (n === ']') {
          let j = i + 2; while (j < s.length && s[j] !== '\x07' && !(s[j] === '\x1b' && s[j + 1] === '\\')) j++;
          i = s[j] === '\x07' ? j : j + 1;
        } else if (n === 'c') { this.clear(); i++; } else { i++; }
      } else if (c === '\n') { this.y++; this.x = 0; this.line(); }  // newline mode: piped output has no \r
      else if (c === '\r') { this.x = 0; }
      else if (c === '\b') { this.x = Math.max(0, this.x - 1); }
      else if (c === '\t') { this.x = Math.min(this.cols - 1, (this.x + 8) & ~7); }
      else if (c >= ' ' || c > '\x7f') {
        if (this.x >= this.cols) { this.x = 0; this.y++; }
        const l = this.line(); while (l.length < this.x) l.push(' ');
        l[this.x++] = c;
      }
    }
  };
  Term.prototype.csi = function (p, f) {
    const a = p.replace(/[?>=]/g, '').split(';').map((v) => parseInt(v, 10) || 0);
    const top = Math.max(0, this.g.length - this.rows);
    if (f === 'H' || f === 'f') { this.y = top + Math.max(0, (a[0] || 1) - 1); this.x = Math.max(0, (a[1] || 1) - 1); this.line(); }
    else if (f === 'J') { if (a[0] === 2 || a[0] === 3) { this.clear(); } else { this.g.length = this.y + 1; this.line().length = this.x; } }
    else if (f === 'K') { const l = this.line(); if (a[0] === 2) l.length = 0; else if (a[0] === 0) l.length = Math.min(l.length, this.x); }
    else if (f === 'A') this.y = Math.max(top, this.y - (a[0] || 1));
    else if (f === 'B') { this.y += a[0] || 1; this.line(); }
    else if (f === 'C') this.x = Math.min(this.cols - 1, this.x + (a[0] || 1));
    else if (f === 'D') this.x = Math.max(0, this.x - (a[0] || 1));
    else if (f === 'G') this.x = Math.max(0, (a[0] || 1) - 1);
  };
  Term.prototype.text = function () { return this.g.map((l) => l.join('').replace(/\s+$/, '')).join('\n').replace(/\n+$/, ''); };
  function plain(s) { const t = new Term(400, 100000); t.write(s); return t.text(); }

  function player(frames, cols, lines, total) {
    // frames: [[seconds, text], ...]; returns an element with a screen and controls
    const box = document.createElement('div'); box.className = 'player';
    box.innerHTML = '<button type="button" data-act="play">▶ play</button> <input type="range" min="0" max="1000" value="1000" aria-label="position"> <span class="meta"></span><pre class="term"></pre>';
    const pre = box.querySelector('pre'), range = box.querySelector('input'), meta = box.querySelector('.meta'), btn = box.querySelector('button');
    let timer = null;
    function show(at) {
      const t = new Term(cols, lines); let n = 0;
      for (const f of frames) { if (f[0] > at) break; t.write(f[1]); n++; }
      pre.textContent = t.text(); meta.textContent = at.toFixed(2) + ' / ' + total.toFixed(2) + ' s · ' + n + ' frames';
      box.dataset.frames = String(n);
    }
    range.addEventListener('input', () => { stop(); show(total * range.value / 1000); });
    function stop() { if (timer) clearInterval(timer); timer = null; btn.textContent = '▶ play'; }
    btn.addEventListener('click', (e) => {
      e.stopPropagation();
      if (timer) { stop(); return; }
      const speed = Math.max(1, total / 10), t0 = performance.now();  // at most 10 s to watch
      btn.textContent = '❚❚ pause';
      timer = setInterval(() => {
        const at = Math.min(total, (performance.now() - t0) / 1000 * speed);
        range.value = String(Math.round(at / (total || 1) * 1000)); show(at);
        if (at >= total) stop();
      }, 50);
    });
    box.addEventListener('click', (e) => e.stopPropagation());
    show(total);
    return box;
  }
  function castPlayer(text) {
    const lines = text.split('\n').filter((l) => l.trim());
    let head = {}; const frames = [];
    try { head = JSON.parse(lines[0]); } catch (e) { /* not a cast header */ }
    for (const l of lines.slice(1)) {
      try { const f = JSON.parse(l); if (Array.isArray(f) && f[1] === 'o') frames.push([+f[0], String(f[2])]); } catch (e) { /* skip */ }
    }
    const total = frames.length ? frames[frames.length - 1][0] : 0;
    return player(frames, head.width || 100, head.height || 30, total);
  }

  /* ------------------------------------------------------------ rendering */
  function diffHtml(d, full) {
    const cut = !full && d.length > SHOW * 20;
    return (cut ? d.slice(0, SHOW * 20) : d).split('\n').map((l) => {
      const c = l[0] === '+' && !l.startsWith('+++') ? 'add' : l[0] === '-' && !l.startsWith('---') ? 'del' : l.startsWith('@@') ? 'hunk' : '';
      return c ? '<span class="' + c + '">' + txt(l, full) + '</span>' : txt(l, full) + '\n';
    }).join('') + (cut ? more(d.length) : '');
  }
  function screensHtml(e, full) {
    // golden and actual side by side (differing lines marked), then the unified diff
    const a = (e.actual || '').split('\n'), g = e.golden == null ? null : e.golden.split('\n');
    const mark = (ls, other) => ls.map((l, i) => other && other[i] !== l ? '<span class="bad">' + txt(l || ' ', full) + '</span>' : txt(l, full)).join('\n');
    const path = (p) => p ? '<div class="path">' + esc(p) + '</div>' : '';
    const none = e.status === 'missing' ? 'no golden: it was never committed (in CI mode that fails)' : 'no golden yet: this screen becomes it';
    return '<div class="screens"><div class="golden"><h4>golden</h4>' +
      (g ? '<pre class="term">' + mark(g, a) + '</pre>' : '<p class="meta">' + none + '</p>') + path(e.goldenPath) + '</div>' +
      '<div class="actual"><h4>actual</h4><pre class="term">' + mark(a, g) + '</pre>' + path(e.actualPath) + '</div></div>' +
      (e.diff ? '<div class="meta">diff</div><pre class="diff">' + diffHtml(e.diff, full) + '</pre>' : '');
  }
  function screenPill(e) {
    const text = e.status === 'missing' ? 'no golden' : e.status === 'new' ? 'new golden written' : e.status === 'updated' ? 'golden updated' :
      e.golden == null ? 'new' : e.passed ? 'matches golden' : 'differs from golden';
    return '<span class="pill' + (e.passed ? '' : ' bad') + '">' + text + '</span>';
  }
  function toolBody(r) {
    const e = r.ev, T = (v) => txt(v, r.full); let h = '<div class="meta">arguments</div><pre>' + T(json(e.args)) + '</pre>';
    let out = null;
    for (const k of r.kids) {
      if (k.type === 'tool.output') {
        if (!out || out.stream !== k.stream) { if (out) h += '</pre>'; out = k; h += '<pre class="' + esc(k.stream) + '">'; }
        h += T(k.content);
        continue;
      }
      if (out) { h += '</pre>'; out = null; }
      if (k.type === 'tool.progress') h += '<div class="meta">⋯ ' + T(k.message) + ' <span class="chip">' + fmtT(k.t) + '</span></div>';
      else if (k.type === 'tool.completion') h += '<div class="meta">exit code ' + esc(k.exitCode) + '</div>';
      else if (k.type === 'tool.end') {
        if (k.result != null && k.result !== '') h += '<div class="meta">result</div><pre>' + T(json(k.result)) + '</pre>';
        if (k.diff) h += '<div class="meta">diff</div><pre class="diff">' + diffHtml(k.diff, r.full) + '</pre>';
      }
    }
    if (out) h += '</pre>';
    return h;
  }
  function toolEnd(r) { for (let j = r.kids.length - 1; j >= 0; j--) if (r.kids[j].type === 'tool.end') return r.kids[j]; return null; }
  function collapsible(r) {
    const e = r.ev, t = e.type;
    return t === 'tool.start' || t === 'screen' || t === 'cast' || t === 'compaction' || t === 'summary' || (t === 'failure' && !!e.diff) ||
      ((t === 'info' || t === 'terminal' || t === 'bus') && ((e.text || e.content || e.payload || '').length > 240));
  }
  function content(r) {
    const e = r.ev, t = e.type, T = (v) => txt(v, r.full); let head = '', body = '';
    if (t === 'tool.start') {
      const end = toolEnd(r), st = end ? end.status : 'running';
      head = '<b>' + T(short(e.toolName, 200)) + '</b> <span class="args">' + T(short(e.args, 140)) + '</span><span class="pill' + (r.err ? ' bad' : '') + '">' + esc(st) + '</span>';
      body = toolBody(r);
    } else if (t === 'assistant') {
      head = T(e.text);
      const m = [];
      if (e.model) m.push(T(e.model));
      if (e.usage) { const u = e.usage; m.push('tokens ' + (u.input || 0) + ' in / ' + (u.output || 0) + ' out' + (u.cost && u.cost.total ? ' · $' + (+u.cost.total).toFixed(4) : '')); }
      if (e.stopReason && e.stopReason !== 'stop' && e.stopReason !== 'toolUse') m.push('stop: ' + T(e.stopReason));
      if (e.errorMessage) m.push('<span style="color:var(--err)">' + T(e.errorMessage) + '</span>');
      if (m.length) head += (e.text ? '<div class="meta">' : '<span class="meta">') + m.join(' · ') + (e.text ? '</div>' : '</span>');
    } else if (t === 'file.change') head = '<b>' + T(e.path) + '</b> <span style="color:var(--ok)">+' + esc(e.linesAdded) + '</span> <span style="color:var(--err)">−' + esc(e.linesRemoved) + '</span>' + (e.diff ? '' : '');
    else if (t === 'marker') head = (e.label && String(e.label).startsWith(e.kind) ? '' : esc(e.kind) + (e.label ? ': ' : '')) + (e.label ? '<b>' + T(e.label) + '</b>' : '') + (e.spec != null && e.kind !== 'label' ? ' <span class="args">' + T(short(e.spec, 160)) + '</span>' : '');
    else if (t === 'status') head = 'status <b>' + esc(e.status) + '</b>';
    else if (t === 'session.start') head = '<b>' + T(e.title || e.scenario || '') + '</b>' + (e.prompt ? '' : '') + (e.source ? ' <span class="meta">' + T(e.source) + '</span>' : '');
    else if (t === 'session.end') head = 'end of stream · ' + esc(e.status);
    else if (t === 'compaction') { head = 'context compacted' + (e.tokensBefore ? ' (' + esc(e.tokensBefore) + ' tokens before)' : ''); body = '<pre>' + T(e.summary) + '</pre>'; }
    else if (t === 'summary') { head = 'branch summary'; body = '<pre>' + T(e.summary) + '</pre>'; }
    else if (t === 'iteration') head = '<b>iteration ' + esc(e.n) + '</b>' + (e.hat ? ' · hat <b>' + esc(e.hat) + '</b>' : '') + (e.elapsedMs != null ? ' <span class="meta">' + esc(e.elapsedMs) + ' ms</span>' : '');
    else if (t === 'bus') { head = '<b>' + T(e.topic) + '</b>' + (e.source ? ' from ' + T(e.source) : '') + (e.target ? ' → ' + T(e.target) : '') + ' <span class="args">' + T(short(e.payload, 200)) + '</span>'; body = '<pre>' + T(e.payload) + '</pre>'; }
    else if (t === 'terminal') { const s = plain(e.content); head = '<span class="args">' + T(short(s, 240)) + '</span>'; body = '<pre class="' + esc(e.stream || '') + '">' + T(s) + '</pre>'; }
    else if (t === 'loop.end') head = 'loop ended: <b>' + T(e.reason) + '</b>' + (e.iterations != null ? ' after ' + esc(e.iterations) + ' iterations' : '');
    else if (t === 'screen') { head = 'screenshot <b>' + T(e.label) + '</b>' + screenPill(e); body = screensHtml(e, r.full); }
    else if (t === 'cast') { head = 'terminal recording <b>' + T(e.name) + '</b> <span class="meta">(asciicast)</span>'; body = '<div class="castslot"></div>'; }
    else if (t === 'failure') { head = '<b>' + T(e.kind) + '</b>: ' + T(e.message) + (e.position ? ' <span class="meta">' + T(e.position) + '</span>' : ''); if (e.diff) body = '<pre class="diff">' + diffHtml(e.diff, r.full) + '</pre>'; }
    else if (t === 'user.edit') head = 'applies <b>' + T(e.patch) + '</b>';
    else if (t === 'user.command') head = '<span class="args">$ ' + T(e.cmd) + '</span>';
    else if (t === 'info' || t === 'user' || t === 'thinking') {
      const s = e.text || '';
      if (collapsible(r)) { head = T(short(s, 240)); body = '<pre>' + T(s) + '</pre>'; } else head = T(s);
      if (t === 'user' && e.target) head += '<span class="chip">' + T(short(e.target, 200)) + '</span>';
    } else head = '<span class="args">' + T(short(e, 300)) + '</span>';
    if (e.label && e.entryId && t !== 'marker') head += '<span class="chip label">label: ' + T(short(e.label, 200)) + '</span>';
    if (e.branch) head += '<span class="chip">branch ' + esc(e.branch) + '</span>';
    if (e.scenario && DOC.kind === 'run' && t === 'session.start') head += '<span class="chip">scenario</span>';
    return [head, body];
  }
  function rowEl(p) {
    const r = rowAt(p), e = r.ev, el = document.createElement('div');
    const kind = e.type === 'tool.start' ? 'tool' : e.type.split('.')[0];
    el.className = 'row ' + kind + (r.err ? ' error' : '') + (r.open ? ' open' : '') + (e.branch ? ' offbranch' : '') +
      (query && matches.length && rowText(r).includes(query) ? ' hit' : '') + (p === cur ? ' focus' : '');
    el.tabIndex = -1; el.dataset.p = String(p); el.dataset.id = String(e.id); el.dataset.type = e.type;
    const [head, body] = content(r), can = collapsible(r);
    const label = e.type === 'marker' ? e.kind : e.type === 'info' ? (e.kind || 'info') : (KIND[e.type] || e.type);
    el.innerHTML = '<div class="t">' + fmtT(e.t) + '</div><div class="k">' + esc(label) + '</div><div class="c"><div class="' +
      (can ? 'head' : '') + '">' + (can ? '<span class="tw">' + (r.open ? '▾' : '▸') + '</span>' : '') + head + '</div>' +
      (can ? '<div class="body">' + body + '</div>' : '') + '</div>';
    if (can) el.querySelector('.head').addEventListener('click', () => toggle(p));
    for (const b of el.querySelectorAll('.showall')) b.addEventListener('click', (ev) => { ev.stopPropagation(); r.full = true; rerender(r); });
    if (r.open && e.type === 'cast') el.querySelector('.castslot').appendChild(castPlayer(e.cast));
    if (query) highlight(el);
    els.set(r.i, el);
    return el;
  }
  function highlight(el) {
    const walker = document.createTreeWalker(el.querySelector('.c'), NodeFilter.SHOW_TEXT), hits = [];
    while (walker.nextNode()) if (walker.currentNode.data.toLowerCase().includes(query)) hits.push(walker.currentNode);
    for (const n of hits.slice(0, 50)) {
      const s = n.data, low = s.toLowerCase(), frag = document.createDocumentFragment(); let at = 0, k;
      while ((k = low.indexOf(query, at)) >= 0) { frag.append(s.slice(at, k)); const m = document.createElement('mark'); m.textContent = s.slice(k, k + query.length); frag.append(m); at = k + query.length; }
      frag.append(s.slice(at)); n.replaceWith(frag);
    }
  }
  function rerender(r) {
    const old = els.get(r.i);
    if (old && old.isConnected) { const p = +old.dataset.p; const el = rowEl(p); old.replaceWith(el); if (p === cur) el.focus({preventScroll: true}); }
  }
  function renderWindow(a, b) { list.textContent = ''; els.clear(); lo = hi = a; appendTo(b); }
  function appendTo(b) {
    const frag = document.createDocumentFragment();
    for (let p = hi; p < b; p++) frag.appendChild(rowEl(p));
    list.appendChild(frag); hi = b;
    if (hi - lo > MAXDOM) {  // drop rows far above, keeping what is on screen in place
      const drop = hi - lo - MAXDOM, before = list.getBoundingClientRect().top;
      for (let k = 0; k < drop; k++) { const f = list.firstChild; els.delete(rowAt(+f.dataset.p).i); f.remove(); }
      lo += drop; window.scrollBy(0, list.getBoundingClientRect().top - before);
    }
    updateMore();
  }
  function prependTo(a) {
    const frag = document.createDocumentFragment();
    for (let p = a; p < lo; p++) frag.appendChild(rowEl(p));
    const h = document.documentElement.scrollHeight;
    list.insertBefore(frag, list.firstChild); lo = a;
    window.scrollBy(0, document.documentElement.scrollHeight - h);
    while (hi - lo > MAXDOM) { const l = list.lastChild; els.delete(rowAt(+l.dataset.p).i); l.remove(); hi--; }
    updateMore();
  }
  function updateMore() {
    $('above').textContent = lo > 0 ? lo + ' earlier rows (scroll up)' : '';
    $('below').textContent = hi < vlen() ? (vlen() - hi) + ' more rows (scroll down)' : '';
  }
  function ensure(p) {
    if (p < lo || p >= hi) renderWindow(Math.max(0, p - 40), Math.min(vlen(), p + 110));
    return els.get(rowAt(p).i);
  }
  function jumpTo(p, open) {
    if (p < 0 || p >= vlen()) return;
    const prev = cur; cur = p;
    if (prev >= 0 && prev < vlen()) { const o = els.get(rowAt(prev).i); if (o) o.classList.remove('focus'); }
    const r = rowAt(p);
    if (open && collapsible(r) && !r.open) { r.open = true; rerender(r); }
    const el = ensure(p); if (!el) return;
    el.classList.add('focus'); el.focus({preventScroll: true}); el.scrollIntoView({block: 'center'});
  }
  function toggle(p) { const r = rowAt(p); if (!collapsible(r)) return; r.open = !r.open; rerender(r); }

  /* ------------------------------------------------------------ outline, search, errors */
  const outline = $('outline'); let outlined = 0;
  function outlineAdd(r) {
    const e = r.ev; let text = null, cls = '';
    if (e.type === 'session.start') text = '▸ ' + (e.title || e.scenario || 'start');
    else if (e.type === 'iteration') text = 'iteration ' + e.n + (e.hat ? ' · ' + e.hat : '');
    else if (e.type === 'compaction') text = '⇣ compaction';
    else if (e.type === 'marker' && e.kind === 'label') text = 'label: ' + e.label;
    else if (e.type === 'failure' || (e.type === 'marker' && e.kind === 'result') || e.type === 'loop.end') { text = e.message || e.label || e.reason; cls = r.err ? 'error' : ''; }
    else if (e.label && e.entryId) text = 'label: ' + e.label;
    else if (e.type === 'screen') { text = 'screen ' + e.label; cls = e.passed ? '' : 'error'; }
    else if (e.branch !== undefined && e.branch !== lastBranch) { text = '⑂ branch ' + e.branch; cls = 'b'; }
    if (e.branch !== undefined) lastBranch = e.branch;
    if (text === null || outlined >= 400) return;
    outlined++; text = short(text, 200);
    const a = document.createElement('a'); a.href = '#'; a.textContent = text; a.className = cls; a.title = text;
    a.addEventListener('click', (ev) => { ev.preventDefault(); clearFilter(); jumpTo(r.i); });
    outline.appendChild(a);
  }
  function errPositions() {
    if (errCache) return errCache;
    errCache = []; for (let p = 0; p < vlen(); p++) if (rowAt(p).err) errCache.push(p);
    $('errbtn').textContent = errCache.length + ' error' + (errCache.length === 1 ? '' : 's') + ' · next (e)';
    return errCache;
  }
  function nextErr(dir) {
    const es = errPositions(); if (!es.length) return;
    let k = dir > 0 ? es.findIndex((p) => p > cur) : es.length - 1 - es.slice().reverse().findIndex((p) => p < cur);
    if (k < 0 || k >= es.length || (dir < 0 && es[k] >= cur)) k = dir > 0 ? 0 : es.length - 1;
    jumpTo(es[k], true);
  }
  function search(q) {
    query = q.trim().toLowerCase(); matches = []; matchAt = -1;
    if (view && !query) view = null;
    if (query) { for (let i = 0; i < rows.length; i++) if (rowText(rows[i]).includes(query)) matches.push(i); }
    if ($('only').checked && query) view = matches.slice(); else view = null;
    errCache = null; errPositions();
    $('count').textContent = query ? (matches.length ? matches.length + ' match' + (matches.length === 1 ? '' : 'es') : 'no match') : '';
    cur = -1; renderWindow(0, Math.min(vlen(), CHUNK));
    if (matches.length) nextMatch(1);
  }
  function clearFilter() { if (view) { view = null; $('only').checked = false; errCache = null; renderWindow(0, Math.min(vlen(), CHUNK)); } }
  function nextMatch(dir) {
    if (!matches.length) return;
    matchAt = (matchAt + dir + matches.length) % matches.length;
    const i = matches[matchAt], p = view ? matchAt : i;
    $('count').textContent = (matchAt + 1) + ' / ' + matches.length + ' matches';
    const r = rows[i], head = content(r)[0].toLowerCase();
    jumpTo(p, !head.includes(query));
  }

  /* ------------------------------------------------------------ terminal panel (loop recordings) */
  function terminalPanel() {
    const frames = [], t0 = events.length ? events[0].t : 0;
    for (const e of events) if (e.type === 'terminal') frames.push([(e.t - t0) / 1000, e.content]);
    if (!frames.length) return;
    const box = $('terminal'); box.style.display = 'block';
    box.appendChild(player(frames, 120, 40, frames[frames.length - 1][0]));
  }

  /* ------------------------------------------------------------ live */
  function live(url) {
    const badge = $('live'); badge.style.display = 'inline-block';
    let last = 0, opens = 0;
    const es = new EventSource(url);
    const set = (s, down) => { badge.textContent = 'live · ' + s + ' · ' + events.length + ' events'; badge.className = down ? 'down' : ''; document.body.dataset.live = s; };
    es.onopen = () => { opens++; document.body.dataset.connections = String(opens); set('connected'); };
    es.onerror = () => { if (es.readyState !== 2) set('reconnecting', true); };
    es.onmessage = (m) => {
      const ev = JSON.parse(m.data);
      if (ev.id <= last) return;  // a resumed stream never repeats an event
      last = ev.id; document.body.dataset.lastEventId = String(last);
      const atTail = hi >= vlen(), atBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 40;
      const [r, isNew] = addEvent(ev);
      if (isNew && !view) { if (atTail) appendTo(vlen()); else updateMore(); } else if (!isNew) rerender(r);
      if (isNew && atBottom && atTail) window.scrollTo(0, document.documentElement.scrollHeight);
      if (r.err) errPositions();
      if (ev.type === 'session.end') { es.close(); set('ended'); } else set('connected');
    };
  }

  /* ------------------------------------------------------------ start */
  document.title = short(DOC.title, 300) + ' · autocue view';
  $('title').innerHTML = txt(short(DOC.title, 300)); $('kind').textContent = DOC.kind;
  const sum = $('summary');
  for (const [k, v] of Object.entries(DOC.summary || {})) {
    if (v === null || v === '' || v === 0 && /tokens|cache|labels/.test(k)) continue;
    const s = document.createElement('span'); s.innerHTML = txt(short(k, 300)) + ' <b>' + txt(short(v, 500)) + '</b>'; sum.appendChild(s);
  }
  for (const w of DOC.warnings || []) { const d = document.createElement('div'); d.className = 'warn'; d.innerHTML = '⚠ ' + txt(w); $('warnings').appendChild(d); }
  for (const e of DOC.events) addEvent(e);
  renderWindow(0, Math.min(vlen(), CHUNK));
  errPositions();
  if (DOC.kind === 'loop') terminalPanel();
  if (DOC.live) live(DOC.live);

  const io = new IntersectionObserver((es) => {
    for (const en of es) {
      if (!en.isIntersecting) continue;
      if (en.target.id === 'below' && hi < vlen()) appendTo(Math.min(vlen(), hi + CHUNK));
      if (en.target.id === 'above' && lo > 0) prependTo(Math.max(0, lo - CHUNK));
    }
  }, {rootMargin: '600px 0px'});
  io.observe($('below')); io.observe($('above'));

  let timer = null;
  $('q').addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => search($('q').value), 160); });
  $('only').addEventListener('change', () => search($('q').value));
  $('errbtn').addEventListener('click', () => nextErr(1));
  $('expand').addEventListener('click', () => { const open = !rows.some((r) => r.open); for (const r of rows) if (collapsible(r)) r.open = open; renderWindow(lo, hi); });
  $('helpbtn').addEventListener('click', () => $('help').classList.toggle('show'));
  list.addEventListener('click', (ev) => { const el = ev.target.closest('.row'); if (el) { const p = +el.dataset.p; if (p !== cur) { const o = els.get(cur >= 0 && cur < vlen() ? rowAt(cur).i : -1); if (o) o.classList.remove('focus'); cur = p; el.classList.add('focus'); } } });
  document.addEventListener('keydown', (ev) => {
    const k = ev.key, inInput = ev.target === $('q');
    if (inInput) {
      if (k === 'Enter') { ev.preventDefault(); clearTimeout(timer); if ($('q').value.trim().toLowerCase() !== query) search($('q').value); else nextMatch(ev.shiftKey ? -1 : 1); }
      else if (k === 'Escape') $('q').blur();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const n = vlen();
    if (k === 'j' || k === 'ArrowDown') { ev.preventDefault(); jumpTo(Math.min(n - 1, cur + 1)); }
    else if (k === 'k' || k === 'ArrowUp') { ev.preventDefault(); jumpTo(Math.max(0, cur - 1)); }
    else if (k === 'Enter' || k === ' ' || k === 'o') { if (cur >= 0) { ev.preventDefault(); toggle(cur); } }
    else if (k === '/') { ev.preventDefault(); $('q').focus(); $('q').select(); }
    else if (k === 'n') nextMatch(1);
    else if (k === 'N') nextMatch(-1);
    else if (k === 'e') nextErr(1);
    else if (k === 'E') nextErr(-1);
    else if (k === 'g' || k === 'Home') { ev.preventDefault(); jumpTo(0); }
    else if (k === 'G' || k === 'End') { ev.preventDefault(); jumpTo(n - 1); }
    else if (k === 'x') $('expand').click();
    else if (k === '?') $('help').classList.toggle('show');
    else if (k === 'Escape') $('help').classList.remove('show');
  });
  window.addEventListener('beforeprint', () => { if (vlen() <= 3000) renderWindow(0, vlen()); });
  window.autocueView = {doc: DOC, rows: rows, events: events, jumpTo: jumpTo, search: search, window: () => [lo, hi]};
  document.body.dataset.readyMs = String(Math.round(performance.now()));
  document.body.dataset.ready = '1';
})();
