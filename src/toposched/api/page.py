"""The web page at ``/``: the topology tree rendered on the server, workloads filled in by a small
inline script polling ``/v1/cluster/view``. No external assets (the page works offline)."""

from __future__ import annotations

from html import escape
from typing import Any

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d232b}
header{background:#1d232b;color:#fff;padding:10px 18px;display:flex;gap:16px;align-items:center}
header h1{font-size:17px;margin:0}header .meta{opacity:.75;font-size:12px}
header form{margin-left:auto}header input{width:220px;padding:3px 6px}
main{padding:14px 18px}
.domain{border:1px solid #cfd5dd;border-radius:6px;background:#fff;margin:8px 0;padding:6px 10px}
.domain .domain{background:#fbfcfd}
.dlabel{font-weight:600;font-size:13px;margin-bottom:4px}.dlabel small{font-weight:400;color:#6b7480}
.nodes{display:flex;flex-wrap:wrap;gap:6px}
.node{border:1px solid #b9c2cc;border-radius:5px;padding:4px 7px;min-width:150px;background:#fff}
.node .nname{font-family:ui-monospace,monospace;font-size:12px}
.node.notready{border-color:#c0392b;background:#fdecea}.node.cordoned{border-style:dashed}
.node.busy{background:#eaf4ea;border-color:#5a9a5a}
.badge{font-size:11px;padding:0 4px;border-radius:3px;background:#e3e7ec;margin-left:4px}
.badge.bad{background:#c0392b;color:#fff}
.wl{font-size:12px;color:#24612a}.wl div{white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#status{font-size:12px}
"""

_SCRIPT = """
(function(){
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.get('token')) { sessionStorage.setItem('toposched-token', params.get('token'));
    history.replaceState(null, '', location.pathname + location.search); }
  const form = document.getElementById('tokenform'), status = document.getElementById('status');
  form.addEventListener('submit', e => { e.preventDefault();
    sessionStorage.setItem('toposched-token', form.elements.token.value.trim()); poll(); });
  async function poll(){
    const token = sessionStorage.getItem('toposched-token');
    if (!token) { status.textContent = 'enter a token to see workloads'; return; }
    const topo = document.body.dataset.topology;
    const url = '/v1/cluster/view' + (topo ? '?topology=' + encodeURIComponent(topo) : '');
    try {
      const r = await fetch(url, {headers: {Authorization: 'Bearer ' + token}});
      if (!r.ok) { status.textContent = 'error ' + r.status; return; }
      const view = await r.json();
      for (const el of document.querySelectorAll('.node')) {
        const n = view.nodes[el.dataset.node]; if (!n) continue;
        const box = el.querySelector('.wl'); box.replaceChildren();
        for (const w of n.workloads) { const d = document.createElement('div');
          d.textContent = (w.id ? '#' + w.id + ' ' : '') + w.name + ' \\u00d7' + w.pods; box.appendChild(d); }
        el.classList.toggle('busy', n.workloads.length > 0);
        el.classList.toggle('notready', !n.ready); el.classList.toggle('cordoned', n.unschedulable);
      }
      status.textContent = 'updated ' + new Date().toLocaleTimeString();
    } catch (err) { status.textContent = 'server unreachable'; }
  }
  poll(); setInterval(poll, 2000);
})();
"""


def render_page(view: dict[str, Any]) -> str:
    """The whole HTML document for the cluster view (``view`` as ``build_view`` returns it)."""
    topology = view.get("topology") or ""
    levels = " → ".join(view.get("levels") or []) or "no topology"
    nodes: dict[str, Any] = view.get("nodes") or {}
    body = "".join(_domain(d, nodes) for d in view.get("domains") or [])
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width,initial-scale=1'>"
        f"<title>toposched — {escape(topology or 'cluster')}</title><style>{_STYLE}</style></head>"
        f"<body data-topology='{escape(topology)}'><header><h1>toposched</h1>"
        f"<span class='meta'>topology <b>{escape(topology or '-')}</b> · {escape(levels)} · "
        f"{len(nodes)} nodes</span><span id='status'></span>"
        "<form id='tokenform'><input name='token' type='password' placeholder='bearer token' "
        "autocomplete='off'></form></header>"
        f"<main>{body}</main><script>{_SCRIPT}</script></body></html>"
    )


def _domain(domain: dict[str, Any], nodes: dict[str, Any]) -> str:
    label = escape(str(domain.get("value", "")))
    level = escape(str(domain.get("level", "")))
    inner = "".join(_domain(child, nodes) for child in domain.get("children") or [])
    names = domain.get("nodes") or []
    if names:
        inner += "<div class='nodes'>" + "".join(_node(nodes.get(n, {"name": n})) for n in names) + "</div>"
    return f"<div class='domain'><div class='dlabel'>{label} <small>{level}</small></div>{inner}</div>"


def _node(node: dict[str, Any]) -> str:
    classes = ["node"]
    badges = []
    if node.get("ready") is False:
        classes.append("notready")
        badges.append("<span class='badge bad'>NotReady</span>")
    if node.get("unschedulable"):
        classes.append("cordoned")
        badges.append("<span class='badge'>cordoned</span>")
    if node.get("taints"):
        badges.append(f"<span class='badge' title='{escape(', '.join(node['taints']))}'>tainted</span>")
    gpus = (node.get("allocatable") or {}).get("nvidia.com/gpu")
    if gpus:
        used = (node.get("reserved") or {}).get("nvidia.com/gpu", "0")
        badges.append(f"<span class='badge'>GPU {escape(str(used))}/{escape(str(gpus))}</span>")
    name = escape(str(node.get("name", "")))
    return (
        f"<div class='{' '.join(classes)}' data-node='{name}'><span class='nname'>{name}</span>"
        f"{''.join(badges)}<div class='wl'></div></div>"
    )
