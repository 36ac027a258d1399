// One exported async function: read the GitHub issue (or pull request) thread
// open in this tab.
//
// Issues render with React/Primer markup identified by data-testid
// attributes: issue-title, header-state, issue-body-header-author,
// issue-body-header-link (relative-time), issue-body-viewer > markdown-body,
// comment-viewer-outer-box-<node id> > comment-header#issuecomment-<id>
// (avatar-link, relative-time, comment-author-association) + markdown-body,
// issue-labels, issue-viewer-linked-pr-container,
// sidebar-participants-section. Pull requests still use the classic
// server-rendered timeline (.js-issue-title, .State, .timeline-comment with
// a.author, relative-time and .comment-body); that path is the fallback.
async function readGitHubThread(args) {
  'use strict';
  const GITHUB = 'https://github.com/';
  const maxComments = args && Number.isInteger(args.max_comments) ? args.max_comments : null;

  const text = (el) =>
    el ? el.textContent.replace(/\u00a0/g, ' ').replace(/[ \t]+/g, ' ').trim() : null;

  // Markdown bodies: block elements become line breaks, runs of blank lines
  // collapse, and code keeps its own lines.
  const markdownText = (el) => {
    if (!el) return '';
    const parts = [];
    const code = [];
    const walk = (node) => {
      for (const child of node.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) {
          parts.push(child.data.replace(/\s+/g, ' '));
        } else if (child.nodeType === Node.ELEMENT_NODE) {
          const tag = child.tagName;
          if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'TEMPLATE' || tag === 'BUTTON') continue;
          if (tag === 'PRE') {
            // Code keeps its own lines: park it and put it back at the end.
            code.push(child.textContent.replace(/\n+$/, ''));
            parts.push('\n\u0000' + (code.length - 1) + '\u0000\n');
            continue;
          }
          const block = /^(P|DIV|LI|UL|OL|H[1-6]|BLOCKQUOTE|TABLE|TR|BR|DETAILS|SUMMARY)$/.test(tag);
          if (block) parts.push('\n');
          if (tag === 'LI') parts.push('- ');
          walk(child);
          if (block) parts.push('\n');
        }
      }
    };
    walk(el);
    return parts
      .join('')
      .replace(/\u00a0/g, ' ')
      .split('\n')
      .map((line) => line.trim())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
      .replace(/\u0000(\d+)\u0000/g, (_, i) => code[+i]);
  };

  const absolute = (href) => {
    try {
      return new URL(href, GITHUB);
    } catch (_) {
      return null;
    }
  };

  // What a link in a body points at: issue, pr, commit, discussion, file
  // (a blob/tree permalink), user or repo on GitHub, else url.
  const classify = (url) => {
    if (url.hostname !== 'github.com') return { type: 'url' };
    const p = url.pathname.split('/').filter(Boolean);
    if (p.length >= 4 && p[2] === 'issues' && /^\d+$/.test(p[3])) return { type: 'issue', repo: p[0] + '/' + p[1], number: +p[3] };
    if (p.length >= 4 && p[2] === 'pull' && /^\d+$/.test(p[3])) return { type: 'pr', repo: p[0] + '/' + p[1], number: +p[3] };
    if (p.length >= 4 && p[2] === 'discussions' && /^\d+$/.test(p[3])) return { type: 'discussion', repo: p[0] + '/' + p[1], number: +p[3] };
    if (p.length >= 4 && p[2] === 'commit') return { type: 'commit', repo: p[0] + '/' + p[1], sha: p[3] };
    if (p.length >= 4 && (p[2] === 'blob' || p[2] === 'tree')) return { type: 'file', repo: p[0] + '/' + p[1], path: p.slice(4).join('/'), ref: p[3] };
    if (p.length === 1) return { type: 'user', login: p[0] };
    if (p.length === 2) return { type: 'repo', repo: p[0] + '/' + p[1] };
    return { type: 'url' };
  };

  const references = [];
  const seen = new Set();
  const collectRefs = (root, where) => {
    if (!root) return;
    for (const a of root.querySelectorAll('a[href]')) {
      const href = a.getAttribute('href');
      if (!href || href.startsWith('#')) continue;
      const url = absolute(href);
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) continue;
      url.hash = url.hash.startsWith('#L') ? url.hash : '';
      const key = url.href;
      if (seen.has(key)) continue;
      seen.add(key);
      references.push(Object.assign({ url: key, text: text(a) }, classify(url), { found_in: where }));
    }
  };

  const path = location.pathname.split('/').filter(Boolean);
  const metaRepo = document.querySelector('meta[name="octolytics-dimension-repository_nwo"]');
  const repo = metaRepo ? metaRepo.content : path.length >= 2 ? path[0] + '/' + path[1] : null;
  const kind = path[2] === 'pull' ? 'pr' : path[2] === 'issues' ? 'issue' : null;
  const numberFromPath = path[3] && /^\d+$/.test(path[3]) ? +path[3] : null;

  // Wait briefly for the thread to be in the DOM (it is server-rendered, so
  // normally it already is).
  const ready = () =>
    document.querySelector('[data-testid="issue-title"], .js-issue-title, .gh-header-title');
  for (let i = 0; i < 20 && !ready(); i++) await new Promise((r) => setTimeout(r, 100));

  let record;
  const modernTitle = document.querySelector('[data-testid="issue-title"]');
  if (modernTitle) {
    const numberText = text(document.querySelector('[class*="issueNumberText"]'));
    const bodyAuthor = document.querySelector('[data-testid="issue-body-header-author"]');
    const bodyTime = document.querySelector('[data-testid="issue-body-header-link"] relative-time');
    const bodyViewer = document.querySelector('[data-testid="issue-body-viewer"]');
    const bodyMarkdown = bodyViewer && bodyViewer.querySelector('[data-testid="markdown-body"]');
    collectRefs(bodyMarkdown, 'body');

    const comments = [];
    for (const box of document.querySelectorAll('[data-testid^="comment-viewer-outer-box-"]')) {
      const header = box.querySelector('[data-testid="comment-header"]');
      const author = box.querySelector('[data-testid="avatar-link"]');
      const time = header && header.querySelector('relative-time');
      const association = box.querySelector('[data-testid="comment-author-association"]');
      const markdown = box.querySelector('[data-testid="markdown-body"]');
      const htmlId = header ? header.id : '';
      const commentId = /^issuecomment-(\d+)$/.test(htmlId) ? htmlId.slice('issuecomment-'.length) : null;
      collectRefs(markdown, 'comment:' + (commentId || ''));
      comments.push({
        comment_id: commentId,
        node_id: box.getAttribute('data-testid').slice('comment-viewer-outer-box-'.length),
        author: text(author),
        time: time ? time.getAttribute('datetime') : null,
        author_association: text(association),
        edited: !!(header && /edited by/.test(header.textContent)),
        text: markdownText(markdown),
      });
    }

    const labelBox = document.querySelector('[data-testid="issue-labels"]');
    const labels = labelBox
      ? Array.from(labelBox.querySelectorAll('a[href*="/labels/"], a[href*="label%3A"]')).map(text).filter(Boolean)
      : [];
    const linkedBox = document.querySelector('[data-testid="issue-viewer-linked-pr-container"]');
    const linked = linkedBox ? Array.from(linkedBox.querySelectorAll('a[href]')) : [];
    for (const a of linked) collectRefs(a.parentElement, 'development');
    const participants = Array.from(
      document.querySelectorAll('[data-testid="sidebar-participants-section"] a[href]'),
    )
      .map((a) => (absolute(a.getAttribute('href')) || { pathname: '' }).pathname.replace(/^\/+|\/+$/g, ''))
      .filter((login) => login && !login.includes('/'));

    record = {
      kind: kind || 'issue',
      repo: repo,
      number: numberText && /^#\d+$/.test(numberText) ? +numberText.slice(1) : numberFromPath,
      title: text(modernTitle),
      state: text(document.querySelector('[data-testid="header-state"]')),
      author: text(bodyAuthor),
      created_at: bodyTime ? bodyTime.getAttribute('datetime') : null,
      body: markdownText(bodyMarkdown),
      labels: labels,
      comments_count: comments.length,
      comments: maxComments === null ? comments : comments.slice(0, Math.max(0, maxComments)),
      linked_pull_requests: linked.map((a) => absolute(a.getAttribute('href')).href),
      participants: participants,
      references: references,
    };
  } else if (document.querySelector('.js-issue-title, .gh-header-title')) {
    const comments = [];
    let first = null;
    for (const box of document.querySelectorAll('.timeline-comment')) {
      const body = box.querySelector('.comment-body');
      const time = box.querySelector('relative-time');
      const holder = box.closest('[id^="issuecomment-"], [id^="pullrequestreview-"]');
      const entry = {
        comment_id: holder ? holder.id.replace(/^[a-z]+-/, '') : null,
        author: text(box.querySelector('a.author')),
        time: time ? time.getAttribute('datetime') : null,
        author_association: text(box.querySelector('.timeline-comment-label, .Label.tooltipped')),
        edited: /edited/.test(text(box.querySelector('.timeline-comment-header')) || ''),
        text: markdownText(body),
      };
      if (first === null) {
        first = entry;
        collectRefs(body, 'body');
      } else {
        collectRefs(body, 'comment:' + (entry.comment_id || ''));
        comments.push(entry);
      }
    }
    record = {
      kind: kind || 'issue',
      repo: repo,
      number: numberFromPath,
      title: text(document.querySelector('.js-issue-title, .gh-header-title .markdown-title')),
      state: text(document.querySelector('.gh-header-meta .State, .State')),
      author: first ? first.author : null,
      created_at: first ? first.time : null,
      body: first ? first.text : '',
      labels: Array.from(document.querySelectorAll('.sidebar-labels .IssueLabel, .js-issue-labels a')).map(text).filter(Boolean),
      comments_count: comments.length,
      comments: maxComments === null ? comments : comments.slice(0, Math.max(0, maxComments)),
      linked_pull_requests: [],
      participants: Array.from(document.querySelectorAll('.participation-avatars a[href]'))
        .map((a) => (absolute(a.getAttribute('href')) || { pathname: '' }).pathname.replace(/^\/+|\/+$/g, ''))
        .filter(Boolean),
      references: references,
    };
  } else {
    throw new Error(
      'not a GitHub issue or pull request page: no issue title found at ' + location.href +
      '; open https://github.com/<owner>/<repo>/issues/<n> or /pull/<n>');
  }
  if (!record.title) {
    throw new Error('the GitHub thread at ' + location.href + ' has no readable title yet');
  }
  return record;
}
