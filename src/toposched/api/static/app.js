// The toposched floor view: one tab per topology, blocks as rows, racks as columns, nodes as
// cells coloured by usage; a workload list, a node panel and pending workloads' explanations.
// Above COMPACT_ABOVE nodes the floor is compact (every node a small cell, sized so the whole
// cluster fits the window); a button switches. A search box narrows the floor and the list to
// matching nodes and workloads. Plain browser JavaScript reading the JSON API
// (GET /v1/cluster/view is described in toposched.api.clusterview); no build step, no external
// assets.
(function () {
  'use strict';
  const NOT_READY = 1, CORDONED = 2, TAINTED = 4;
  const POLL_MS = 2000;
  const COMPACT_ABOVE = 2000;  // nodes; the detailed floor of more is several screens tall
  const SEARCH_MS = 150;
  const $ = (id) => document.getElementById(id);
  const floor = $('floor'), tabs = $('tabs'), list = $('workloads'), detail = $('detail');
  const status = $('status'), summary = $('summary'), form = $('tokenform');
  const search = $('search'), found = $('found'), modeButton = $('mode');
  const state = {
    view: null, etag: null, layoutKey: '', cells: [],
    topology: new URLSearchParams(location.search).get('topology'),
    workload: null, node: null,  // the selection: a workload key and a node name
    mode: sessionStorage.getItem('toposched-mode'),  // 'compact' | 'detailed' | null: by node count
    query: '',
  };

  // -- token: from #token=... (at load, or pasted into an open page), then sessionStorage; --------
  // without one the page is read-only
  function tokenFromHash() {
    const hash = new URLSearchParams(location.hash.slice(1));
    if (!hash.get('token')) return false;
    sessionStorage.setItem('toposched-token', hash.get('token'));
    history.replaceState(null, '', location.pathname + location.search);
    return true;
  }
  tokenFromHash();
  window.addEventListener('hashchange', () => {
    if (tokenFromHash()) { state.etag = null; poll(); }
  });
  const token = () => sessionStorage.getItem('toposched-token');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    sessionStorage.setItem('toposched-token', form.elements.token.value.trim());
    form.elements.token.value = '';
    state.etag = null;
    poll();
  });

  async function api(path, extra) {
    const headers = Object.assign({}, extra || {});
    if (token()) headers.Authorization = 'Bearer ' + token();
    return fetch(path, {headers});
  }

  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => (
    {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));

  // -- polling: If-None-Match keeps an unchanged cluster to an empty 304 ------------------------
  let timer = null;
  async function poll() {
    clearTimeout(timer);
    try {
      const query = state.topology ? '?topology=' + encodeURIComponent(state.topology) : '';
      const r = await api('/v1/cluster/view' + query, state.etag ? {'If-None-Match': state.etag} : {});
      if (r.status === 304) {
        status.textContent = 'unchanged at ' + new Date().toLocaleTimeString();
      } else if (r.ok) {
        state.etag = r.headers.get('ETag');
        const started = performance.now();
        show(await r.json());
        document.body.dataset.renderMs = String(Math.round(performance.now() - started));
        status.textContent = 'updated ' + new Date().toLocaleTimeString() + (token() ? '' : ' · enter a token to see workloads');
      } else {
        status.textContent = r.status === 401 ? 'token refused' : 'error ' + r.status;
      }
    } catch (err) {
      status.textContent = 'server unreachable';
    }
    timer = setTimeout(poll, POLL_MS);
  }

  function show(view) {
    state.view = view;
    state.topology = view.topology;
    drawTabs(view);
    const key = [view.topology, view.levels.join('|'), view.domains.map((d) => d[1]).join('|'),
      view.nodes.map((n) => n[0]).join('|')].join('#');
    const compact = isCompact(view);
    if (key !== state.layoutKey || compact !== floor.classList.contains('compact')) {
      drawFloor(view);
      floor.classList.toggle('compact', compact);
      state.layoutKey = key;
      drawTotals(view);
      fit();
    } else {
      drawTotals(view);
    }
    drawMode(view);
    drawWorkloads(view);
    highlight();
    document.body.dataset.ready = 'true';
    if (state.node) openNode(state.node, false);
  }

  // -- compact or detailed: by node count unless the user chose ---------------------------------
  const isCompact = (view) => (state.mode ? state.mode === 'compact' : view.nodes.length > COMPACT_ABOVE);
  function drawMode(view) {
    const compact = isCompact(view);
    modeButton.textContent = compact ? 'compact view ✓' : 'compact view';
    modeButton.setAttribute('aria-pressed', String(compact));
  }
  modeButton.addEventListener('click', () => {
    if (!state.view) return;
    state.mode = isCompact(state.view) ? 'detailed' : 'compact';
    sessionStorage.setItem('toposched-mode', state.mode);
    show(state.view);
  });

  // The largest cell (whole pixels, 2 to 16) with which the compact floor fits the window. Each
  // try is one layout of the whole floor, so the first guess is the size at which the cells and
  // their gaps would take FILL of the room (about what headers, padding and wrapping leave them),
  // then one step at a time: usually two layouts.
  const FILL = 0.5;
  function fit() {
    floor.style.removeProperty('--cell');
    if (!floor.classList.contains('compact') || !state.view || !state.view.nodes.length) return;
    const top = floor.getBoundingClientRect().top + window.scrollY;
    const room = Math.max(1, window.innerHeight - 8 - top) * floor.clientWidth;
    const fits = (size) => {
      floor.style.setProperty('--cell', size + 'px');
      return top + floor.scrollHeight <= window.innerHeight - 8 && floor.scrollWidth <= floor.clientWidth;
    };
    let size = Math.max(2, Math.min(16, Math.floor(Math.sqrt(FILL * room / state.view.nodes.length)) - 1));
    if (fits(size)) {
      while (size < 16 && fits(size + 1)) size++;
    } else {
      do size--; while (size > 2 && !fits(size));
    }
    floor.style.setProperty('--cell', size + 'px');
  }
  let resizing = null;
  window.addEventListener('resize', () => { clearTimeout(resizing); resizing = setTimeout(fit, 100); });

  function drawTabs(view) {
    const names = view.topologies.length ? view.topologies : ['(no topology)'];
    tabs.innerHTML = names.map((t) => '<button type="button" data-topology="' + esc(t) + '"' +
      (t === view.topology ? ' class="on"' : '') + '>' + esc(t) + '</button>').join('');
  }
  tabs.addEventListener('click', (e) => {
    const name = e.target.dataset && e.target.dataset.topology;
    if (!name || name === state.topology) return;
    state.topology = name; state.etag = null; state.layoutKey = '';
    history.replaceState(null, '', '?topology=' + encodeURIComponent(name));
    poll();
  });

  // -- the floor: top levels as row groups, the level above the racks as rows, racks as columns -
  function drawFloor(view) {
    const depth = view.levels.length, domains = view.domains;
    const children = domains.map(() => []), roots = [], members = domains.map(() => []), loose = [];
    domains.forEach((d, i) => (d[2] < 0 ? roots : children[d[2]]).push(i));
    view.nodes.forEach((n, i) => (n[1] < 0 ? loose : members[n[1]]).push(i));
    const short = (level) => level.split('/').pop();
    const rack = (title, level, domain, nodes) => {
      const width = Math.max(2, Math.min(64, Math.ceil(Math.sqrt(nodes.length))));
      return '<div class="rack"' + (domain >= 0 ? ' data-domain="' + domain + '"' : '') + '>' +
        '<div class="khead" title="' + esc(level) + '">' + esc(title) + '<small data-total="' + domain + '"></small></div>' +
        '<div class="cells" style="grid-template-columns:repeat(' + width + ',var(--cell,11px))">' +
        nodes.map((i) => '<div class="c" data-i="' + i + '" data-node="' + esc(view.nodes[i][0]) + '"></div>').join('') +
        '</div></div>';
    };
    const row = (title, domain, racks) => '<div class="row"' + (domain >= 0 ? ' data-domain="' + domain + '"' : '') + '>' +
      '<div class="rhead">' + esc(title) + '<small data-total="' + domain + '"></small></div>' +
      '<div class="racks">' + racks + '</div></div>';
    const leafLevel = depth ? short(view.levels[depth - 1]) : '';
    const racksOf = (list) => list.map((r) => rack(domains[r][1], leafLevel, r, members[r])).join('');
    const group = (d) => {
      const level = domains[d][0];
      if (level === depth - 2) return row(domains[d][1], d, racksOf(children[d]));
      return '<div class="group" data-domain="' + d + '"><div class="ghead">' + esc(short(view.levels[level])) + ' ' +
        esc(domains[d][1]) + '<small data-total="' + d + '"></small></div>' + children[d].map(group).join('') + '</div>';
    };
    let html;
    if (depth === 0) html = row('all nodes', -1, rack('nodes', '', -1, loose));
    else if (depth === 1) html = row('all', -1, racksOf(roots));
    else html = roots.map(group).join('');
    floor.innerHTML = html || '<p class="muted">no nodes</p>';
    state.cells = new Array(view.nodes.length);
    for (const el of floor.querySelectorAll('.c')) state.cells[+el.dataset.i] = el;
  }

  // Every cell's classes in one pass: its usage, then the search (d: not matching), the selected
  // workload's nodes (h) and the selected node (s).
  function paint(matching) {
    const view = state.view;
    if (!view) return;
    const nodes = view.nodes, chosen = selected();
    const lit = new Set(chosen ? chosen.nodes.map((n) => n[0]) : []);
    for (let i = 0; i < nodes.length; i++) {
      const [name, , cap, booked, foreign, flags] = nodes[i];
      const used = booked + foreign;
      let cls = 'c ' + (flags & (NOT_READY | CORDONED) ? 'x' : cap === 0 ? 'n' : used === 0 ? 'f' : used >= cap ? 'u' : 'p');
      if (foreign > 0) cls += ' o';
      if (flags & TAINTED) cls += ' t';
      if (matching && !matching.has(i)) cls += ' d';
      if (lit.has(i)) cls += ' h';
      if (name === state.node) cls += ' s';
      const el = state.cells[i];
      if (el && el.className !== cls) el.className = cls;
    }
  }

  // Per-domain totals: capacity, booked, foreign and unavailable, summed up the tree.
  function totals(view) {
    const sums = view.domains.map(() => ({nodes: 0, cap: 0, booked: 0, foreign: 0, down: 0}));
    const all = {nodes: 0, cap: 0, booked: 0, foreign: 0, down: 0};
    for (const [, leaf, cap, booked, foreign, flags] of view.nodes) {
      const down = flags & (NOT_READY | CORDONED) ? 1 : 0;
      for (let d = leaf; ; d = view.domains[d][2]) {
        const s = d < 0 ? all : sums[d];
        s.nodes++; s.cap += cap; s.booked += booked; s.foreign += foreign; s.down += down;
        if (d < 0) break;
      }
    }
    return {sums, all};
  }

  function drawTotals(view) {
    const {sums, all} = totals(view);
    const unit = view.resource === 'nvidia.com/gpu' ? 'GPU' : view.resource;
    const text = (s) => ' ' + (s.booked + s.foreign) + '/' + s.cap + ' ' + unit;
    const tip = (s) => s.nodes + ' nodes · ' + unit + ' ' + s.cap + ': ' + s.booked + ' booked by toposched, ' +
      s.foreign + ' used by other pods, ' + Math.max(0, s.cap - s.booked - s.foreign) + ' free' +
      (s.down ? ' · ' + s.down + ' NotReady or cordoned' : '');
    for (const el of floor.querySelectorAll('[data-total]')) {
      const d = +el.dataset.total, s = d < 0 ? all : sums[d];
      el.textContent = text(s);
      el.parentElement.title = tip(s);
      const rack = el.parentElement.parentElement;  // compact hides a rack's head: its box says it
      if (rack.classList.contains('rack')) rack.title = el.parentElement.textContent + ' · ' + tip(s);
    }
    summary.textContent = tip(all);
    $('none').textContent = 'no ' + unit;
  }

  // -- hover: a node's figures, computed when the pointer reaches it ----------------------------
  floor.addEventListener('mouseover', (e) => {
    const el = e.target;
    if (!el.classList.contains('c') || !state.view) return;
    const [name, , cap, booked, foreign, flags] = state.view.nodes[+el.dataset.i];
    const facts = [];
    if (flags & NOT_READY) facts.push('NotReady');
    if (flags & CORDONED) facts.push('cordoned');
    if (flags & TAINTED) facts.push('tainted');
    el.title = name + ': ' + (booked + foreign) + '/' + cap + ' ' + state.view.resource + ' in use (' + booked +
      ' booked by toposched, ' + foreign + ' by other pods)' + (facts.length ? ' · ' + facts.join(', ') : '');
  });
  floor.addEventListener('click', (e) => {
    if (e.target.classList.contains('c')) openNode(e.target.dataset.node, true);
  });

  // -- workloads: select one to highlight its nodes; a pending one shows its explanation --------
  const EXCLUDED = {
    missingLabels: 'lack level labels (outside the topology)', notReady: 'are NotReady', cordoned: 'are cordoned',
    nodeSelector: "do not match the pods' nodeSelector", taint: 'carry a taint the pods do not tolerate:',
    resource: 'have too little free',
  };
  const keyOf = (w, i) => (w.id === null ? 'hidden-' + i : String(w.id));
  function drawWorkloads(view) {
    if (!token()) { list.innerHTML = '<li class="muted">enter a token to see workloads</li>'; return; }
    if (!view.workloads.length) { list.innerHTML = '<li class="muted">no running or pending workloads</li>'; return; }
    list.innerHTML = view.workloads.map((w, i) => {
      const pods = w.nodes.reduce((n, p) => n + p[1], 0);
      return '<li data-key="' + esc(keyOf(w, i)) + '" data-state="' + esc(w.state) + '">' +
        '<span class="st ' + esc(w.state) + '">' + esc(w.state) + '</span><span>' +
        (w.id !== null ? '#' + w.id + ' ' : '') + esc(w.name) +
        (pods ? ' <span class="muted">×' + pods + '</span>' : '') +
        (w.reason ? '<span class="why" title="' + esc(w.reason) + '">' + esc(w.reason) + '</span>' : '') + '</span></li>';
    }).join('');
  }
  list.addEventListener('click', (e) => {
    const li = e.target.closest('li[data-key]');
    if (!li) return;
    state.workload = state.workload === li.dataset.key ? null : li.dataset.key;
    state.node = null;
    highlight();
    const chosen = selected();
    if (chosen) scrollTo(chosen);
    if (chosen && chosen.state === 'pending' && chosen.id !== null) explain(chosen);
    else if (chosen) describeWorkload(chosen);
    else detail.innerHTML = '';
  });

  function selected() {
    if (!state.view || state.workload === null) return null;
    return state.view.workloads.find((w, i) => keyOf(w, i) === state.workload) || null;
  }

  function highlight() {
    for (const li of list.querySelectorAll('li')) li.classList.toggle('sel', li.dataset.key === state.workload);
    filter();
  }

  // The selected workload's first node brought into view, wherever the floor was scrolled.
  function scrollTo(w) {
    const first = w.nodes.length ? state.cells[w.nodes[0][0]] : null;
    if (first) first.scrollIntoView({block: 'center', inline: 'nearest'});
  }

  // -- search: node names and workloads (#id or name) containing the text -----------------------
  // The floor dims every node that is neither named so nor holds a matching workload's pods; the
  // list keeps the matching workloads and those with pods on a matching node.
  function matches() {
    const view = state.view, query = state.query;
    if (!view || !query) return null;
    const named = new Set();
    view.nodes.forEach((n, i) => { if (n[0].toLowerCase().includes(query)) named.add(i); });
    const out = new Set(named);
    for (const w of view.workloads) {
      if (workloadMatches(w, query)) for (const [i] of w.nodes) out.add(i);
    }
    out.named = named;
    return out;
  }
  const workloadMatches = (w, query) => (w.id !== null && ('#' + w.id === query || String(w.id) === query)) ||
    w.name.toLowerCase().includes(query);

  function filter() {
    const view = state.view;
    if (!view) return;
    const matching = matches();
    let shown = 0;
    view.workloads.forEach((w, i) => {
      const li = list.querySelector('li[data-key="' + CSS.escape(keyOf(w, i)) + '"]');
      const keep = !matching || workloadMatches(w, state.query) || w.nodes.some(([n]) => matching.named.has(n));
      if (li) li.hidden = !keep;
      if (keep) shown++;
    });
    found.textContent = matching ? matching.size + ' node(s), ' + shown + ' workload(s) match' : '';
    paint(matching);
    document.body.dataset.query = state.query;  // what the floor shows now (for scripts and tests)
  }
  let typing = null;
  search.addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => { state.query = search.value.trim().toLowerCase(); filter(); }, SEARCH_MS);
  });

  function describeWorkload(w) {
    const pods = w.nodes.reduce((n, p) => n + p[1], 0);
    detail.innerHTML = '<h2>' + (w.id !== null ? '#' + w.id + ' ' : '') + esc(w.name) + '</h2><p>' + esc(w.state) +
      ' · ' + pods + ' pod(s) on ' + w.nodes.length + ' node(s), outlined on the floor</p>';
  }

  // "workloads/7" in a suggestion is the service's workload 7: shown with its name when listed.
  function named(text) {
    return text.replace(/workloads\/(\d+)/g, (whole, id) => {
      const w = state.view.workloads.find((x) => String(x.id) === id);
      return w ? '#' + id + ' ' + esc(w.name) : whole;
    });
  }

  async function explain(w) {
    detail.innerHTML = '<h2>#' + w.id + ' ' + esc(w.name) + '</h2><p class="muted">explaining…</p>';
    const r = await api('/v1/workloads/' + w.id + '/explanation');
    const body = await r.json().catch(() => ({}));
    const now = selected();
    if (!now || now.id !== w.id) return;  // another selection meanwhile
    if (!r.ok) {
      detail.innerHTML = '<h2>#' + w.id + ' ' + esc(w.name) + '</h2><p class="muted">' + esc(body.message || 'error ' + r.status) + '</p>';
      return;
    }
    const li = (items) => '<ul>' + items.map((x) => '<li>' + x + '</li>').join('') + '</ul>';
    let html = '<h2>#' + w.id + ' ' + esc(w.name) + ' is pending</h2><div id="explanation">';
    if (w.reason) html += '<p class="bad">' + esc(w.reason) + '</p>';
    if (body.group) html += '<p>failing group <b>' + esc(body.group) + '</b>' + (body.level ? ' at level <code>' + esc(body.level) + '</code>' : '') + '</p>';
    if (body.candidates.length) {
      // c.text: the domain, pods that fit of those needed, slices per layer and what is short.
      html += '<h3>best candidate domains</h3>' + li(body.candidates.map((c) => esc(c.text)));
    }
    if (body.excludedNodes.length) {
      html += '<h3>nodes left out</h3>' + li(body.excludedNodes.map((x) => x.nodes + ' node(s) ' + esc(EXCLUDED[x.reason] || x.reason) +
        (x.taint ? ' <code>' + esc(x.taint) + '</code>' : '') + (x.resource ? ' <code>' + esc(x.resource) + '</code>' : '')));
    }
    const untried = body.untried || [];
    html += '<h3>what would place it</h3>' + (body.suggestions.length
      ? li(body.suggestions.map((s) => named(esc(s.text))))
      : untried.length ? '' : '<p class="muted">nothing tried places it: it needs more capacity than is free</p>');
    if (untried.length) html += '<p class="muted">stopped at the time bound before trying: ' + esc(untried.join(', ')) + '</p>';
    detail.innerHTML = html + '</div>';
  }

  // -- the node panel ----------------------------------------------------------------------------
  async function openNode(name, fresh) {
    state.node = name;
    const i = state.view ? state.view.nodes.findIndex((n) => n[0] === name) : -1;
    if (i < 0) { state.node = null; highlight(); return; }
    if (fresh) state.workload = null;
    highlight();
    const row = state.view.nodes[i];
    const head = '<h2>node ' + esc(name) + '</h2>';
    if (!token()) {
      detail.innerHTML = head + '<p>' + (row[3] + row[4]) + '/' + row[2] + ' ' + esc(state.view.resource) +
        ' in use</p><p class="muted">enter a token to see its pods</p>';
      return;
    }
    const r = await api('/v1/cluster/view/nodes/' + encodeURIComponent(name));
    if (state.node !== name) return;
    if (!r.ok) { detail.innerHTML = head + '<p class="muted">error ' + r.status + '</p>'; return; }
    const n = await r.json();
    const kv = (o) => Object.entries(o).map(([k, v]) => esc(k) + ' ' + esc(v)).join(', ') || 'none';
    const li = (items, none) => items.length ? '<ul>' + items.map((x) => '<li>' + x + '</li>').join('') + '</ul>' : '<p class="muted">' + none + '</p>';
    detail.innerHTML = head + '<div id="nodepanel">' +
      '<p>' + (n.ready ? 'Ready' : '<span class="bad">NotReady</span>') + (n.unschedulable ? ' · <span class="bad">cordoned</span>' : '') + '</p>' +
      '<p>allocatable: ' + kv(n.allocatable) + '<br>booked by toposched: ' + kv(n.booked) + '</p>' +
      '<h3>taints</h3>' + li(n.taints.map((t) => '<code>' + esc(t) + '</code>'), 'none') +
      '<h3>toposched workloads</h3>' + li(n.workloads.map((w) => (w.id !== null ? '#' + w.id + ' ' : '') + esc(w.name) +
        ' (' + esc(w.state) + '): ' + w.count + ' pod(s)' + (w.pods.length ? ' <span class="muted">' + esc(w.pods.join(', ')) + '</span>' : '')), 'none') +
      '<h3>pods toposched did not place</h3>' + li(n.foreignPods.map((p) => esc(p.namespace + '/' + p.name) +
        ' <span class="muted">' + kv(p.requests) + '</span>'), 'none') +
      '<h3>labels</h3>' + li(Object.entries(n.labels).map(([k, v]) => '<code>' + esc(k) + '=' + esc(v) + '</code>'), 'none') +
      '</div>';
  }

  poll();
})();
