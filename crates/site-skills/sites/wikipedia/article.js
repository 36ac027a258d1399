// Wikipedia article pages (Vector 2022 skin, any language edition): an IIFE
// bundle exposing window.FerretWikipedia.{article, section}.
//
// Written against the article markup: h1#firstHeading, #mw-content-text >
// .mw-parser-output with headings wrapped in div.mw-heading.mw-heading<N>,
// table.infobox (th.infobox-label / td.infobox-data, th.infobox-above),
// ol.references (data-mw-group="note" for explanatory notes), #catlinks.
(function () {
  'use strict';

  const SKIP = 'style, script, link, sup.reference, .noprint, .mw-editsection, .mw-valign-text-top, .mw-empty-elt';

  // Readable text of a fragment: citation markers, edit links and hidden
  // helpers removed, list items joined with ", ", <br> as "; ".
  function readable(el) {
    if (!el) return '';
    const copy = el.cloneNode(true);
    for (const junk of copy.querySelectorAll(SKIP)) junk.remove();
    for (const br of copy.querySelectorAll('br')) br.replaceWith('; ');
    for (const list of copy.querySelectorAll('ul, ol')) {
      const items = Array.from(list.children)
        .filter((li) => li.tagName === 'LI')
        .map((li) => li.textContent.replace(/\s+/g, ' ').trim())
        .filter(Boolean);
      list.replaceWith(' ' + items.join(', ') + ' ');
    }
    return copy.textContent.replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').replace(/\s+([,;)])/g, '$1').replace(/\(\s+/g, '(').trim();
  }

  function content() {
    const root = document.querySelector('#mw-content-text .mw-parser-output');
    if (!root) {
      throw new Error(
        'not a Wikipedia article page: no #mw-content-text .mw-parser-output at ' + location.href);
    }
    return root;
  }

  function headingOf(el) {
    if (!el.classList || !el.classList.contains('mw-heading')) return null;
    const h = el.querySelector('h1, h2, h3, h4, h5, h6');
    if (!h) return null;
    return { level: parseInt(h.tagName.slice(1), 10), id: h.id || null, title: readable(h) };
  }

  function sections(root) {
    const out = [];
    for (const el of root.querySelectorAll(':scope > div.mw-heading')) {
      const h = headingOf(el);
      if (h) out.push(h);
    }
    return out;
  }

  function lead(root) {
    const paragraphs = [];
    for (const el of root.children) {
      if (el.classList.contains('mw-heading')) break;
      if (el.tagName === 'P' && !el.classList.contains('mw-empty-elt')) {
        const t = readable(el);
        if (t) paragraphs.push(t);
      }
    }
    return paragraphs.join('\n\n');
  }

  function infobox(root) {
    const table = root.querySelector('table.infobox');
    if (!table) return { title: null, rows: [] };
    const above = table.querySelector('th.infobox-above');
    const rows = [];
    for (const tr of table.querySelectorAll('tr')) {
      const label = tr.querySelector(':scope > th.infobox-label');
      const data = tr.querySelector(':scope > td.infobox-data');
      if (!label || !data) continue;
      const key = readable(label);
      const value = readable(data);
      if (key) rows.push({ key: key, value: value });
    }
    return { title: above ? readable(above) : null, rows: rows };
  }

  function references(root) {
    let refs = 0;
    let notes = 0;
    for (const list of root.querySelectorAll('ol.references')) {
      const n = list.querySelectorAll(':scope > li').length;
      if (list.getAttribute('data-mw-group')) notes += n;
      else refs += n;
    }
    return { references: refs, notes: notes };
  }

  function article() {
    const root = content();
    const heading = document.querySelector('#firstHeading');
    const canonical = document.querySelector('link[rel="canonical"]');
    const config = typeof window.RLCONF === 'object' && window.RLCONF ? window.RLCONF : {};
    const counts = references(root);
    const box = infobox(root);
    return {
      title: heading ? readable(heading) : document.title,
      url: canonical ? canonical.href : location.href,
      language: document.documentElement.lang || null,
      revision_id: Number.isInteger(config.wgRevisionId) ? config.wgRevisionId : null,
      lead: lead(root),
      sections: sections(root),
      infobox_title: box.title,
      infobox: box.rows,
      references_count: counts.references,
      notes_count: counts.notes,
      categories: Array.from(document.querySelectorAll('#mw-normal-catlinks li a')).map((a) => a.textContent.trim()),
    };
  }

  function section(args) {
    const wanted = String((args && args.title) || '').trim();
    if (!wanted) throw new Error('section needs a non-empty title');
    const norm = (s) => s.toLowerCase().replace(/_/g, ' ').replace(/\s+/g, ' ').trim();
    const root = content();
    const children = Array.from(root.children);
    let start = -1;
    let found = null;
    for (let i = 0; i < children.length; i++) {
      const h = headingOf(children[i]);
      if (h && (norm(h.title) === norm(wanted) || norm(h.id || '') === norm(wanted))) {
        start = i;
        found = h;
        break;
      }
    }
    if (!found) {
      const titles = sections(root).map((s) => s.title).slice(0, 40).join(', ');
      throw new Error('no section titled "' + wanted + '" in this article; sections: ' + titles);
    }
    const blocks = [];
    const subsections = [];
    for (let i = start + 1; i < children.length; i++) {
      const el = children[i];
      const h = headingOf(el);
      if (h) {
        if (h.level <= found.level) break;
        subsections.push(h);
        blocks.push(h.title);
        continue;
      }
      if (/^(P|UL|OL|DL|BLOCKQUOTE|PRE)$/.test(el.tagName) || el.classList.contains('mw-highlight')) {
        const t = el.tagName === 'PRE' || el.classList.contains('mw-highlight') ? el.textContent.trim() : readable(el);
        if (t) blocks.push(t);
      }
    }
    return { title: found.title, id: found.id, level: found.level, subsections: subsections, text: blocks.join('\n\n') };
  }

  window.FerretWikipedia = { article: article, section: section };
})();
