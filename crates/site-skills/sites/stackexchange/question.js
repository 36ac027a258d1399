// Stack Exchange question pages (stackoverflow.com and *.stackexchange.com
// share one template): an IIFE bundle exposing
// window.FerretStackExchange.question.
//
// Written against the logged-out QAPage markup: div#question.js-question
// [data-questionid][data-score][data-author-username], #question-header h1,
// div.answer.js-answer[data-answerid][data-score][data-author-username]
// (class accepted-answer / itemprop=acceptedAnswer when accepted), the post
// body in .js-post-body, time[itemprop=dateCreated][datetime], tags as
// a.post-tag, comments as li.js-comment[data-comment-id] with .comment-copy.
(function () {
  'use strict';

  function text(el) {
    return el ? el.textContent.replace(/\u00a0/g, ' ').replace(/\s+/g, ' ').trim() : null;
  }

  // A post body: paragraphs, headings and list items on their own lines,
  // code blocks kept verbatim.
  function bodyText(el) {
    if (!el) return '';
    const parts = [];
    const code = [];
    const walk = (node) => {
      for (const child of node.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) {
          parts.push(child.data.replace(/\s+/g, ' '));
        } else if (child.nodeType === Node.ELEMENT_NODE) {
          const tag = child.tagName;
          if (tag === 'SCRIPT' || tag === 'STYLE' || tag === 'svg') continue;
          if (tag === 'PRE') {
            code.push(child.textContent.replace(/\n+$/, ''));
            parts.push('\n\u0000' + (code.length - 1) + '\u0000\n');
            continue;
          }
          const block = /^(P|DIV|LI|UL|OL|H[1-6]|BLOCKQUOTE|TABLE|TR|BR|HR)$/.test(tag);
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
      .split('\n')
      .map((line) => line.trim())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
      .replace(/\u0000(\d+)\u0000/g, (_, i) => code[+i]);
  }

  // "2015-10-16 13:56:20Z" → "2015-10-16T13:56:20Z".
  function isoTime(value) {
    return value ? value.trim().replace(' ', 'T') : null;
  }

  function int(value) {
    const n = parseInt(value, 10);
    return Number.isFinite(n) ? n : null;
  }

  function comments(post) {
    const out = [];
    for (const li of post.querySelectorAll('li.js-comment[data-comment-id]')) {
      const user = li.querySelector('a.comment-user');
      const date = li.querySelector('.comment-date span[title]');
      out.push({
        comment_id: li.getAttribute('data-comment-id'),
        author: user ? text(user) : text(li.querySelector('[itemprop="author"] [itemprop="name"]')),
        score: int(li.getAttribute('data-comment-score')),
        time: date ? isoTime(date.getAttribute('title').split(',')[0]) : null,
        text: text(li.querySelector('.comment-copy')),
      });
    }
    return out;
  }

  // When a post was created: its own time[itemprop=dateCreated] (answers),
  // else the owner's signature ("asked …" / "answered …"), never the
  // "edited …" signature.
  function postTime(post, fallback) {
    const time = post.querySelector('time[itemprop="dateCreated"]');
    if (time) return isoTime(time.getAttribute('datetime'));
    if (fallback) return isoTime(fallback.getAttribute('datetime'));
    for (const sig of post.querySelectorAll('.post-signature')) {
      const action = sig.querySelector('.user-action-time');
      const stamp = action && action.querySelector('.relativetime[title]');
      if (stamp && /^(asked|answered)\b/.test(text(action))) return isoTime(stamp.getAttribute('title'));
    }
    return null;
  }

  function answer(el) {
    return {
      answer_id: el.getAttribute('data-answerid'),
      score: int(el.getAttribute('data-score')),
      accepted:
        el.classList.contains('accepted-answer') || el.getAttribute('itemprop') === 'acceptedAnswer',
      author: el.getAttribute('data-author-username') || null,
      time: postTime(el),
      text: bodyText(el.querySelector('.js-post-body')),
      comments: comments(el),
    };
  }

  function question(args) {
    const includeComments = !(args && args.include_comments === false);
    const q = document.querySelector('#question.js-question, div.question[data-questionid]');
    if (!q) {
      throw new Error(
        'not a Stack Exchange question page: no #question at ' + location.href +
        '; open https://<site>/questions/<id>');
    }
    const tags = [];
    for (const a of document.querySelectorAll('#question a.post-tag, .post-taglist a.post-tag')) {
      const t = text(a);
      if (t && !tags.includes(t)) tags.push(t);
    }
    const viewed = document.querySelector('[title^="Viewed "]');
    const answers = Array.from(document.querySelectorAll('div.answer.js-answer[data-answerid]')).map(answer);
    if (!includeComments) for (const a of answers) delete a.comments;
    const countEl = document.querySelector('[itemprop="answerCount"]');
    const record = {
      question_id: q.getAttribute('data-questionid'),
      title: text(document.querySelector('#question-header h1')),
      url: (document.querySelector('link[rel="canonical"]') || location).href,
      score: int(q.getAttribute('data-score')),
      author: q.getAttribute('data-author-username') || null,
      time: postTime(q, document.querySelector('#question-header ~ * time[itemprop="dateCreated"], time[itemprop="dateCreated"]')),
      views: viewed ? int(viewed.getAttribute('title').replace(/[^\d]/g, '')) : null,
      tags: tags,
      text: bodyText(q.querySelector('.js-post-body')),
      answer_count: countEl ? int(countEl.textContent) : answers.length,
      answers: answers,
    };
    if (includeComments) record.comments = comments(q);
    if (!record.title) throw new Error('the question at ' + location.href + ' has no readable title');
    return record;
  }

  window.FerretStackExchange = { question: question };
})();
