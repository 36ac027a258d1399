//! A hostile web on 127.0.0.1: pages built to make a reader hang, spin or
//! fill memory — nesting a million levels deep, a million siblings, bodies
//! past the size cap, binary bytes, lying charsets, gzip and brotli bombs,
//! a server that drips one byte a second or never answers, framing errors
//! (a `Content-Length` longer than the body, broken chunked encoding) and
//! redirects to places the URL guard refuses. Shared by the hostile-input
//! suite (`tests/hostile_pages.rs`) and the `hostile_server` example that
//! `scripts/bench-hostile` runs.
//!
//! The bodies are generated once per server (the bombs are compressed at
//! start) and each connection is answered on its own thread. Nothing here
//! leaves loopback: the redirect targets are loopback addresses, `file:`
//! URLs or URLs with credentials.

#![allow(dead_code)] // each user takes its own subset

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Duration;

/// How big the generated pages and bombs are.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    /// Nesting depth of `/deep` (and the sibling count of `/wide`).
    pub elements: usize,
    /// Bytes of `/huge`.
    pub huge_bytes: usize,
    /// Bytes a gzip bomb expands to.
    pub gzip_bytes: usize,
    /// Bytes a brotli bomb expands to.
    pub brotli_bytes: usize,
    /// How long `/drip` and `/hang` hold a connection at most.
    pub hold: Duration,
}

impl Scale {
    /// The sizes the test suite uses: a million elements, bombs of 64 MiB
    /// (compressing more would cost the debug build time for nothing — the
    /// reader stops at its 1 MiB cap either way).
    pub const TESTS: Scale = Scale {
        elements: 1_000_000,
        huge_bytes: 5 << 20,
        gzip_bytes: 64 << 20,
        brotli_bytes: 64 << 20,
        hold: Duration::from_secs(60),
    };

    /// The sizes the benchmark uses: bombs of 1 GiB.
    pub const BENCH: Scale = Scale {
        elements: 1_000_000,
        huge_bytes: 50 << 20,
        gzip_bytes: 1 << 30,
        brotli_bytes: 1 << 30,
        hold: Duration::from_secs(120),
    };
}

/// One hostile page: its path and what it does.
#[derive(Debug, Clone, Copy)]
pub struct Case {
    /// The path on the server (`/deep`).
    pub path: &'static str,
    /// What the page does, for reports.
    pub what: &'static str,
}

/// Every page the server answers, the control page first.
pub const CASES: &[Case] = &[
    Case {
        path: "/normal",
        what: "an ordinary article (the control)",
    },
    Case {
        path: "/deep",
        what: "a million nested <div>s",
    },
    Case {
        path: "/wide",
        what: "a million sibling <p>s",
    },
    Case {
        path: "/wide-lists",
        what: "a million sibling lists after a sentence that announces them",
    },
    Case {
        path: "/wide-cards",
        what: "a million sibling teaser cards, each with its own class and headline",
    },
    Case {
        path: "/open-formatting",
        what: "blocks that each leave a <b> open (the parser reopens them all in every later block)",
    },
    Case {
        path: "/huge",
        what: "a body past the 1 MiB cap",
    },
    Case {
        path: "/binary",
        what: "random bytes served as text/html",
    },
    Case {
        path: "/charset-bogus",
        what: "a charset no decoder knows",
    },
    Case {
        path: "/charset-wrong",
        what: "UTF-8 bytes declared as UTF-16",
    },
    Case {
        path: "/gzip-bomb",
        what: "a gzip body expanding far past the cap",
    },
    Case {
        path: "/brotli-bomb",
        what: "a brotli body expanding far past the cap",
    },
    Case {
        path: "/drip",
        what: "one byte a second",
    },
    Case {
        path: "/hang",
        what: "accepts and never answers",
    },
    Case {
        path: "/short-body",
        what: "Content-Length longer than the body",
    },
    Case {
        path: "/bad-chunked",
        what: "broken chunked encoding",
    },
    Case {
        path: "/redirect-file",
        what: "a redirect to file:///etc/passwd",
    },
    Case {
        path: "/redirect-credentials",
        what: "a redirect to a URL with credentials",
    },
    Case {
        path: "/redirect-private",
        what: "a redirect to a loopback address",
    },
];

