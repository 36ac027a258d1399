//! The JavaScript Ferret runs inside pages. Each constant is a function
//! expression; callers apply it to one JSON argument
//! ([`call`]) and evaluate the result with `awaitPromise`, so a wait and the
//! read that follows it cost one round trip.

/// `call(SCRIPT, &arg)`: the expression `(SCRIPT)(arg)`.
pub(crate) fn call(script: &str, arg: &serde_json::Value) -> String {
    format!("({script})({arg})")
}

/// Wait for a condition inside the page, without polling: `dom_ready`,
/// `load`, `selector` (MutationObserver), `quiet` (no DOM mutation for
/// `quiet_ms`, after load). Resolves `{met: bool}` (false when `max_ms`
/// passed first).
pub(crate) const WAIT: &str = r#"
function (p) {
  const W = {
    dom: () => document.readyState !== 'loading' ? Promise.resolve(true)
      : new Promise(r => document.addEventListener('DOMContentLoaded', () => r(true), {once: true})),
    load: () => document.readyState === 'complete' ? Promise.resolve(true)
      : new Promise(r => window.addEventListener('load', () => r(true), {once: true})),
    selector: (css) => new Promise(r => {
      const found = () => { try { return !!document.querySelector(css); } catch (e) { return true; } };
      if (found()) return r(true);
      const mo = new MutationObserver(() => { if (found()) { mo.disconnect(); r(true); } });
      mo.observe(document, {childList: true, subtree: true, attributes: true});
    }),
    quiet: (ms) => W.load().then(() => new Promise(r => {
      let t = setTimeout(done, ms);
      const mo = new MutationObserver(() => { clearTimeout(t); t = setTimeout(done, ms); });
      mo.observe(document, {childList: true, subtree: true, attributes: true, characterData: true});
      function done() { mo.disconnect(); r(true); }
    })),
  };
  let w;
  switch (p.kind) {
    case 'dom_ready': w = W.dom(); break;
    case 'load': case 'network_idle': w = W.load(); break;
    case 'selector': w = W.selector(p.css); break;
    case 'settled': w = W.quiet(p.quiet_ms); break;
    default: w = Promise.resolve(true);
  }
  const limit = new Promise(r => setTimeout(() => r(false), p.max_ms));
  return Promise.race([w, limit]).then(met => ({met}));
}
"#;

/// Read a rendered page: URL, title, body text, the rendered HTML (before
/// anything is removed), then the main text: boilerplate removed (nav,
/// header, footer, asides, ads, comments, sidebars), the semantic container
/// with the longest innerText, else the body.
pub(crate) const READ: &str = r#"
function (p) {
  const out = {url: location.href, title: document.title || ''};
  const body = document.body;
  out.body_text = body ? body.innerText : '';
  if (p.include_html) out.html = document.documentElement ? document.documentElement.outerHTML : '';
  if (!body) { out.main_text = ''; out.main_source = 'none'; return out; }
  const junk = 'nav, footer, header, aside, script, style, noscript, iframe, .ad, .ads, .banner, ' +
               '.comment, .recommend, .related, .share, .sidebar';
  if (p.clean) { for (const el of Array.from(document.querySelectorAll(junk))) el.remove(); }
  const cands = ['article', '[role=main]', '.article-content', '.post-content', '.entry-content',
                 '#content', '.content', 'main'];
  let best = null, bestLen = 0, bestSel = '';
  for (const sel of cands) {
    for (const el of document.querySelectorAll(sel)) {
      const t = el.innerText || '';
      const n = t.trim().length;
      if (n > bestLen) { best = t; bestLen = n; bestSel = sel; }
    }
  }
  if (best !== null && bestLen > 0) { out.main_text = best; out.main_source = bestSel; }
  else { out.main_text = body.innerText || ''; out.main_source = 'body'; }
  return out;
}
"#;

/// Extract SERP rows with an engine's selectors: `{items: [{title, href,
/// snippet, text}], fallback: bool, has_captcha, text_head}`.
pub(crate) const SERP: &str = r#"
function (p) {
  const txt = (el) => el ? (el.innerText || el.textContent || '').replace(/\s+/g, ' ').trim() : '';
  const linkOf = (el) => {
    if (!el) return null;
    if (el.tagName === 'A') return el;
    return el.closest('a') || el.querySelector('a[href]');
  };
  const rows = [];
  const seen = new Set();
  const push = (titleEl, item) => {
    const a = linkOf(titleEl);
    if (!a) return;
    const href = a.href || a.getAttribute('href') || '';
    const title = txt(titleEl);
    if (!href || !title || seen.has(href)) return;
    seen.add(href);
    let snippet = '';
    if (item && p.snippet) {
      for (const s of item.querySelectorAll(p.snippet)) {
        const t = txt(s);
        if (t && t !== title) { snippet = t; break; }
      }
    }
    rows.push({title, href, snippet, text: item ? txt(item).slice(0, 800) : ''});
  };
  let items = [];
  try { items = Array.from(document.querySelectorAll(p.item)); } catch (e) { items = []; }
  for (const item of items) {
    let titleEl = null;
    for (const sel of p.link) {
      try { titleEl = item.querySelector(sel); } catch (e) { titleEl = null; }
      if (titleEl) break;
    }
    if (titleEl) push(titleEl, item);
  }
  let fallback = false;
  if (rows.length === 0) {
    fallback = true;
    for (const a of document.querySelectorAll('h2 a, h3 a')) {
      push(a, a.closest('li, article, div'));
    }
  }
  const captcha = !!document.querySelector(
    '#captcha-form, form[action*="sorry"], .g-recaptcha, iframe[src*="recaptcha"], ' +
    '#challenge-form, .cf-challenge, .anomaly-modal, #anomaly-modal, [class*="anomaly-modal"]');
  const bodyText = document.body ? (document.body.innerText || '') : '';
  return {items: rows, fallback, has_captcha: captcha, url: location.href,
          title: document.title || '', text_head: bodyText.slice(0, 4000)};
}
"#;

