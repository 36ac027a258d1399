//! A small HTTP/1.1 server on 127.0.0.1 for the CLI test binaries: each
//! request is answered by a closure, on its own thread, and every request
//! is recorded (method, path, `Cookie` header) so a test can tell what a
//! browser or a fetch sent.

#![allow(dead_code)] // each test binary uses its own subset

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One request as the server read it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `GET`, `POST` …
    pub method: String,
    /// The path with its query.
    pub path: String,
    /// The `Cookie` header, empty when none.
    pub cookie: String,
    /// The body.
    pub body: Vec<u8>,
}

/// An answer.
#[derive(Debug, Clone)]
pub struct Response {
    /// `200 OK`, `404 Not Found` …
    pub status: &'static str,
    /// More headers, `Name: value` each.
    pub headers: Vec<String>,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// The body.
    pub body: String,
}

impl Response {
    /// A `200 OK` HTML page.
    pub fn html(body: impl Into<String>) -> Self {
        Response {
            status: "200 OK",
            headers: Vec::new(),
            content_type: "text/html; charset=utf-8",
            body: body.into(),
        }
    }

    /// A `404 Not Found`.
    pub fn not_found() -> Self {
        Response {
            status: "404 Not Found",
            headers: Vec::new(),
            content_type: "text/plain",
            body: "not found".into(),
        }
    }

    /// The same answer with one more header.
    pub fn header(mut self, line: impl Into<String>) -> Self {
        self.headers.push(line.into());
        self
    }
}

type Handler = dyn Fn(&Request) -> Response + Send + Sync;

/// The server: its port and every request seen so far.
pub struct LocalWeb {
    /// The port on 127.0.0.1.
    pub port: u16,
    seen: Arc<Mutex<Vec<Request>>>,
}

impl LocalWeb {
    /// Serve `handler` on a free loopback port until the process ends.
    pub fn start(handler: impl Fn(&Request) -> Response + Send + Sync + 'static) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a local port");
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let log = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (handler, log) = (handler.clone(), log.clone());
                std::thread::spawn(move || {
                    let _ = serve(stream, handler.as_ref(), &log);
                });
            }
        });
        LocalWeb { port, seen }
    }

    /// `http://127.0.0.1:PORT<path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Every request seen so far.
    pub fn requests(&self) -> Vec<Request> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, handler: &Handler, log: &Mutex<Vec<Request>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let path = parts.next().unwrap_or("").to_string();
    let (mut content_length, mut cookie) = (0usize, String::new());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                content_length = value.trim().parse().unwrap_or(0);
            } else if name.eq_ignore_ascii_case("cookie") {
                cookie = value.trim().to_string();
            }
        }
    }
    let mut body = vec![0u8; content_length.min(1 << 20)];
    reader.read_exact(&mut body)?;
    let request = Request {
        method,
        path,
        cookie,
        body,
    };
    let response = handler(&request);
    log.lock().unwrap().push(request.clone());
    let mut stream = stream;
    let mut head = format!(
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
        response.status,
        response.content_type,
        response.body.len()
    );
    for h in &response.headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes())?;
    if request.method != "HEAD" {
        stream.write_all(response.body.as_bytes())?;
    }
    stream.flush()
}
