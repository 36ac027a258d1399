//! Looking at browser processes through `/proc` (Linux): the members of a
//! managed browser's process group, and their memory (PSS). Used to prove a
//! shutdown leaves nothing behind and to measure memory in benchmarks. On
//! other systems the functions find nothing.

use std::fs;

/// One process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcInfo {
    /// Process id.
    pub pid: u32,
    /// Parent process id.
    pub ppid: u32,
    /// Process group id.
    pub pgid: u32,
    /// State letter (`R`, `S`, `Z` …).
    pub state: char,
    /// The command name (`comm`).
    pub name: String,
    /// The executable path, when readable.
    pub exe: Option<String>,
}

impl ProcInfo {
    /// A zombie (exited, not yet reaped): holds no memory and runs nothing.
    pub fn is_zombie(&self) -> bool {
        self.state == 'Z' || self.state == 'X'
    }
}

fn read_stat(pid: u32) -> Option<ProcInfo> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) state ppid pgrp …; comm may contain spaces and parentheses.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat.get(open + 1..close)?.to_string();
    let mut rest = stat.get(close + 1..)?.split_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    let pgid = rest.next()?.parse().ok()?;
    let exe = fs::read_link(format!("/proc/{pid}/exe"))
        .ok()
        .map(|p| p.display().to_string());
    Some(ProcInfo {
        pid,
        ppid,
        pgid,
        state,
        name,
        exe,
    })
}

/// Every process visible in `/proc`.
pub fn all() -> Vec<ProcInfo> {
    let Ok(dir) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()))
        .filter_map(read_stat)
        .collect()
}

/// Live (non-zombie) processes in the process group `pgid` (a managed
/// browser's pid leads its group, helpers included).
pub fn live_in_group(pgid: u32) -> Vec<ProcInfo> {
    all()
        .into_iter()
        .filter(|p| p.pgid == pgid && !p.is_zombie())
        .collect()
}

/// Live processes whose executable or name looks like Chrome / Chromium.
pub fn live_chromium() -> Vec<ProcInfo> {
    all()
        .into_iter()
        .filter(|p| !p.is_zombie())
        .filter(|p| {
            let exe = p.exe.as_deref().unwrap_or("");
            exe.contains("/chromium/")
                || exe.ends_with("/chrome")
                || exe.ends_with("/chromium")
                || p.name.starts_with("chrom")
        })
        .collect()
}

/// Live processes descended from `root` (children, grandchildren …).
pub fn live_descendants(root: u32) -> Vec<ProcInfo> {
    let procs = all();
    let mut out: Vec<ProcInfo> = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for p in procs.iter().filter(|p| p.ppid == parent) {
            if !out.iter().any(|o| o.pid == p.pid) {
                frontier.push(p.pid);
                out.push(p.clone());
            }
        }
    }
    out.retain(|p| !p.is_zombie());
    out
}

/// The command line of `pid`, one argument per element.
pub fn cmdline(pid: u32) -> Option<Vec<String>> {
    let raw = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
    Some(
        raw.split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
    )
}

/// Proportional set size of `pid` in KiB (`/proc/PID/smaps_rollup`).
pub fn pss_kib(pid: u32) -> Option<u64> {
    let text = fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    text.lines()
        .find(|l| l.starts_with("Pss:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_itself() {
        let me = std::process::id();
        let all = all();
        if all.is_empty() {
            // Not Linux: nothing to check.
            return;
        }
        let mine = all
            .iter()
            .find(|p| p.pid == me)
            .expect("own process listed");
        assert!(!mine.is_zombie());
        assert!(pss_kib(me).unwrap_or(0) > 0);
        assert!(live_descendants(me).iter().all(|p| p.pid != me));
    }
}