/// A text snapshot with stable references: every visible interactive
/// element gets a `data-ferret-ref` attribute the first time it is seen (a
/// page-wide counter), so an unchanged page keeps its numbers.
pub(crate) const SNAPSHOT: &str = r#"
function (p) {
  const INTERACTIVE = 'a[href], button, input:not([type=hidden]), select, textarea, summary, ' +
    '[role=button], [role=link], [role=checkbox], [role=tab], [role=menuitem], [contenteditable=""], ' +
    '[contenteditable=true], [onclick]';
  if (window.__ferretRefSeq === undefined) {
    let max = 0;
    for (const el of document.querySelectorAll('[data-ferret-ref]')) {
      max = Math.max(max, parseInt(el.getAttribute('data-ferret-ref'), 10) || 0);
    }
    window.__ferretRefSeq = max;
  }
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return false;
    const s = getComputedStyle(el);
    return s.visibility !== 'hidden' && s.display !== 'none';
  };
  const clean = (s) => (s || '').replace(/\s+/g, ' ').trim();
  const roleOf = (el) => {
    const r = el.getAttribute('role');
    if (r) return r;
    const tag = el.tagName.toLowerCase();
    if (tag === 'a') return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'select') return 'select';
    if (tag === 'textarea') return 'textbox';
    if (tag === 'input') {
      const t = (el.getAttribute('type') || 'text').toLowerCase();
      if (t === 'checkbox' || t === 'radio') return t;
      if (t === 'submit' || t === 'button' || t === 'reset') return 'button';
      return 'textbox';
    }
    return el.isContentEditable ? 'textbox' : 'button';
  };
  const nameOf = (el) => {
    let n = clean(el.getAttribute('aria-label'));
    if (!n && el.labels && el.labels.length) n = clean(el.labels[0].innerText);
    if (!n) n = clean(el.innerText);
    if (!n) n = clean(el.getAttribute('placeholder') || el.getAttribute('title') || el.getAttribute('alt'));
    if (!n && el.value !== undefined && el.tagName !== 'SELECT') n = clean(String(el.value));
    if (!n) n = clean(el.getAttribute('name') || el.id);
    return n.slice(0, 120);
  };
  const refs = [];
  const lines = [];
  const isInteractive = (el) => el.matches && el.matches(INTERACTIVE);
  const walk = (node, depth) => {
    if (node.nodeType === Node.TEXT_NODE) {
      const t = clean(node.textContent);
      if (t) lines.push(t);
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const el = node;
    const tag = el.tagName;
    if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'NOSCRIPT' || tag === 'TEMPLATE') return;
    if (!visible(el) && tag !== 'BODY') return;
    if (isInteractive(el)) {
      let id = el.getAttribute('data-ferret-ref');
      if (!id) { id = String(++window.__ferretRefSeq); el.setAttribute('data-ferret-ref', id); }
      const role = roleOf(el);
      const name = nameOf(el);
      const href = tag === 'A' ? el.href : null;
      refs.push({ref: parseInt(id, 10), role, name, href});
      let line = `[ref=${id}] ${role} "${name}"`;
      if (role === 'textbox' && el.value) line += ` value="${clean(String(el.value)).slice(0, 80)}"`;
      if (role === 'checkbox' || role === 'radio') line += el.checked ? ' checked' : '';
      if (href) line += ` -> ${href}`;
      lines.push(line);
      return;
    }
    const block = /^(P|DIV|LI|H[1-6]|TR|SECTION|ARTICLE|HEADER|FOOTER|NAV|MAIN|FORM|UL|OL|TABLE|BR)$/.test(tag);
    if (block) lines.push('\n');
    if (/^H[1-6]$/.test(tag)) { lines.push('#'.repeat(+tag[1]) + ' '); }
    for (const c of el.childNodes) walk(c, depth + 1);
    if (block) lines.push('\n');
  };
  if (document.body) walk(document.body, 0);
  const text = lines.join(' ').replace(/[ \t]*\n[ \t\n]*/g, '\n').replace(/ {2,}/g, ' ').trim();
  return {url: location.href, title: document.title || '', text: text.slice(0, p.max_chars), refs};
}
"#;