/// The control page's text: real prose, long enough to be evidence.
pub const NORMAL_PAGE: &str = "<!doctype html><html lang=en><head><meta charset=utf-8>\
<title>Harbor 9 ferry</title><script type=\"application/ld+json\">{\"@context\":\
\"https://schema.org\",\"@type\":\"Article\",\"headline\":\"The Harbor 9 ferry\"}</script></head><body><main><article><h1>The Harbor 9 ferry</h1>\
<p>The Harbor 9 ferry runs on hydrogen fuel cells and has crossed the bay every hour \
since the spring of 2021, replacing a diesel boat that the city retired.</p>\
<p>Its two decks carry 300 passengers and forty bicycles; the crossing takes eighteen \
minutes in calm weather and a little longer when the wind turns west.</p>\
<p>The operator publishes the timetable each season and posts delays at both piers, \
where ticket machines also take cards and the city's travel pass.</p>\
</article></main></body></html>";

/// A fixed answer: status line, headers and body, written at once.
struct Fixed {
    head: String,
    body: Arc<Vec<u8>>,
}

/// What the server does for a path.
enum Behaviour {
    Fixed(Fixed),
    Drip,
    Hang,
}

/// The server: its port on 127.0.0.1.
pub struct HostileWeb {
    /// The port.
    pub port: u16,
}

impl HostileWeb {
    /// Generate every page at `scale` and serve them on a free loopback
    /// port until the process ends.
    pub fn start(scale: Scale) -> Self {
        Self::start_on("127.0.0.1:0", scale)
    }

    /// [`Self::start`] on `addr` (a loopback address and port).
    pub fn start_on(addr: &str, scale: Scale) -> Self {
        let listener = TcpListener::bind(addr).expect("bind a loopback port");
        let port = listener.local_addr().unwrap().port();
        let routes = Arc::new(routes(port, scale));
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let routes = routes.clone();
                std::thread::spawn(move || {
                    let _ = answer(stream, &routes, scale.hold);
                });
            }
        });
        HostileWeb { port }
    }

    /// `http://127.0.0.1:PORT<path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// Every path's behaviour, the bodies generated.
fn routes(port: u16, scale: Scale) -> HashMap<&'static str, Behaviour> {
    let html = "text/html; charset=utf-8";
    let mut routes: HashMap<&'static str, Behaviour> = HashMap::new();
    let mut fixed = |path, head: String, body: Vec<u8>| {
        routes.insert(
            path,
            Behaviour::Fixed(Fixed {
                head,
                body: Arc::new(body),
            }),
        );
    };
    let ok = |ct: &str, extra: &str, len: usize| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {ct}\r\n{extra}Content-Length: {len}\r\nConnection: close\r\n\r\n"
        )
    };
    let page = |body: Vec<u8>, ct: &str, extra: &str| (ok(ct, extra, body.len()), body);
    for (path, body, ct, extra) in [
        ("/normal", NORMAL_PAGE.as_bytes().to_vec(), html, ""),
        ("/deep", deep(scale.elements), html, ""),
        ("/wide", wide(scale.elements), html, ""),
        ("/wide-lists", wide_lists(scale.elements), html, ""),
        ("/wide-cards", wide_cards(scale.elements), html, ""),
        (
            "/open-formatting",
            open_formatting(scale.elements),
            html,
            "",
        ),
        ("/huge", huge(scale.huge_bytes), html, ""),
        ("/binary", noise(256 << 10), html, ""),
        (
            "/charset-bogus",
            prose_utf8(),
            "text/html; charset=x-no-such-charset",
            "",
        ),
        (
            "/charset-wrong",
            prose_utf8(),
            "text/html; charset=utf-16le",
            "",
        ),
        (
            "/gzip-bomb",
            gzip_bomb(scale.gzip_bytes),
            html,
            "Content-Encoding: gzip\r\n",
        ),
        (
            "/brotli-bomb",
            brotli_bomb(scale.brotli_bytes),
            html,
            "Content-Encoding: br\r\n",
        ),
    ] {
        let (head, body) = page(body, ct, extra);
        fixed(path, head, body);
    }
    for (path, head, body) in framing_errors() {
        fixed(path, head, body);
    }
    for (path, location) in [
        ("/redirect-file", "file:///etc/passwd".to_string()),
        (
            "/redirect-credentials",
            format!("http://user:secret@127.0.0.1:{port}/normal"),
        ),
        (
            "/redirect-private",
            format!("http://127.0.0.1:{port}/normal"),
        ),
    ] {
        let head = format!(
            "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        fixed(path, head, Vec::new());
    }
    routes.insert("/drip", Behaviour::Drip);
    routes.insert("/hang", Behaviour::Hang);
    routes
}

