// The queue table of the toposched page: each queue's guarantee, limit, usage, what it borrows,
// its fair share and its gangs, from GET /v1/queues. Kept apart from the floor view (app.js);
// it reads the same bearer token from sessionStorage. Plain browser JavaScript, no build step.
(function () {
  'use strict';
  const POLL_MS = 5000;
  const table = document.getElementById('queues');
  if (!table) return;
  // Styled here, not in app.css (the floor view's): small type, scrolling sideways if need be.
  table.style.fontSize = '12px';
  table.style.borderSpacing = '6px 2px';
  table.parentElement.style.overflowX = 'auto';
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => (
    {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'}[c]));
  const GPU = 'nvidia.com/gpu';
  // Usage is shown for the resources the queue's quotas name (GPUs when they name none); the
  // cell's tooltip has all of it.
  const named = (q) => {
    const keys = Object.keys(Object.assign({}, q.guaranteed, q.limit));
    return keys.length ? keys : [GPU];
  };
  const amounts = (m, keys) => Object.entries(m || {}).filter(([k]) => !keys || keys.includes(k))
    .map(([k, v]) => k.replace(/^.*\//, '') + ' ' + v).join(', ') || '–';
  const COLUMNS = [
    ['queue', (q) => (q.parent ? q.parent + ' / ' : '') + q.name],
    ['guaranteed', (q) => amounts(q.guaranteed)],
    ['limit', (q) => amounts(q.limit)],
    ['usage', (q) => amounts(q.usage, named(q)), (q) => amounts(q.usage)],
    ['borrowed', (q) => amounts(q.borrowed)],
    ['weight', (q) => q.weight],
    ['share', (q) => q.share.toFixed(3)],
    ['pending', (q) => q.pending],
    ['admitted', (q) => q.admitted],
  ];

  function draw(queues) {
    const head = '<tr>' + COLUMNS.map(([title]) => '<th>' + title + '</th>').join('') + '</tr>';
    const rows = queues.map((q) => '<tr' + (Object.keys(q.borrowed).length ? ' class="borrowing"' : '') + '>' +
      COLUMNS.map(([, cell, tip]) => '<td' + (tip ? ' title="' + esc(tip(q)) + '"' : '') + '>' +
        esc(cell(q)) + '</td>').join('') + '</tr>');
    table.innerHTML = head + rows.join('');
  }

  async function poll() {
    const token = sessionStorage.getItem('toposched-token');
    if (token) {
      try {
        const r = await fetch('/v1/queues', {headers: {Authorization: 'Bearer ' + token}});
        if (r.ok) draw(await r.json());
      } catch (err) {
        // the floor view's status line reports an unreachable server
      }
    }
    setTimeout(poll, POLL_MS);
  }
  poll();
})();
