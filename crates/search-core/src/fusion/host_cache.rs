//! Authority by host, cached for one fusion thread: many results share a
//! host, and scoring one means a Public Suffix List lookup and the tier
//! tables.
//!
//! The cache is laid out for a lookup per result at a million results:
//! the hosts are written back to back into one string, a small hash table
//! holds entry numbers and is probed with the host's hash, and the entries
//! (host position, hash, where the registrable domain starts) are compact,
//! so a lookup touches a few nearby cache lines instead of a `String` key
//! somewhere on the heap.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::authority::Authority;

/// One cached host.
#[derive(Clone, Copy)]
struct Entry {
    hash: u64,
    start: u32,
    len: u32,
    /// Byte offset of the registrable domain within the host.
    domain_at: u32,
}

/// Authority and registrable-domain offset by normalised host.
#[derive(Default)]
pub(super) struct HostCache {
    table: HashTable<u32>,
    names: String,
    entries: Vec<Entry>,
    authorities: Vec<Authority>,
}

impl HostCache {
    /// An empty cache whose table holds `hosts` hosts before it grows.
    pub(super) fn with_capacity(hosts: usize) -> Self {
        HostCache {
            table: HashTable::with_capacity(hosts),
            ..HostCache::default()
        }
    }

    /// The authority of `host` and where its registrable domain starts in
    /// it, when cached.
    pub(super) fn get(&self, host: &str) -> Option<(&Authority, usize)> {
        let hash = FxBuildHasher.hash_one(host);
        let &i = self.table.find(hash, |&i| self.is(i, hash, host))?;
        let e = self.entries[i as usize];
        Some((&self.authorities[i as usize], e.domain_at as usize))
    }

    /// Cache `authority` for `host`, whose registrable domain starts at
    /// byte `domain_at`. A host already cached, or one that would not fit
    /// the 32-bit offsets, is left as it is.
    pub(super) fn insert(&mut self, host: &str, authority: Authority, domain_at: usize) {
        let hash = FxBuildHasher.hash_one(host);
        if self.table.find(hash, |&i| self.is(i, hash, host)).is_some() {
            return;
        }
        let (Ok(start), Ok(len), Ok(domain_at), Ok(i)) = (
            u32::try_from(self.names.len()),
            u32::try_from(host.len()),
            u32::try_from(domain_at),
            u32::try_from(self.entries.len()),
        ) else {
            return;
        };
        if start.checked_add(len).is_none() {
            return;
        }
        self.names.push_str(host);
        self.entries.push(Entry {
            hash,
            start,
            len,
            domain_at,
        });
        self.authorities.push(authority);
        let entries = &self.entries;
        self.table
            .insert_unique(hash, i, |&i| entries[i as usize].hash);
    }

    /// Whether entry `i` is `host` (with hash `hash`).
    fn is(&self, i: u32, hash: u64, host: &str) -> bool {
        let e = self.entries[i as usize];
        e.hash == hash
            && self
                .names
                .get(e.start as usize..(e.start + e.len) as usize)
                .is_some_and(|name| name == host)
    }
}

#[cfg(test)]
mod tests {
    use super::HostCache;
    use crate::authority::AuthorityScorer;

    #[test]
    fn hosts_come_back_with_their_authority_and_domain_offset() {
        let scorer = AuthorityScorer::new::<&str>(&[]);
        let mut cache = HostCache::default();
        assert!(cache.get("en.wikipedia.org").is_none());
        let wiki = scorer.score("en.wikipedia.org");
        cache.insert("en.wikipedia.org", wiki.clone(), 3);
        let other = scorer.score("blog.example.com");
        cache.insert("blog.example.com", other.clone(), 5);
        // A second insert of a cached host changes nothing.
        cache.insert("en.wikipedia.org", other.clone(), 0);
        assert_eq!(cache.get("en.wikipedia.org"), Some((&wiki, 3)));
        assert_eq!(cache.get("blog.example.com"), Some((&other, 5)));
        // Prefixes and extensions of cached hosts are other hosts.
        assert!(cache.get("en.wikipedia.or").is_none());
        assert!(cache.get("en.wikipedia.org.").is_none());
        assert!(cache.get("").is_none());
    }

    #[test]
    fn many_hosts_are_all_found() {
        let scorer = AuthorityScorer::new::<&str>(&[]);
        let a = scorer.score("example.com");
        let mut cache = HostCache::with_capacity(16);
        let hosts: Vec<String> = (0..5000).map(|i| format!("site{i}.example.com")).collect();
        for (i, h) in hosts.iter().enumerate() {
            cache.insert(h, a.clone(), i % 7);
        }
        for (i, h) in hosts.iter().enumerate() {
            assert_eq!(cache.get(h).map(|(_, at)| at), Some(i % 7), "{h}");
        }
        assert!(cache.get("site5000.example.com").is_none());
    }
}