/// `/short-body` (a `Content-Length` of 100,000 and 200 bytes sent) and
/// `/bad-chunked` (a chunk size that is not hex): path, head and body.
fn framing_errors() -> Vec<(&'static str, String, Vec<u8>)> {
    let start = NORMAL_PAGE.as_bytes()[..200].to_vec();
    let short = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: 100000\r\nConnection: close\r\n\r\n"
        .to_string();
    let chunked = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                   Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
        .to_string();
    let bad = b"10\r\n<html><body><p>\r\nzz-not-hex\r\nthe rest\r\n0\r\n\r\n".to_vec();
    vec![
        ("/short-body", short, start),
        ("/bad-chunked", chunked, bad),
    ]
}

/// Read the request head, then answer it as the path says.
fn answer(
    stream: TcpStream,
    routes: &HashMap<&'static str, Behaviour>,
    hold: Duration,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("/")
        .to_string();
    let mut line = String::new();
    while reader.read_line(&mut line)? > 2 {
        line.clear();
    }
    let mut stream = stream;
    match routes.get(path.split('?').next().unwrap_or("")) {
        Some(Behaviour::Fixed(f)) => {
            stream.write_all(f.head.as_bytes())?;
            if !request_line.starts_with("HEAD ") {
                for chunk in f.body.chunks(64 << 10) {
                    stream.write_all(chunk)?;
                }
            }
            stream.flush()
        }
        Some(Behaviour::Drip) => drip(&mut stream, hold),
        Some(Behaviour::Hang) => {
            std::thread::sleep(hold);
            Ok(())
        }
        None => stream.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nnot found",
        ),
    }
}

/// Headers at once, then a page one byte a second, until the reader hangs
/// up or `hold` has passed.
fn drip(stream: &mut TcpStream, hold: Duration) -> std::io::Result<()> {
    stream.write_all(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n\r\n",
    )?;
    let body = NORMAL_PAGE.as_bytes();
    let started = std::time::Instant::now();
    for b in body.iter().cycle() {
        if started.elapsed() > hold {
            break;
        }
        stream.write_all(std::slice::from_ref(b))?;
        stream.flush()?;
        std::thread::sleep(Duration::from_secs(1));
    }
    Ok(())
}

/// `n` nested `<div>`s around one sentence (never closed).
pub fn deep(n: usize) -> Vec<u8> {
    let mut out = b"<!doctype html><html><head><title>deep</title></head><body>".to_vec();
    out.reserve(n * 5 + 64);
    for _ in 0..n {
        out.extend_from_slice(b"<div>");
    }
    out.extend_from_slice(b"The bottom of a very deep page.");
    out
}

/// A page titled `title`: `open`, then the `n` elements `item` writes
/// (the `i`-th for each `i`), then `close`.
fn siblings(
    title: &str,
    open: &str,
    n: usize,
    item: impl Fn(usize, &mut Vec<u8>),
    close: &str,
) -> Vec<u8> {
    let mut out = format!("<!doctype html><html><head><title>{title}</title></head><body>{open}")
        .into_bytes();
    out.reserve(n * 20 + 64);
    for i in 0..n {
        item(i, &mut out);
    }
    out.extend_from_slice(close.as_bytes());
    out
}

/// `n` sibling paragraphs of one word.
pub fn wide(n: usize) -> Vec<u8> {
    let item = |i: usize, out: &mut Vec<u8>| {
        out.extend_from_slice(if i.is_multiple_of(2) {
            b"<p>word</p>"
        } else {
            b"<p>more</p>"
        })
    };
    siblings("wide", "", n, item, "</body></html>")
}

