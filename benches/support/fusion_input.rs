//! The synthetic engine results of `shared/bench/peers/fusion_peers.py`'s
//! `make_input`, reproduced exactly: the same Mersenne Twister as Python's
//! `random.Random(seed)` and the same sequence of draws (`randrange`,
//! `choice`, `sample`, `shuffle`, `random`), so the Rust fusion benchmark
//! sees byte-for-byte the input the Python peers see.
//!
//! Shared by `benches/fusion.rs` and `examples/fusion_scale.rs` (included
//! with `#[path]`).

#![allow(dead_code)]

use ferret::core::Provenance;
use ferret::core::Runtime;
use ferret::core::{EngineCall, EngineHit, EngineResponse};

/// The eight engine names of `fusion_peers.py`.
pub const ENGINES: [&str; 8] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
];

/// The query of `fusion_peers.py`.
pub const QUERY: &str = "rust async runtime benchmark";

const WORDS: &str = "rust async runtime tokio benchmark latency thread executor future poll \
waker task scheduler memory allocation kernel socket epoll io uring \
network http server client request response stream buffer queue \
channel mutex lock atomic cache page index search engine result rank \
the a of and to in is for on with as by at from this that";

/// CPython's MT19937 (`random.Random`).
pub struct PyRandom {
    mt: [u32; 624],
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)` for a non-negative integer seed below 2^32.
    pub fn new(seed: u32) -> Self {
        let mut r = PyRandom {
            mt: [0; 624],
            index: 624,
        };
        r.init_by_array(&[seed]);
        r
    }

    fn init_genrand(&mut self, s: u32) {
        self.mt[0] = s;
        for i in 1..624 {
            let prev = self.mt[i - 1];
            self.mt[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        self.index = 624;
    }

    fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19_650_218);
        let n = 624;
        let (mut i, mut j) = (1usize, 0usize);
        let mut k = n.max(key.len());
        while k > 0 {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= n {
                self.mt[0] = self.mt[n - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
            k -= 1;
        }
        k = n - 1;
        while k > 0 {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= n {
                self.mt[0] = self.mt[n - 1];
                i = 1;
            }
            k -= 1;
        }
        self.mt[0] = 0x8000_0000;
    }

    fn next_u32(&mut self) -> u32 {
        if self.index >= 624 {
            for i in 0..624 {
                let y = (self.mt[i] & 0x8000_0000) | (self.mt[(i + 1) % 624] & 0x7fff_ffff);
                let mut v = self.mt[(i + 397) % 624] ^ (y >> 1);
                if y & 1 != 0 {
                    v ^= 0x9908_b0df;
                }
                self.mt[i] = v;
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^= y >> 18;
        y
    }

    /// `random.random()`.
    pub fn random(&mut self) -> f64 {
        let a = f64::from(self.next_u32() >> 5);
        let b = f64::from(self.next_u32() >> 6);
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }

    /// `getrandbits(k)` for 1 ≤ k ≤ 32.
    fn getrandbits(&mut self, k: u32) -> u32 {
        self.next_u32() >> (32 - k)
    }

    /// `_randbelow(n)` for 1 ≤ n < 2^32.
    pub fn randbelow(&mut self, n: usize) -> usize {
        let k = usize::BITS - n.leading_zeros();
        loop {
            let r = self.getrandbits(k) as usize;
            if r < n {
                return r;
            }
        }
    }

    /// `sample(range(n), k)` (CPython 3.11's algorithm).
    pub fn sample_range(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut setsize = 21usize;
        if k > 5 {
            // 4 ** ceil(log(k * 3, 4))
            let e = ((k as f64 * 3.0).ln() / 4f64.ln()).ceil() as u32;
            setsize += 4usize.pow(e);
        }
        let mut result = Vec::with_capacity(k);
        if n <= setsize {
            let mut pool: Vec<usize> = (0..n).collect();
            for i in 0..k {
                let j = self.randbelow(n - i);
                result.push(pool[j]);
                pool[j] = pool[n - i - 1];
            }
        } else {
            let mut selected = std::collections::HashSet::with_capacity(k);
            for _ in 0..k {
                let mut j = self.randbelow(n);
                while selected.contains(&j) {
                    j = self.randbelow(n);
                }
                selected.insert(j);
                result.push(j);
            }
        }
        result
    }

    /// `shuffle(x)`.
    pub fn shuffle<T>(&mut self, x: &mut [T]) {
        for i in (1..x.len()).rev() {
            let j = self.randbelow(i + 1);
            x.swap(i, j);
        }
    }
}

fn host(i: usize) -> String {
    format!(
        "site{}.example{}.com",
        i % 2000,
        if !i.is_multiple_of(3) { "" } else { "-org" }
    )
}

fn canon_url(rng: &mut PyRandom, i: usize, tag: &str) -> String {
    let n = rng.randbelow(1_000_000);
    format!("https://{}/{tag}/{i}/article-{n}", host(i))
}

fn text(rng: &mut PyRandom, words: &[&str], n: usize) -> String {
    let mut out = String::new();
    for k in 0..n {
        if k > 0 {
            out.push(' ');
        }
        out.push_str(words[rng.randbelow(words.len())]);
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first
            .to_uppercase()
            .chain(c.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

fn variant(rng: &mut PyRandom, url: &str) -> String {
    let mut u = url.to_string();
    if rng.random() < 0.25 {
        u.push('/');
    }
    if rng.random() < 0.15 {
        u = format!("http://{}", &u["https://".len()..]);
    }
    if rng.random() < 0.10 {
        let (scheme, rest) = u.split_once("://").expect("url has a scheme");
        u = format!("{scheme}://www.{rest}");
    }
    if rng.random() < 0.15 {
        u.push_str("?utm_source=feed&utm_medium=rss");
    }
    u
}

/// One engine's results as `make_input` builds them.
#[derive(Clone)]
pub struct PeerResult {
    /// Title.
    pub title: String,
    /// URL.
    pub url: String,
    /// Snippet (`content`).
    pub content: String,
}

/// `make_input(per_engine, seed)`: the engines' results and the number of
/// distinct canonical URLs ("truth").
pub fn make_input(per_engine: usize, seed: u32) -> (Vec<(&'static str, Vec<PeerResult>)>, usize) {
    let words: Vec<&str> = WORDS.split_whitespace().collect();
    let mut rng = PyRandom::new(seed);
    let pool_n = ((0.8 * per_engine as f64) as usize).max(1);
    let pool: Vec<String> = (0..pool_n)
        .map(|i| canon_url(&mut rng, i, "shared"))
        .collect();
    let shared_slots = (0.3 * per_engine as f64).round_ties_even() as usize;
    let mut canon = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(ENGINES.len());
    let mut uid = 0usize;
    for e in ENGINES {
        let picks = rng.sample_range(pool_n, shared_slots.min(pool_n));
        let mut slots: Vec<Option<usize>> = picks.iter().map(|&p| Some(p)).collect();
        slots.extend(std::iter::repeat_n(
            None,
            per_engine.saturating_sub(picks.len()),
        ));
        rng.shuffle(&mut slots);
        let mut res = Vec::with_capacity(per_engine);
        for slot in slots {
            let url = match slot {
                Some(p) => {
                    canon.insert(pool[p].clone());
                    variant(&mut rng, &pool[p])
                }
                None => {
                    let u = canon_url(&mut rng, 100_000 + uid, e);
                    uid += 1;
                    canon.insert(u.clone());
                    u
                }
            };
            let title = capitalize(&text(&mut rng, &words, 8));
            let n = 20 + rng.randbelow(25);
            let content = format!("{}.", text(&mut rng, &words, n));
            res.push(PeerResult {
                title,
                url,
                content,
            });
        }
        out.push((e, res));
    }
    (out, canon.len())
}

/// The input as engine calls: one call per engine for [`QUERY`], ranks
/// 1..=N in order (the rows are copied; see [`into_engine_calls`]).
pub fn engine_calls(input: &[(&'static str, Vec<PeerResult>)]) -> Vec<EngineCall> {
    into_engine_calls(input.to_vec())
}

/// [`engine_calls`], moving the texts instead of copying them (a harness
/// that copies a million rows and frees the originals leaves millions of
/// small freed blocks that the next large allocation must first sort
/// through; no engine adapter works that way).
pub fn into_engine_calls(input: Vec<(&'static str, Vec<PeerResult>)>) -> Vec<EngineCall> {
    input
        .into_iter()
        .map(|(engine, results)| EngineCall {
            engine: engine.to_string(),
            sub_query: QUERY.to_string(),
            sub_query_index: 0,
            response: EngineResponse::new(
                Provenance::public(Runtime::Http),
                results
                    .into_iter()
                    .enumerate()
                    .map(|(i, r)| EngineHit::new(i as u32 + 1, r.url, r.title, r.content))
                    .collect(),
            ),
        })
        .collect()
}

/// A digest of the input (FNV-1a over engine, title, url, content), to
/// compare with the Python generator's.
pub fn digest(input: &[(&'static str, Vec<PeerResult>)]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |s: &str| {
        for &b in s.as_bytes().iter().chain(b"\n") {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for (engine, results) in input {
        feed(engine);
        for r in results {
            feed(&r.title);
            feed(&r.url);
            feed(&r.content);
        }
    }
    h
}