/// Find an element (`{ref}`, `{css}` or `{text}`), scroll it into view and
/// return the centre of its box: `{found, x, y}`.
pub(crate) const LOCATE: &str = r#"
function (p) {
  let el = null;
  if (p.by === 'ref') el = document.querySelector(`[data-ferret-ref="${p.value}"]`);
  else if (p.by === 'css') { try { el = document.querySelector(p.value); } catch (e) { el = null; } }
  else if (p.by === 'text') {
    const want = String(p.value).toLowerCase();
    const all = document.querySelectorAll('a, button, input, select, textarea, summary, label, [role=button], [role=link], [onclick]');
    for (const c of all) {
      const s = ((c.innerText || '') + ' ' + (c.getAttribute('aria-label') || '') + ' ' +
                 (c.getAttribute('placeholder') || '') + ' ' + (c.value || '')).toLowerCase();
      const r = c.getBoundingClientRect();
      if (s.includes(want) && (r.width > 0 || r.height > 0)) { el = c; break; }
    }
  }
  if (!el) return {found: false};
  el.scrollIntoView({block: 'center', inline: 'center'});
  const r = el.getBoundingClientRect();
  if (p.focus && el.focus) el.focus();
  return {found: true, x: r.left + r.width / 2, y: r.top + r.height / 2,
          visible: r.width > 0 && r.height > 0};
}
"#;

/// Set an input's value the way a user would (native setter, then input and
/// change events, so frameworks see it).
pub(crate) const FILL: &str = r#"
function (p) {
  let el = null;
  if (p.by === 'ref') el = document.querySelector(`[data-ferret-ref="${p.value}"]`);
  else if (p.by === 'css') { try { el = document.querySelector(p.value); } catch (e) { el = null; } }
  else if (p.by === 'text') {
    const want = String(p.value).toLowerCase();
    for (const c of document.querySelectorAll('input, textarea, [contenteditable]')) {
      const lab = c.labels && c.labels.length ? c.labels[0].innerText : '';
      const s = (lab + ' ' + (c.getAttribute('placeholder') || '') + ' ' + (c.getAttribute('aria-label') || '') +
                 ' ' + (c.getAttribute('name') || '')).toLowerCase();
      if (s.includes(want)) { el = c; break; }
    }
  }
  if (!el) return {found: false};
  el.scrollIntoView({block: 'center'});
  el.focus();
  if (el.isContentEditable) {
    el.textContent = p.text;
  } else {
    const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype
      : el.tagName === 'SELECT' ? HTMLSelectElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    setter.call(el, p.text);
  }
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {found: true};
}
"#;

/// One round of scroll-until: click a visible "load more" button, or scroll
/// to the bottom; then wait until the item count (or page height) grows or
/// `stall_ms` passes. Resolves `{before, after, clicked}`.
pub(crate) const SCROLL_ROUND: &str = r#"
function (p) {
  const measure = () => p.items ? document.querySelectorAll(p.items).length
    : Math.max(document.body ? document.body.scrollHeight : 0, document.documentElement.scrollHeight);
  const before = measure();
  let clicked = false;
  if (p.load_more) {
    let b = null;
    try { b = document.querySelector(p.load_more); } catch (e) { b = null; }
    if (b) {
      const r = b.getBoundingClientRect();
      const s = getComputedStyle(b);
      if ((r.width > 0 || r.height > 0) && s.display !== 'none' && s.visibility !== 'hidden' && !b.disabled) {
        b.scrollIntoView({block: 'center'});
        b.click();
        clicked = true;
      }
    }
  }
  if (!clicked) {
    window.scrollTo(0, Math.max(document.body ? document.body.scrollHeight : 0, document.documentElement.scrollHeight));
    window.dispatchEvent(new Event('scroll'));
  }
  return new Promise(resolve => {
    const finish = () => { mo.disconnect(); clearTimeout(t); resolve({before, after: measure(), clicked}); };
    const mo = new MutationObserver(() => { if (measure() > before) { setTimeout(finish, 50); } });
    mo.observe(document, {childList: true, subtree: true});
    const t = setTimeout(finish, p.stall_ms);
  });
}
"#;

/// Same-origin `fetch()` from the page with its cookies: `{status, ok,
/// content_type, text}` or `{error}`.
pub(crate) const API_FETCH: &str = r#"
function (p) {
  const init = {method: p.method || 'GET', credentials: 'include', headers: p.headers || {}};
  if (p.body !== null && p.body !== undefined) init.body = p.body;
  return fetch(p.url, init).then(async r => ({
    status: r.status, ok: r.ok, url: r.url,
    content_type: r.headers.get('content-type') || '',
    text: await r.text(),
  })).catch(e => ({error: String(e && e.message || e)}));
}
"#;