/// A sentence that ends with a colon, then `n` sibling one-item lists:
/// each list looks for the paragraph that announces it.
pub fn wide_lists(n: usize) -> Vec<u8> {
    let open = "<div><p>This long sentence announces the lists that follow it, and it ends with a colon as such sentences do:</p>";
    let item = |_: usize, out: &mut Vec<u8>| out.extend_from_slice(b"<ul><li>x</li></ul>");
    siblings("lists", open, n, item, "</div></body></html>")
}

/// `n` sibling cards, each a linked headline of its own in an element of
/// its own class (`c` and letters): no two cards look alike.
pub fn wide_cards(n: usize) -> Vec<u8> {
    let item = |i: usize, out: &mut Vec<u8>| {
        let mut class = String::from("c");
        let mut k = i + 1;
        while k > 0 {
            class.push(char::from(b'a' + (k % 26) as u8));
            k /= 26;
        }
        out.extend_from_slice(
            format!(
                "<div class=\"{class}\"><a href=\"/s/{i}\">A headline of its own, {i}</a></div>"
            )
            .as_bytes(),
        );
    };
    siblings("cards", "<div>", n, item, "</div></body></html>")
}

/// `n` blocks that each leave a `<b>` of its own open: the parser reopens
/// every open formatting element in each later block.
pub fn open_formatting(n: usize) -> Vec<u8> {
    let mut out = b"<!doctype html><html><head><title>bold</title></head><body>".to_vec();
    for i in 0..n {
        out.extend_from_slice(format!("<div><b data-k=\"{i}\">word {i}</div>").as_bytes());
    }
    out.extend_from_slice(b"</body></html>");
    out
}

/// A page of `bytes` bytes of varied prose paragraphs.
pub fn huge(bytes: usize) -> Vec<u8> {
    let words = [
        "harbor",
        "ferry",
        "deck",
        "crossing",
        "timetable",
        "pier",
        "weather",
        "hydrogen",
        "passengers",
        "bicycles",
        "operator",
        "season",
        "tickets",
        "wind",
        "city",
        "boat",
    ];
    let mut out = b"<!doctype html><html><head><title>huge</title></head><body><main>".to_vec();
    let mut state = 0x2545_f491_u32;
    while out.len() < bytes {
        out.extend_from_slice(b"<p>");
        for _ in 0..40 {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            out.extend_from_slice(words[(state as usize) % words.len()].as_bytes());
            out.push(b' ');
        }
        out.extend_from_slice(b"end.</p>\n");
    }
    out.truncate(bytes);
    out
}

/// `n` pseudo-random bytes (xorshift; the same on every run).
pub fn noise(n: usize) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 32) as u8
        })
        .collect()
}

/// A prose page in UTF-8 with accents and CJK, for the lying charsets.
fn prose_utf8() -> Vec<u8> {
    let mut page = NORMAL_PAGE.replace(
        "</article>",
        "<p>Café, naïve façade — 渡轮每小时一班，载客三百人。</p></article>",
    );
    page.push('\n');
    page.into_bytes()
}

/// 1 MiB of what a bomb repeats: NUL bytes, the classic (a page that
/// starts as HTML and goes on as zeros; the reader must neither inflate it
/// all nor read it as text).
fn bomb_unit() -> Vec<u8> {
    vec![0u8; 1 << 20]
}

/// The start of every bomb, before the zeros.
const BOMB_START: &[u8] = b"<!doctype html><html><head><title>bomb</title></head><body><p>";

/// `n` bytes of a bomb gzip-compressed (at the fastest level).
pub fn gzip_bomb(n: usize) -> Vec<u8> {
    let unit = bomb_unit();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(BOMB_START).unwrap();
    for _ in 0..n.div_ceil(unit.len()) {
        encoder.write_all(&unit).unwrap();
    }
    encoder.finish().unwrap()
}

/// `n` bytes of a bomb brotli-compressed (at the fastest quality).
pub fn brotli_bomb(n: usize) -> Vec<u8> {
    let unit = bomb_unit();
    let mut out = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 1 << 16, 1, 22);
        writer.write_all(BOMB_START).unwrap();
        for _ in 0..n.div_ceil(unit.len()) {
            writer.write_all(&unit).unwrap();
        }
    }
    out
}
