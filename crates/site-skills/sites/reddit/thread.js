// One exported async function, API style: read the Reddit thread open in
// this tab through its same-origin JSON endpoint (<thread URL>/.json), or
// parse the page itself when the tab already shows that JSON.
//
// The endpoint answers [Listing(t3 post), Listing(t1 comments…)]; each t1
// carries depth, parent_id and a nested `replies` Listing, and `more` stubs
// stand for comments the response left out.
async function readRedditThread(args) {
  'use strict';
  const maxComments = args && Number.isInteger(args.max_comments) ? args.max_comments : null;
  const sort = args && typeof args.sort === 'string' ? args.sort : null;

  const path = location.pathname;
  let payload;
  if (/\.json$/.test(path)) {
    const raw = (document.body && document.body.innerText) || '';
    try {
      payload = JSON.parse(raw);
    } catch (e) {
      throw new Error('the page at ' + location.href + ' is not Reddit JSON: ' + e.message);
    }
  } else {
    if (!/\/comments\/[a-z0-9]+/i.test(path)) {
      throw new Error(
        'not a Reddit thread: ' + location.href +
        '; open https://www.reddit.com/r/<subreddit>/comments/<id>/<slug>/');
    }
    const endpoint = new URL(path.replace(/\/?$/, '/') + '.json', location.origin);
    endpoint.searchParams.set('limit', '500');
    endpoint.searchParams.set('raw_json', '1');
    if (sort) endpoint.searchParams.set('sort', sort);
    const response = await fetch(endpoint.href, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    if (!response.ok) {
      throw new Error('Reddit answered HTTP ' + response.status + ' for ' + endpoint.href);
    }
    try {
      payload = await response.json();
    } catch (e) {
      throw new Error('Reddit answered something other than JSON for ' + endpoint.href + ': ' + e.message);
    }
  }

  if (!Array.isArray(payload) || payload.length < 2 || !payload[0] || !payload[0].data) {
    throw new Error('unexpected Reddit thread JSON: expected [post listing, comment listing]');
  }
  const postThing = (payload[0].data.children || [])[0];
  if (!postThing || postThing.kind !== 't3') throw new Error('the Reddit JSON has no t3 post');
  const p = postThing.data;
  const iso = (seconds) => (typeof seconds === 'number' ? new Date(seconds * 1000).toISOString() : null);

  const comments = [];
  const more = [];
  const walk = (children, depth) => {
    for (const child of children || []) {
      const d = child.data || {};
      if (child.kind === 'more') {
        more.push({ parent_id: d.parent_id || null, depth: depth, count: d.count || 0, ids: (d.children || []).length });
        continue;
      }
      if (child.kind !== 't1') continue;
      comments.push({
        comment_id: d.id,
        parent_id: d.parent_id || null,
        depth: typeof d.depth === 'number' ? d.depth : depth,
        author: d.author || null,
        score: typeof d.score === 'number' ? d.score : null,
        time: iso(d.created_utc),
        text: d.body || '',
        permalink: d.permalink ? new URL(d.permalink, 'https://www.reddit.com').href : null,
      });
      if (d.replies && d.replies.data) walk(d.replies.data.children, depth + 1);
    }
  };
  walk(payload[1].data && payload[1].data.children, 0);

  return {
    post_id: p.id,
    subreddit: p.subreddit || null,
    title: p.title || null,
    author: p.author || null,
    score: typeof p.score === 'number' ? p.score : null,
    time: iso(p.created_utc),
    url: p.url || null,
    permalink: p.permalink ? new URL(p.permalink, 'https://www.reddit.com').href : null,
    text: p.selftext || '',
    reported_comments: typeof p.num_comments === 'number' ? p.num_comments : null,
    comments_loaded: comments.length,
    comments: maxComments === null ? comments : comments.slice(0, Math.max(0, maxComments)),
    more: more,
    more_count: more.reduce((n, m) => n + m.count, 0),
  };
}
