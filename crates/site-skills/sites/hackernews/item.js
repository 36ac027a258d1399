// Hacker News item pages (news.ycombinator.com/item?id=N): the story (or the
// comment the page is about) and its whole comment tree, flattened in page
// order with each comment's depth and parent.
//
// Written against the logged-out markup: table.fatitem > tr.athing (the item),
// table.comment-tree > tr.athing.comtr (one per comment) with td.ind[indent]
// (the depth), a.hnuser, span.age[title="<ISO> <unix>"], div.commtext.
(function () {
  'use strict';

  // Text of a node with <p> breaks kept as blank lines (HN does not close its
  // <p> tags, so each paragraph is nested in the previous one).
  function blockText(node) {
    let out = '';
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) {
        out += child.data;
      } else if (child.nodeType === Node.ELEMENT_NODE) {
        const tag = child.tagName;
        if (tag === 'P') out += '\n\n' + blockText(child);
        else if (tag === 'PRE') out += '\n\n' + child.textContent.replace(/\n+$/, '') + '\n\n';
        else if (child.classList.contains('reply')) continue;
        else out += blockText(child);
      }
    }
    return out;
  }

  function clean(text) {
    return text
      .replace(/\u00a0/g, ' ')
      .replace(/[ \t]+\n/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
  }

  // span.age title is "2024-02-03T16:43:55 1706978635" (UTC).
  function age(row) {
    const span = row.querySelector('span.age');
    if (!span) return { time: null, age: null };
    const title = span.getAttribute('title') || '';
    const iso = title.split(' ')[0];
    return {
      time: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/.test(iso) ? iso + 'Z' : null,
      age: span.textContent.trim() || null,
    };
  }

  function number(text) {
    const m = /(\d[\d,]*)/.exec(text || '');
    return m ? parseInt(m[1].replace(/,/g, ''), 10) : null;
  }

  function readStory(fat) {
    const row = fat.querySelector('tr.athing');
    const link = fat.querySelector('span.titleline > a');
    const subtext = fat.querySelector('td.subtext');
    const author = subtext && subtext.querySelector('a.hnuser');
    const score = subtext && subtext.querySelector('span.score');
    let commentsLabel = null;
    if (subtext) {
      for (const a of subtext.querySelectorAll('a')) {
        if (/comments?$/.test(a.textContent.replace(/\u00a0/g, ' ').trim())) {
          commentsLabel = a.textContent;
        }
      }
    }
    const top = fat.querySelector('div.toptext');
    const site = fat.querySelector('span.sitestr');
    const when = subtext ? age(subtext) : { time: null, age: null };
    return {
      id: row ? row.id : null,
      title: link ? link.textContent.trim() : null,
      url: link ? link.href : null,
      site: site ? site.textContent.trim() : null,
      score: score ? number(score.textContent) : null,
      author: author ? author.textContent.trim() : null,
      time: when.time,
      age: when.age,
      text: top ? clean(blockText(top)) || null : null,
      reported_comments: commentsLabel === null ? null : number(commentsLabel),
    };
  }

  function readComment(row) {
    const ind = row.querySelector('td.ind');
    const depth = ind ? parseInt(ind.getAttribute('indent') || '0', 10) || 0 : 0;
    const author = row.querySelector('a.hnuser');
    const commtext = row.querySelector('div.commtext');
    const box = row.querySelector('div.comment');
    let text = '';
    let status = null;
    if (commtext) {
      text = clean(blockText(commtext));
    } else if (box) {
      // Flagged, dead or deleted comments have no div.commtext; the box
      // holds only the marker ("[flagged]", "[deleted]", "[dead]").
      const marker = clean(blockText(box));
      const m = /^\[(\w+)\]$/.exec(marker);
      status = m ? m[1] : null;
      text = marker;
    }
    const when = age(row);
    return {
      comment_id: row.id,
      depth: depth,
      author: author ? author.textContent.trim() : null,
      time: when.time,
      age: when.age,
      text: text,
      status: status,
    };
  }

  function item(args) {
    const max = args && Number.isInteger(args.max_comments) ? args.max_comments : null;
    const fat = document.querySelector('table.fatitem');
    if (!fat) {
      throw new Error(
        'not a Hacker News item page: no table.fatitem here (' + location.href +
        '); open https://news.ycombinator.com/item?id=<id>');
    }
    const isStory = !!fat.querySelector('tr.athing.submission');
    const rows = document.querySelectorAll('table.comment-tree tr.athing.comtr');
    const comments = [];
    const stack = []; // stack[d] = id of the last comment seen at depth d
    for (const row of rows) {
      const c = readComment(row);
      stack.length = c.depth;
      c.parent_id = c.depth > 0 ? (stack[c.depth - 1] || null) : null;
      stack[c.depth] = c.comment_id;
      c.replies = 0;
      comments.push(c);
    }
    const byId = new Map(comments.map((c) => [c.comment_id, c]));
    for (const c of comments) if (c.parent_id && byId.has(c.parent_id)) byId.get(c.parent_id).replies += 1;
    const more = document.querySelector('a.morelink');
    const record = {
      kind: isStory ? 'story' : 'comment',
      item: isStory ? readStory(fat) : readComment(fat.querySelector('tr.athing')),
      comments_on_page: comments.length,
      comments: max === null ? comments : comments.slice(0, Math.max(0, max)),
      more_url: more ? more.href : null,
    };
    return record;
  }

  window.FerretHackerNews = { item: item };
})();
